import assert from 'node:assert/strict';
import { it } from 'node:test';
import { now } from '../../src/lib/time.js';
import { usersService } from '../../src/resources/users/users.service.js';
import { eventually } from '../helpers/eventually.js';
import { changedSince, createUser, unique } from '../helpers/collections.js';
import { forEachEngine } from '../helpers/harness.js';
import { holdOpen, writerBesideTheApp } from '../helpers/held-transaction.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

const WATERMARK = 'updated-date-watermark';
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** Waits until the clock's second, what timestamps are written in, is later than `timestamp`. */
const secondAfter = (timestamp: string) => eventually(() => now() > timestamp, { what: `a second after ${timestamp}`, intervalMs: 20 });

forEachEngine('updatedDate watermark', (h) => {
  const beside = writerBesideTheApp(h);

  it('is answered by every list that filters by updatedDate, and by no other', async () => {
    const userId = await createUser(h);
    const offeringId = await h.create('offerings', { title: unique('Course') });
    const registrationId = await h.create('registrations', { userId, offeringId });
    const latest = (await h.get(`registrations/${registrationId}`)).json().updatedDate;
    for (const path of ['users', 'userfields', 'userfieldcategories', 'offerings', 'offeringcategories', 'registrations', 'agreements']) {
      const response = await h.get(path, { query: { updatedDate: '2001/..' } });
      assert.equal(response.statusCode, 200, path);
      const watermark = String(response.headers[WATERMARK]);
      assert.match(watermark, TIMESTAMP, path);
      assert.ok(watermark <= now(), `${path}: ${watermark} is no later than now`);
      // (On PostgreSQL another test file's open transaction may hold it back.)
      if (h.engine === 'sqlite') assert.ok(watermark >= latest, `${path}: ${watermark} is as recent as the last change, ${latest}`);
    }
    for (const path of ['events', 'webhooks', `users/${userId}/agreements`]) assert.equal((await h.get(path)).headers[WATERMARK], undefined, path);
  });

  it('a change whose transaction is open across the list call is read by the next run, which resumes from the watermark', async (t) => {
    const email = `${unique('held').replace(' ', '')}@example.com`;
    const userId = await h.create('users', { email, firstName: 'Before' });
    const held = holdOpen(beside.db, (trx) => usersService(trx, DEFAULT_PASSWORD_POLICY).update(beside.caller, userId, { firstName: 'Held' }));
    t.after(() => held.commit());
    await held.written;
    // The run reads the list a second after the change took its timestamp, as a long import or
    // group write, or a change waiting for a lock, would have it.
    await secondAfter(now());
    const listedAt = now();
    const run = await changedSince(h, 'users');
    assert.equal(run.items.find((user) => user.id === userId)?.firstName, 'Before', 'not committed yet: not in this run');
    await held.commit();

    const changed = (await h.get(`users/${userId}`)).json();
    assert.equal(changed.firstName, 'Held');
    assert.ok(changed.updatedDate < listedAt, `the change's updatedDate ${changed.updatedDate} is older than the run ${listedAt}`);
    assert.ok(run.watermark <= changed.updatedDate, `the watermark ${run.watermark} is no later than ${changed.updatedDate}`);
    const next = await changedSince(h, 'users', run.watermark);
    assert.equal(next.items.find((user) => user.id === userId)?.firstName, 'Held', 'the next run from the watermark reads it');
    // The former advice, resuming from when the previous run started, misses it.
    const fromStart = (await h.get('users', { query: { email, updatedDate: `${listedAt}/..` } })).json();
    assert.deepEqual(fromStart.results, []);
  });

  it('moves with the next change, committed on another connection or by the app itself, however many lists came before', async () => {
    const userId = await createUser(h);
    const watermark = async () => String((await h.get('users', { query: { limit: '1' } })).headers[WATERMARK]);
    for (const [who, update] of [
      ['another connection', () => usersService(beside.db, DEFAULT_PASSWORD_POLICY).update(beside.caller, userId, { firstName: 'Beside' })],
      ['the app', () => h.put(`users/${userId}`, { firstName: 'App' })],
    ] as const) {
      await watermark();
      await watermark();
      // A change a second later than what the lists before could read.
      await secondAfter(now());
      await update();
      const { updatedDate } = (await h.get(`users/${userId}`)).json();
      if (h.engine === 'sqlite') assert.ok((await watermark()) >= updatedDate, `${who}: the next list's watermark reaches ${updatedDate}`);
      // On PostgreSQL a transaction of another test file on the same server may hold it back a moment.
      else await eventually(async () => (await watermark()) >= updatedDate, { what: `${who}: ${updatedDate}`, timeoutMs: 10_000, intervalMs: 200 });
    }
  });

  it('catches up with the last change once nothing is being written', async () => {
    const userId = await createUser(h);
    const { updatedDate } = (await h.get(`users/${userId}`)).json();
    // On PostgreSQL a transaction of another test file on the same server may hold it back a moment.
    await eventually(async () => String((await h.get('users', { query: { limit: '1' } })).headers[WATERMARK]) >= updatedDate, {
      what: `the watermark reaching ${updatedDate}`,
      timeoutMs: 10_000,
      intervalMs: 200,
    });
  });
});
