import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import type { ApiInstance } from '../../src/http/api-instance.js';
import type { TestDatabase } from '../helpers/database.js';
import { forEachEngine, Harness } from '../helpers/harness.js';
import { browserOf, createPerson, freshAddress, injected, type PageBrowser } from '../helpers/pages.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';
import { sessionsService } from '../../src/accounts/sessions.service.js';
import { usersRepository } from '../../src/resources/users/users.repository.js';

const PASSWORD = 'session horse 1';

let people = 0;
/** A new person of the harness's organization, signed in in a browser of their own. */
async function signedIn(h: Harness): Promise<{ id: string; email: string; browser: PageBrowser }> {
  people += 1;
  const email = `session.${people}@example.com`;
  const id = await createPerson(h, { email, password: PASSWORD, firstName: 'Ada' });
  const browser = browserOf(h);
  assert.equal((await browser.signIn(h.org.id, email, PASSWORD)).status, 303);
  return { id, email, browser };
}

/** Whether the browser's session still opens the account page (else it is sent to sign in). */
async function isSignedIn(h: Harness, browser: PageBrowser): Promise<boolean> {
  const page = await browser.get(`/o/${h.org.id}/account`);
  if (page.status === 200) return true;
  assert.equal(page.status, 303);
  assert.match(page.location!, new RegExp(`^/o/${h.org.id}/sign-in\\?next=`));
  return false;
}

forEachEngine('Sessions end when they must', (h) => {
  it('ends at a deactivation, and the person cannot sign in again until reactivated', async () => {
    const { id, email, browser } = await signedIn(h);
    const tab = browser.clone();
    assert.equal((await h.put(`users/${id}`, { active: false })).statusCode, 204);
    assert.equal(await isSignedIn(h, browser), false);
    assert.equal(await isSignedIn(h, tab), false);
    assert.equal((await browser.signIn(h.org.id, email, PASSWORD)).status, 401);
    assert.equal((await h.put(`users/${id}`, { active: true })).statusCode, 204);
    // Reactivated, the old session stays ended; a new sign-in works.
    assert.equal(await isSignedIn(h, tab), false);
    assert.equal((await browser.signIn(h.org.id, email, PASSWORD)).status, 303);
    assert.equal(await isSignedIn(h, browser), true);
  });

  it('ends at a deletion', async () => {
    const { id, browser } = await signedIn(h);
    assert.equal((await h.delete(`users/${id}`)).statusCode, 204);
    assert.equal(await isSignedIn(h, browser), false);
  });

  it('ends everywhere when the password changes through the API', async () => {
    const { id, email, browser } = await signedIn(h);
    const elsewhere = browserOf(h);
    assert.equal((await elsewhere.signIn(h.org.id, email, PASSWORD)).status, 303);
    assert.equal((await h.put(`users/${id}`, { password: 'a new horse 22' })).statusCode, 204);
    assert.equal(await isSignedIn(h, browser), false);
    assert.equal(await isSignedIn(h, elsewhere), false);
    assert.equal((await browser.signIn(h.org.id, email, PASSWORD)).status, 401);
    assert.equal((await browser.signIn(h.org.id, email, 'a new horse 22')).status, 303);
  });

  it('ends in every browser at a sign-out everywhere, and in this one only at a sign-out', async () => {
    const { email, browser } = await signedIn(h);
    const phone = browserOf(h);
    assert.equal((await phone.signIn(h.org.id, email, PASSWORD)).status, 303);
    const laptop = browserOf(h);
    assert.equal((await laptop.signIn(h.org.id, email, PASSWORD)).status, 303);

    const signedOut = await phone.post(`/o/${h.org.id}/sign-out`, {});
    assert.equal(signedOut.status, 303);
    assert.equal(signedOut.location, `/o/${h.org.id}/sign-in?done=signed-out`);
    assert.equal(phone.session(h.org.id), undefined, 'the cookie is cleared');
    assert.equal(await isSignedIn(h, browser), true);

    const copy = laptop.clone(injected(h.app, freshAddress()));
    await browser.get(`/o/${h.org.id}/account`);
    const everywhere = await browser.post(`/o/${h.org.id}/sign-out-everywhere`, {});
    assert.equal(everywhere.status, 303);
    assert.equal(await isSignedIn(h, browser), false);
    assert.equal(await isSignedIn(h, laptop), false);
    // A copy of the cookie taken before counts no more than the cookie.
    assert.equal(await isSignedIn(h, copy), false);
  });

  it('counts a session started in the same millisecond as the cutoff, and none started before it', async () => {
    const { id } = await signedIn(h);
    const cutoff = Date.now();
    await usersRepository(h.database.db).update(h.org.id, id, { sessions_valid_after: new Date(cutoff).toISOString() });
    const lifetimes = { idleMs: 60_000, maxMs: 3_600_000 };
    const sameMillisecond = await sessionsService(h.database.db, lifetimes, () => cutoff).start(h.org.id, id, {});
    const before = await sessionsService(h.database.db, lifetimes, () => cutoff - 1).start(h.org.id, id, {});
    const sessions = sessionsService(h.database.db, lifetimes, () => cutoff + 1);
    assert.ok(await sessions.resume(h.org.id, sameMillisecond.secret), 'the browser that just changed the password stays signed in');
    assert.ok(await sessions.resume(h.org.id, before.secret), 'a session is never started before the cutoff');
  });
});

