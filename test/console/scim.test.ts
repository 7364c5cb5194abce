import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { tokensService } from '../../src/auth/tokens.service.js';
import { SCIM_REQUESTS_KEPT } from '../../src/scim/request-log.js';
import { signedInAs, textOf, valueOf } from '../helpers/console-sign-in.js';
import { eventsAfter, latestEventId } from '../helpers/events.js';
import { forEachEngine } from '../helpers/harness.js';
import type { PageBrowser, PageReply } from '../helpers/pages.js';
import { ScimClient, USER_SCHEMA } from '../scim/scim-client.js';

const tokenOf = (reply: PageReply) => /<code class="secret" id="secret">([^<]+)<\/code>/.exec(reply.body)?.[1];
/** The rows of the page's log of SCIM requests, as text. */
const logOf = (reply: PageReply) => {
  const table = /aria-label="Last SCIM requests"[\s\S]*?<\/table>/.exec(reply.body)![0];
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].slice(1).map((row) => textOf({ ...reply, body: row[1]! }).trim());
};

forEachEngine('Console: SCIM', (h) => {
  let admin: PageBrowser;
  let section: string;

  before(async () => {
    ({ browser: admin } = await signedInAs(h, 'organizationAdministrator'));
    section = `/o/${h.org.id}/console/scim`;
  });

  it('is for organization administrators: a course administrator and a learner get 403 and get no token', async () => {
    const before = (await tokensService(h.database.db).list(h.org.id)).length;
    for (const kind of ['courseAdministrator', 'learner'] as const) {
      const { browser } = await signedInAs(h, kind);
      assert.equal((await browser.get(section)).status, 403, kind);
      assert.equal((await browser.post(`${section}/tokens`, { name: 'Mine' })).status, 403, kind);
      assert.equal((await browser.post(`${section}/mappings`, { attribute: 'title', userfieldId: '' })).status, 403, kind);
    }
    assert.equal((await tokensService(h.database.db).list(h.org.id)).length, before);
  });

  it('gives the base URL and a SCIM token shown once; the provider’s requests show in the log, without bodies or queries', async () => {
    const page = await admin.get(section);
    assert.equal(page.status, 200);
    assert.match(page.body, /<code id="scim-base">https?:\/\/[^<]+\/scim\/v2<\/code>/);
    assert.match(textOf(page), /No SCIM token yet/);
    assert.match(textOf(page), /No request yet\./);

    const cursor = await latestEventId(h);
    const made = await admin.post(`${section}/tokens`, { name: 'Okta' });
    assert.equal(made.status, 201);
    const token = tokenOf(made)!;
    assert.ok(token, 'the token is on the page');
    assert.match(made.body, /data-copy="#secret"/);
    assert.ok(!(await admin.get(section)).body.includes(token), 'shown once');
    const okta = new ScimClient(h, token);
    assert.equal((await okta.get('/Users?count=1', { 'user-agent': 'Okta SCIM Client 1.0.0' })).statusCode, 200);
    await okta.createUser({ userName: 'provisioned@example.com', password: 'secret horse 99', name: { givenName: 'Ada' } });
    assert.equal((await okta.get('/Users/00000000000000000000000000000000')).statusCode, 404);
    assert.equal((await h.app.inject({ method: 'GET', url: '/scim/v2/Users' })).statusCode, 401, 'no token: no organization, no entry');
    const created = (await eventsAfter(h, cursor)).map((event) => event.type);
    assert.deepEqual(created, ['user.created'], 'a token is no change of the stream; the provisioned user is');

    const after = await admin.get(section);
    const rows = logOf(after);
    assert.match(rows[0]!, /^\S+ \S+ UTC GET \/scim\/v2\/Users\/0{32} 404 \d+ ms Okta lightMyRequest$/);
    assert.match(rows[1]!, /POST \/scim\/v2\/Users 201 \d+ ms Okta/);
    assert.match(rows[2]!, /GET \/scim\/v2\/Users 200 \d+ ms Okta Okta SCIM Client 1\.0\.0$/);
    assert.equal(rows.length, 3);
    assert.ok(!after.body.includes('secret horse 99') && !after.body.includes('count=1'));
    assert.match(textOf(after), /SCIM tokens Name Created Last used Expires Okta/);
  });

  it('replaces a SCIM token by a new one shown once; another token or another organization’s is unknown', async () => {
    const { info, token } = await tokensService(h.database.db).create(h.org.id, { name: 'Entra ID', scopes: ['scim'] });
    const rotated = await admin.post(`${section}/tokens/${info.id}/rotate`, {});
    assert.equal(rotated.status, 200);
    const renewed = tokenOf(rotated)!;
    assert.match(textOf(rotated), /Entra ID is replaced/);
    assert.equal((await new ScimClient(h, token).get('/Users')).statusCode, 401);
    assert.equal((await new ScimClient(h, renewed).get('/Users')).statusCode, 200);
    assert.equal((await admin.post(`${section}/tokens/${info.id}/rotate`, {})).status, 404, 'the former one is revoked');

    const apiToken = (await tokensService(h.database.db).create(h.org.id, { name: 'Not SCIM', scopes: ['read'] })).info;
    const other = await h.createOrganization('Other organization');
    const foreign = (await tokensService(h.database.db).create(other.id, { name: 'Foreign SCIM', scopes: ['scim'] })).info;
    for (const id of [apiToken.id, foreign.id, '00000000000000000000000000000000']) {
      const refused = await admin.post(`${section}/tokens/${id}/rotate`, {});
      assert.equal(refused.status, 404, id);
      assert.ok(!refused.body.includes('Foreign SCIM'));
    }
    assert.equal((await tokensService(h.database.db).find(foreign.id))?.revokedDate, undefined);
    assert.equal((await tokensService(h.database.db).find(apiToken.id))?.revokedDate, undefined);
    // The other organization's requests are not in this one's log.
    await new ScimClient(h, await h.token(other.id, { scopes: ['scim'] })).get('/Users?foreign=1');
    assert.ok(logOf(await admin.get(section)).every((row) => !row.includes('foreign')));
  });

  it('maps an attribute onto a userfield as PUT /scimattributes does, refuses a bad one with the form kept, and removes it', async () => {
    const category = await h.create('userfieldcategories', { name: 'Work', type: 'private' });
    const field = await h.create('userfields', { type: 'text', name: 'Job title', categoryId: category });
    const mapped = await admin.post(`${section}/mappings`, { attribute: 'title', userfieldId: field });
    assert.equal(mapped.status, 303);
    assert.deepEqual((await h.get('scimattributes')).json(), { title: field });
    assert.match(textOf(await admin.get(mapped.location!)), /The mapping is saved.*title Job title Remove/);

    const refused = await admin.post(`${section}/mappings`, { attribute: 'shoeSize', userfieldId: field });
    assert.equal(refused.status, 400);
    assert.match(textOf(refused), /"shoeSize" is not a mappable attribute/);
    assert.equal(valueOf(refused, 'mapping-attribute'), 'shoeSize');
    assert.match(refused.body, /id="mapping-attribute"[^>]*aria-invalid="true"/);
    assert.match(refused.body, new RegExp(`<option value="${field}"\\s+selected>`));
    const unknownField = await admin.post(`${section}/mappings`, { attribute: 'nickName', userfieldId: '00000000000000000000000000000000' });
    assert.equal(unknownField.status, 400);
    assert.deepEqual((await h.get('scimattributes')).json(), { title: field });

    const removed = await admin.post(`${section}/mappings`, { attribute: 'title', userfieldId: '' });
    assert.equal(removed.status, 303);
    assert.deepEqual((await h.get('scimattributes')).json(), {});
    assert.match(textOf(await admin.get(removed.location!)), /The mapping is removed.*No attribute is mapped\./);
  });

  it(`keeps an organization's latest ${SCIM_REQUESTS_KEPT} requests`, async () => {
    const client = await ScimClient.of(h);
    for (let sent = 0; sent < SCIM_REQUESTS_KEPT + 5; sent += 1) assert.equal((await client.get('/ServiceProviderConfig')).statusCode, 200);
    const { count } = await h.database.db
      .selectFrom('scim_requests')
      .where('org_id', '=', h.org.id)
      .select((eb) => eb.fn.countAll().as('count'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count), SCIM_REQUESTS_KEPT);
    const rows = logOf(await admin.get(section));
    assert.equal(rows.length, SCIM_REQUESTS_KEPT);
    assert.ok(rows.every((row) => row.includes('GET /scim/v2/ServiceProviderConfig 200')));
  });

  it('creates users through SCIM as before: the log is no part of the answer', async () => {
    const client = await ScimClient.of(h);
    const answer = await client.post('/Users', { schemas: [USER_SCHEMA], userName: 'unchanged@example.com' });
    assert.equal(answer.statusCode, 201);
    assert.equal(answer.headers['content-type'], 'application/scim+json; charset=utf-8');
  });
});
