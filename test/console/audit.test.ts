import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { tokensService } from '../../src/auth/tokens.service.js';
import { signedInAs, textOf } from '../helpers/console-sign-in.js';
import { forEachEngine } from '../helpers/harness.js';
import { browserOf, type PageBrowser, type PageReply } from '../helpers/pages.js';

/** The ids of the events a page of the trail lists, in its order (each row's changes name its event). */
function listedEvents(page: PageReply): string[] {
  return [...page.body.matchAll(/<span class="visually-hidden"> of event ([0-9a-f]{32})<\/span>/g)].map((match) => match[1]!);
}

/** The address of the page's "Older changes" link, if it has one. */
function olderLink(page: PageReply): string | undefined {
  return /<a href="([^"]+)">Older changes<\/a>/.exec(page.body)?.[1]?.replaceAll('&amp;', '&');
}

forEachEngine('Console: audit trail', (h) => {
  let admin: PageBrowser;
  let trail: string;
  let tokenId: string;
  let userId: string;
  const password = 'audited secret 42';

  before(async () => {
    ({ browser: admin } = await signedInAs(h, 'organizationAdministrator'));
    trail = `/o/${h.org.id}/console/audit`;
    const { token, info } = await tokensService(h.database.db).create(h.org.id, { name: 'Audited token' });
    tokenId = info.id;
    userId = await h.create('users', { email: 'audited@example.com', firstName: 'Before', password }, { token });
    assert.equal((await h.put(`users/${userId}`, { firstName: 'After', password: `${password} changed` }, { token })).statusCode, 204);
    await h.create('offerings', { title: 'Audited offering' });
  });

  it('is for organization administrators: a course administrator and a learner get 403', async () => {
    for (const kind of ['courseAdministrator', 'learner'] as const) {
      const { browser } = await signedInAs(h, kind);
      const refused = await browser.get(trail);
      assert.equal(refused.status, 403, kind);
      assert.doesNotMatch(refused.body, /audited@example\.com/);
    }
    assert.equal((await browserOf(h).get(trail)).status, 303, 'to sign in first');
  });

  it("lists the organization's changes newest first, with who made them and what changed; no password or hash", async () => {
    const page = await admin.get(trail);
    assert.equal(page.status, 200);
    const text = textOf(page);
    assert.match(text, /Audit trail/);
    const at = '\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC';
    assert.match(text, new RegExp(`user\\.updated ${userId} ${at} Made by API token Audited token ${tokenId}`));
    assert.match(text, new RegExp(`offering\\.created [0-9a-f]{32} ${at} Made by API token`));
    // The rows, after the filters' lists of kinds and types.
    const rows = textOf(await admin.get(`${trail}?resource=${userId}`)).split(' Search ')[1]!;
    assert.ok(rows.indexOf('user.updated') < rows.indexOf('user.created'), 'newest first');
    // The update: the first name before and after, and the password named by nothing but the updatedDate it moved.
    assert.match(text, /firstName Before → After/);
    assert.doesNotMatch(page.body, /audited secret|argon2|passwordHash|password_hash/i);
  });

  it('filters by kind of actor, actor, event type, resource and days; each filter narrows', async () => {
    const count = async (query: Record<string, string>) => {
      const page = await admin.get(`${trail}?${new URLSearchParams(query).toString()}`);
      assert.equal(page.status, 200, textOf(page).slice(0, 300));
      return { page, events: listedEvents(page) };
    };
    const all = (await count({})).events.length;
    const byToken = await count({ actorType: 'token', actor: 'Audited token' });
    assert.equal(byToken.events.length, 2);
    assert.equal((await count({ actor: tokenId })).events.length, 2, 'by the token id too');
    // The people signed in (their lastLoginDate), and none of them is the token.
    assert.ok((await count({ actorType: 'person' })).events.length > 0);
    assert.equal((await count({ actorType: 'person', actor: tokenId })).events.length, 0);
    assert.equal((await count({ type: 'user.updated', actor: tokenId })).events.length, 1);
    assert.equal((await count({ resource: userId })).events.length, 2);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal((await count({ from: today, to: today })).events.length, all);
    assert.equal((await count({ to: '2001-01-01' })).events.length, 0);
    assert.equal((await count({ from: '2999-01-01' })).events.length, 0);
    // The form shows the filters applied.
    assert.match(byToken.page.body, /<option value="token"\s+selected>/);
    assert.match(byToken.page.body, /id="audit-actor"\s+name="actor"\s+value="Audited token"/);
  });

  it('refuses filters that cannot be, with a 400 and the problem beside each field', async () => {
    const page = await admin.get(`${trail}?actorType=robot&type=user.exploded&from=2024-02-30&to=yesterday&actor=${'x'.repeat(400)}`);
    assert.equal(page.status, 400);
    const text = textOf(page);
    assert.match(text, /Some filters cannot be used/);
    for (const id of ['audit-actor-type', 'audit-type', 'audit-from', 'audit-to', 'audit-actor'])
      assert.match(page.body, new RegExp(`id="${id}-error"`), id);
    assert.deepEqual(listedEvents(page), []);
    const backwards = await admin.get(`${trail}?from=2024-03-02&to=2024-03-01`);
    assert.equal(backwards.status, 400);
    assert.match(textOf(backwards), /must not be before the first day/);
    // An unknown cursor is no error: the list starts over.
    assert.equal((await admin.get(`${trail}?before=not-an-id`)).status, 200);
  });

  it('pages by keyset, 50 a page, each event once, the filters kept', async () => {
    for (let n = 0; n < 60; n++) await h.create('offerings', { title: `Paged offering ${n}` });
    const seen: string[] = [];
    let address: string | undefined = `${trail}?type=offering.created`;
    let pages = 0;
    while (address) {
      const page = await admin.get(address);
      assert.equal(page.status, 200);
      const events = listedEvents(page);
      assert.ok(events.length <= 50);
      seen.push(...events);
      address = olderLink(page);
      if (address) assert.match(address, /type=offering\.created/);
      pages += 1;
    }
    assert.equal(pages, 2);
    assert.equal(seen.length, 61);
    assert.equal(new Set(seen).size, seen.length);
    assert.deepEqual(seen, [...seen].sort().reverse(), 'newest first across pages');
  });

  it("never shows another organization's events, whatever the filters name", async () => {
    const other = await h.createOrganization('Other audited company');
    const otherUser = await h.create('users', { email: 'other.org@example.com' }, { token: other.token });
    const page = await admin.get(`${trail}?resource=${otherUser}`);
    assert.equal(page.status, 200);
    assert.deepEqual(listedEvents(page), []);
    assert.doesNotMatch((await admin.get(trail)).body, /other\.org@example\.com/);
    const { browser: otherAdmin } = await signedInAs(h, 'organizationAdministrator', other.id, other.token);
    const theirs = await otherAdmin.get(`/o/${other.id}/console/audit`);
    assert.equal(theirs.status, 200);
    assert.match(textOf(theirs), /other\.org@example\.com/);
    assert.doesNotMatch(theirs.body, /audited@example\.com|Audited offering/);
    // An administrator of one organization opens no other's trail.
    assert.notEqual((await otherAdmin.get(trail)).status, 200);
  });
});
