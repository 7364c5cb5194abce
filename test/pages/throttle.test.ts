import assert from 'node:assert/strict';
import { it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { Algorithm, hash } from '@node-rs/argon2';
import { THROTTLES } from '../../src/accounts/throttle.js';
import { forEachEngine } from '../helpers/harness.js';
import { browserOf, createPerson, injected, PageBrowser, type PageReply } from '../helpers/pages.js';

const PASSWORD = 'stuffing horse 1';
const ACCOUNTS = 200;
const ADDRESSES = 20;
const ATTEMPTS = 2000;
/**
 * The attack's people share one hash of PASSWORD, made at argon2id's lowest cost: the throttle counts
 * attempts whatever a check costs, and a stored hash carries its own parameters, so each of the
 * thousand checks of a run takes microseconds instead of the production cost's tens of milliseconds.
 */
const CHEAP_HASH = hash(PASSWORD, { algorithm: Algorithm.Argon2id, memoryCost: 64, timeCost: 1, parallelism: 1 });

/** The throttle's time: still while the attack runs, so that its counts are exact; moved by the tests that wait. */
let throttleNow = Date.now();

const statusCounts = (replies: PageReply[]) =>
  replies.reduce<Record<number, number>>((counts, reply) => ({ ...counts, [reply.status]: (counts[reply.status] ?? 0) + 1 }), {});

forEachEngine(
  'The sign-in throttle against credential stuffing',
  (h) => {
    it(`throttles ${ATTEMPTS} attempts over ${ACCOUNTS} accounts from ${ADDRESSES} addresses, and locks no person out`, async (t) => {
      // The people, each with the browser (own address, device cookie) they signed in with before the attack.
      const people: { email: string; browser: PageBrowser }[] = [];
      for (let n = 0; n < ACCOUNTS; n += 1) await createPerson(h, { email: `person.${n}@example.com` });
      await h.database.db
        .updateTable('users')
        .set({ password_hash: await CHEAP_HASH })
        .where('org_id', '=', h.org.id)
        .where('email', 'like', 'person.%@example.com')
        .execute();
      for (let n = 0; n < ACCOUNTS; n += 1) {
        const email = `person.${n}@example.com`;
        const browser = browserOf(h);
        const signedIn = await browser.signIn(h.org.id, email, PASSWORD);
        assert.equal(signedIn.status, 303);
        await browser.post(`/o/${h.org.id}/sign-out`, {});
        assert.equal(browser.session(h.org.id), undefined);
        assert.ok(browser.cookies.has(`__Host-device-${h.org.id}`));
        people.push({ email, browser });
      }
      // One attacker's browser per address, each with its own form token.
      const attackers = await Promise.all(
        Array.from({ length: ADDRESSES }, async (_, n) => {
          const attacker = new PageBrowser(injected(h.app, `203.0.113.${n + 1}`));
          await attacker.get(`/o/${h.org.id}/sign-in`);
          return attacker;
        }),
      );
      const replies: PageReply[] = [];
      const started = performance.now();
      for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
        // Each account is tried from ten addresses, each address tries a hundred accounts.
        const account = attempt % ACCOUNTS;
        const address = (account + Math.floor(attempt / ACCOUNTS)) % ADDRESSES;
        replies.push(await attackers[address]!.signIn(h.org.id, people[account]!.email, `leaked password ${attempt}`));
      }
      const attackMs = performance.now() - started;
      const counts = statusCounts(replies);
      t.diagnostic(
        `${ATTEMPTS} attempts in ${(attackMs / 1000).toFixed(1)} s: ${counts[401] ?? 0} checked and refused (401), ${counts[429] ?? 0} throttled (429)`,
      );
      assert.deepEqual(Object.keys(counts).sort(), ['401', '429']);
      // Each address gets its first minute's allowance of password checks, no more; nothing signs in.
      assert.equal(counts[401], ADDRESSES * THROTTLES.address[0].max);
      assert.equal(counts[429], ATTEMPTS - ADDRESSES * THROTTLES.address[0].max);
      const throttled = replies.find((reply) => reply.status === 429)!;
      assert.match(String(throttled.headers['retry-after']), /^[1-9]\d*$/);
      assert.match(throttled.body, /Too many failed attempts\. Try again in \d+ minutes?\./);

      // Every person still signs in, from their own browser (own address, device cookie), at once.
      const back = performance.now();
      const lockedOut: string[] = [];
      for (const { email, browser } of people) {
        const answer = await browser.signIn(h.org.id, email, PASSWORD);
        if (answer.status !== 303) lockedOut.push(`${email}: ${answer.status}`);
      }
      t.diagnostic(
        `${ACCOUNTS - lockedOut.length} of ${ACCOUNTS} people signed in after the attack, in ${((performance.now() - back) / 1000).toFixed(1)} s`,
      );
      assert.deepEqual(lockedOut, []);
      // The attackers' addresses stay held back, even with a right password.
      assert.equal((await attackers[0]!.signIn(h.org.id, people[0]!.email, PASSWORD)).status, 429);
    });

    it('holds back an account many addresses failed at, except in its person’s browser, and forgets as the window slides', async (t) => {
      const email = 'targeted@example.com';
      await createPerson(h, { email, password: PASSWORD });
      const own = browserOf(h);
      assert.equal((await own.signIn(h.org.id, email, PASSWORD)).status, 303);
      await own.post(`/o/${h.org.id}/sign-out`, {});

      const replies: PageReply[] = [];
      for (let attempt = 0; attempt < 100; attempt += 1) {
        const attacker = new PageBrowser(injected(h.app, `198.51.100.${(attempt % 50) + 1}`));
        replies.push(await attacker.signIn(h.org.id, email, `guess ${attempt}`));
      }
      const counts = statusCounts(replies);
      t.diagnostic(`100 attempts at one account from 50 addresses: ${counts[401] ?? 0} checked (401), ${counts[429] ?? 0} throttled (429)`);
      assert.equal(counts[401], THROTTLES.account[0].max);

      // A browser that never signed in to the account waits, even with the right password...
      const stranger = browserOf(h);
      const held = await stranger.signIn(h.org.id, email, PASSWORD);
      assert.equal(held.status, 429);
      // ...the person's own browser does not.
      assert.equal((await own.signIn(h.org.id, email, PASSWORD)).status, 303);
      // Nothing is locked for good: after the wait the answer named, any browser signs in.
      const retryAfter = Number(held.headers['retry-after']);
      assert.ok(retryAfter > 0 && retryAfter * 1000 <= THROTTLES.account[0].windowMs * 1.1, `Retry-After: ${retryAfter}`);
      throttleNow += retryAfter * 1000;
      assert.equal((await stranger.signIn(h.org.id, email, PASSWORD)).status, 303);
    });
  },
  { signInClock: () => throttleNow },
);