/** The app's session lifetimes from the settings, as `training-api serve` reads them. */
const lifetimes = loadConfig({ SESSION_IDLE_TIMEOUT: '20m', SESSION_MAX_AGE: '1h' }).people;
const MINUTE = 60_000;
/** The sign-in's time, which these tests move. */
let now = Date.now();

forEachEngine(
  'Sessions within SESSION_IDLE_TIMEOUT and SESSION_MAX_AGE',
  (h) => {
    it('ends after SESSION_IDLE_TIMEOUT unused, and not before', async () => {
      const { browser } = await signedIn(h);
      now += 19 * MINUTE;
      assert.equal(await isSignedIn(h, browser), true);
      // Used 19 minutes ago: another 19 minutes is within the timeout again.
      now += 19 * MINUTE;
      assert.equal(await isSignedIn(h, browser), true);
      now += 20 * MINUTE + 1000;
      assert.equal(await isSignedIn(h, browser), false);
      // Ended for good: it does not come back.
      now -= 30 * MINUTE;
      assert.equal(await isSignedIn(h, browser), false);
      now += 30 * MINUTE;
    });

    it('ends at SESSION_MAX_AGE however much it is used, and its cookie lives as long', async () => {
      const { email } = await signedIn(h);
      const browser = browserOf(h);
      const answer = await browser.signIn(h.org.id, email, PASSWORD);
      const cookie = [answer.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith('__Host-session-'));
      assert.match(String(cookie), /Max-Age=3600;/);
      for (let used = 0; used < 5; used += 1) {
        now += 11 * MINUTE;
        assert.equal(await isSignedIn(h, browser), true, `after ${(used + 1) * 11} minutes`);
      }
      now += 6 * MINUTE;
      assert.equal(await isSignedIn(h, browser), false);
    });
  },
  { people: lifetimes, signInClock: () => now },
);

describe('Two instances on one PostgreSQL database', { skip: process.env.TEST_POSTGRES_URL ? false : 'needs TEST_POSTGRES_URL' }, () => {
  // The harness's app is the first instance; the second has its own pool of connections to the same database.
  const h = new Harness('postgres');
  let database: TestDatabase;
  let secondHandle: DatabaseHandle;
  let second: ApiInstance;
  /** A browser that reaches either instance with the same cookies. */
  const on = (browser: PageBrowser, app: ApiInstance) => browser.clone(injected(app, freshAddress()));

  before(async () => {
    await h.start();
    database = h.database;
    secondHandle = openDatabase(database.url);
    second = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: secondHandle.db, logger: false });
    await second.ready();
  });
  after(async () => {
    await second?.close();
    await secondHandle?.close();
    await h.stop();
  });

  it('keeps a person signed in on one instance signed in on the other, with the same form token', async () => {
    const { browser } = await signedIn(h);
    const there = on(browser, second);
    const account = await there.get(`/o/${h.org.id}/account`);
    assert.equal(account.status, 200);
    // A form of one instance's page is taken by the other.
    const saved = await there.post(`/o/${h.org.id}/account/profile`, { firstName: 'Grace', lastName: 'Hopper', locale: '' });
    assert.equal(saved.status, 200);
    assert.match((await browser.get(`/o/${h.org.id}/account`)).body, /value="Grace"/);
  });

  it('ends the session on both at a sign-out on one', async () => {
    const { browser } = await signedIn(h);
    const there = on(browser, second);
    await there.get(`/o/${h.org.id}/account`);
    assert.equal((await there.post(`/o/${h.org.id}/sign-out`, {})).status, 303);
    assert.equal(await isSignedIn(h, browser), false);
  });

  it('ends the session on both at a sign-out everywhere or a deactivation on one', async () => {
    const first = await signedIn(h);
    const there = on(first.browser, second);
    await there.get(`/o/${h.org.id}/account`);
    assert.equal((await there.post(`/o/${h.org.id}/sign-out-everywhere`, {})).status, 303);
    assert.equal(await isSignedIn(h, first.browser), false);

    const other = await signedIn(h);
    const otherThere = on(other.browser, second);
    assert.equal((await otherThere.get(`/o/${h.org.id}/account`)).status, 200);
    const deactivated = await second.inject({
      method: 'PUT',
      url: `/api/v5/users/${other.id}`,
      headers: { authorization: `Bearer ${h.org.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ active: false }),
    });
    assert.equal(deactivated.statusCode, 204);
    assert.equal(await isSignedIn(h, other.browser), false);
    assert.equal((await otherThere.get(`/o/${h.org.id}/account`)).status, 303);
  });
});
