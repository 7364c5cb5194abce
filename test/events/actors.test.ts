import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { tokensService } from '../../src/auth/tokens.service.js';
import { clientsService } from '../../src/oauth/clients.service.js';
import { signedInAs } from '../helpers/console-sign-in.js';
import { runCli } from '../helpers/cli.js';
import { eventsAfter, latestEventId } from '../helpers/events.js';
import { eventually } from '../helpers/eventually.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { browserOf, createPerson } from '../helpers/pages.js';
import { ScimClient } from '../scim/scim-client.js';

/** The events `change` makes, with their actors: each must carry `actor`. */
async function actorsOf(h: Harness, change: () => Promise<unknown>): Promise<any[]> {
  const cursor = await latestEventId(h);
  await change();
  const events = await eventsAfter(h, cursor);
  assert.ok(events.length > 0, 'the change made events');
  return events;
}

function assertActors(events: readonly any[], actor: { type: string; id: string | null; name: string | null }): void {
  for (const event of events) assert.deepEqual(event.actor, actor, `${event.type} ${JSON.stringify(event.data).slice(0, 120)}`);
}

forEachEngine('The actor of each event', (h) => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'actors-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('an API token: its id and name, never its secret, in the feed and in the order of the feed', async () => {
    const { token, info } = await tokensService(h.database.db).create(h.org.id, { name: 'Nightly HR sync' });
    const events = await actorsOf(h, async () => {
      const id = await h.create('users', { email: 'by.token@example.com' }, { token });
      assert.equal((await h.put(`users/${id}`, { firstName: 'Tokened' }, { token })).statusCode, 204);
    });
    assert.deepEqual(
      events.map((event) => event.type),
      ['user.created', 'user.updated'],
    );
    assertActors(events, { type: 'token', id: info.id, name: 'Nightly HR sync' });
    assert.deepEqual(Object.keys(events[0]).sort(), ['actor', 'createdDate', 'data', 'id', 'organizationId', 'type']);
    assert.ok(!JSON.stringify(events).includes(token), 'the secret is nowhere');
  });

  it('an OAuth client: the client, by its id and name, whichever of its tokens was used', async () => {
    const made = await clientsService(h.database.db).create(h.org.id, { name: 'Reporting warehouse' });
    const issued = await h.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: made.info.id, client_secret: made.secret! }).toString(),
    });
    assert.equal(issued.statusCode, 200, issued.body);
    const accessToken: string = issued.json().access_token;
    const events = await actorsOf(h, () => h.create('offerings', { title: 'Made by a client' }, { token: accessToken }));
    assertActors(events, { type: 'oauthClient', id: made.info.id, name: 'Reporting warehouse' });
    assert.ok(!JSON.stringify(events).includes(accessToken) && !JSON.stringify(events).includes(made.secret!));
  });

  it('SCIM: the token through /scim/v2, as SCIM, with the member changes of a group too', async () => {
    const { token, info } = await tokensService(h.database.db).create(h.org.id, { name: 'Okta', scopes: ['scim'] });
    const scim = new ScimClient(h, token);
    const events = await actorsOf(h, async () => {
      const user = await scim.post('/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'scim.actor@example.com' });
      assert.equal(user.statusCode, 201, user.body);
      const group = await scim.post('/Groups', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
        displayName: 'Auditors',
        members: [{ value: user.json().id }],
      });
      assert.equal(group.statusCode, 201, group.body);
    });
    assert.deepEqual(
      events.map((event) => event.type),
      ['user.created', 'user.updated'],
    );
    assertActors(events, { type: 'scim', id: info.id, name: 'Okta' });
  });

  it('an import through POST /imports: the import job, named by who started it', async () => {
    const cursor = await latestEventId(h);
    const { token, info } = await tokensService(h.database.db).create(h.org.id, { name: 'HR upload' });
    const started = await h.request('POST', 'imports', 'email,firstName\nimported.one@example.com,One\nimported.two@example.com,Two\n', {
      headers: { 'content-type': 'text/csv' },
      token,
    });
    assert.equal(started.statusCode, 202, started.body);
    const jobId: string = started.json().id;
    await eventually(async () => (await h.get(`imports/${jobId}`)).json().state === 'succeeded', { what: 'the import to succeed' });
    const events = await eventsAfter(h, cursor);
    assert.deepEqual(
      events.map((event) => `${event.type} ${event.data.email}`),
      ['user.created imported.one@example.com', 'user.created imported.two@example.com'],
    );
    assertActors(events, { type: 'import', id: jobId, name: 'HR upload' });
    assert.notEqual(info.id, jobId);
  });

  it('an import at the command line: an import without a job; the command line itself where it writes', async () => {
    const file = join(dir, 'people.csv');
    writeFileSync(file, 'email\ncli.import@example.com\n');
    const imported = await actorsOf(h, async () => {
      const run = await runCli(h.database.url, 'import', 'users', '--org', h.org.id, file);
      assert.equal(run.code, 0, run.err);
    });
    assertActors(imported, { type: 'import', id: null, name: null });
    const seeded = await actorsOf(h, async () => {
      const run = await runCli(h.database.url, 'seed', '--org', h.org.id, '--users', '2');
      assert.equal(run.code, 0, run.err);
    });
    assertActors(seeded, { type: 'commandLine', id: null, name: null });
  });

  it('a person in the console, and a person on their own pages: their user id and email', async () => {
    const { browser: admin, userId: adminId } = await signedInAs(h, 'organizationAdministrator');
    const adminEmail = (await h.get(`users/${adminId}`)).json().email;
    const inConsole = await actorsOf(h, async () => {
      const saved = await admin.post(`/o/${h.org.id}/console/agreements/custom`, { title: 'Audited rules', text: 'Be kind.' });
      assert.equal(saved.status, 303, saved.body.slice(0, 300));
    });
    assertActors(inConsole, { type: 'person', id: adminId, name: adminEmail });

    const email = 'signs.in@example.com';
    const personId = await createPerson(h, { email, password: 'console horse 1' });
    await h.put(`users/${personId}/agreements/standard`, { agreed: true });
    await h.put(`users/${personId}/agreements/custom`, { agreed: true });
    const signedIn = await actorsOf(h, async () => {
      const reply = await browserOf(h).signIn(h.org.id, email, 'console horse 1');
      assert.equal(reply.status, 303, reply.body.slice(0, 300));
    });
    assert.deepEqual(
      signedIn.map((event) => `${event.type} ${'lastLoginDate' in event.previousAttributes}`),
      ['user.updated true'],
    );
    assertActors(signedIn, { type: 'person', id: personId, name: email });
  });

  it("a person's userfield values: the token that set them", async () => {
    const { token, info } = await tokensService(h.database.db).create(h.org.id, { name: 'Values writer' });
    const field = await h.create('userfields', { type: 'text', name: 'Audited note', categoryName: 'Audit' });
    const user = await h.create('users', { email: 'values.actor@example.com' });
    const events = await actorsOf(h, async () => {
      assert.equal((await h.put(`users/${user}/userfieldvalues`, { [field]: 'noted' }, { token })).statusCode, 204);
    });
    assert.deepEqual(
      events.map((event) => event.type),
      ['userfieldvalues.updated'],
    );
    assertActors(events, { type: 'token', id: info.id, name: 'Values writer' });
  });
});
