import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import type { Caller } from '../../src/auth/caller.js';
import { deactivateUsers, ImportInterrupted, plannedWrites, writeBatch } from '../../src/imports/apply.js';
import type { ImportRow } from '../../src/imports/check.js';
import { openDatabase } from '../../src/db/database.js';
import { runCli } from '../helpers/cli.js';
import { eventsAfter } from '../helpers/events.js';
import { forEachEngine } from '../helpers/harness.js';
import { backdated, TEST_ACTOR } from '../helpers/actors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

/** An updatedDate no write of the test can give: a write that moved it would show. */
const LONG_AGO = backdated('2001-01-01T00:00:00Z');

forEachEngine('an import batch updating some of its users', (h) => {
  const dir = mkdtempSync(join(tmpdir(), 'import-updates-'));
  let cursor: string | undefined;
  let number: string;
  let team: string;
  const header = 'email,firstName,lastName,tags,Employee number,Team';

  async function newEvents(): Promise<any[]> {
    const events = await eventsAfter(h, cursor);
    cursor = events.at(-1)?.id ?? cursor;
    return events;
  }
  async function importFile(name: string, rows: string[]): Promise<string> {
    const path = join(dir, name);
    writeFileSync(path, [header, ...rows].join('\n'));
    const run = await runCli(h.database.url, 'import', 'users', '--org', h.org.id, path);
    assert.equal(run.code, 0, run.err);
    return run.out;
  }
  const user = async (id: string) => (await h.get(`users/${id}`)).json();
  const idOf = async (email: string) => (await h.get('users', { query: { email } })).json().results[0].id as string;
  /** Sets every user's updatedDate to LONG_AGO, behind the API's back. */
  const backdate = () => h.database.db.updateTable('users').set({ updated_date: LONG_AGO }).where('org_id', '=', h.org.id).execute();

  before(async () => {
    number = await h.create('userfields', { type: 'number', name: 'Employee number', categoryName: 'HR' });
    team = await h.create('userfields', { type: 'dropdown', name: 'Team', categoryName: 'HR', options: [{ name: 'Red' }, { name: 'Blue' }] });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('records exactly the events of the users changed, and leaves the others untouched', async () => {
    const people = Array.from({ length: 12 }, (_, n) => `p${n}@batch.example,P${n},Last${n},staff,${n},${n % 2 ? 'Red' : 'Blue'}`);
    assert.match(await importFile('first.csv', people), /: 12 created, 0 updated, 0 unchanged, 24 userfield values set$/);
    await backdate();
    await newEvents();
    const changed = [...people];
    changed[1] = 'p1@batch.example,P1,Renamed,staff,1,Red'; // a property
    changed[4] = 'p4@batch.example,P4,Last4,staff,40,Blue'; // a value
    changed[7] = 'p7@batch.example,Pete,Last7,"staff, lead",70,Blue'; // both
    changed[9] = 'p9@batch.example,P9,Last9,staff,9,Red'; // as stored
    assert.match(await importFile('changed.csv', changed), /: 0 created, 3 updated, 9 unchanged, 3 userfield values set$/);

    const [p1, p4, p7] = [await idOf('p1@batch.example'), await idOf('p4@batch.example'), await idOf('p7@batch.example')];
    const events = await newEvents();
    const about = (id: string) => events.filter((event) => (event.data.userId ?? event.data.id) === id);
    assert.equal(events.length, 4, JSON.stringify(events));

    const [renamed] = about(p1);
    assert.equal(renamed.type, 'user.updated');
    assert.deepEqual(renamed.data, await user(p1));
    assert.deepEqual(renamed.previousAttributes, { lastName: 'Last1', updatedDate: LONG_AGO });

    const [renumbered] = about(p4);
    assert.equal(renumbered.type, 'userfieldvalues.updated');
    assert.deepEqual(renumbered.data, { userId: p4, values: { [number]: 40, [team]: 'Blue' }, updatedDate: (await user(p4)).updatedDate });
    assert.deepEqual(renumbered.previousAttributes, { values: { [number]: 4, [team]: 'Blue' }, updatedDate: LONG_AGO });

    const [moved, movedValues, ...more] = about(p7);
    assert.deepEqual(more, []);
    assert.equal(moved.type, 'user.updated');
    assert.deepEqual(moved.previousAttributes, { firstName: 'P7', tags: ['staff'], updatedDate: LONG_AGO });
    assert.equal(movedValues.type, 'userfieldvalues.updated');
    assert.deepEqual(movedValues.data, { userId: p7, values: { [number]: 70, [team]: 'Blue' }, updatedDate: (await user(p7)).updatedDate });
    // Both events of the user's row name its updatedDate before the batch.
    assert.deepEqual(movedValues.previousAttributes, { values: { [number]: 7, [team]: 'Red' }, updatedDate: LONG_AGO });
    assert.deepEqual(await user(p7), { ...moved.data, updatedDate: movedValues.data.updatedDate });

    for (const id of [p1, p4, p7]) assert.notEqual((await user(id)).updatedDate, LONG_AGO);
    const untouched = (await h.get('users', { query: { limit: '100' } })).json().results.filter((each: any) => ![p1, p4, p7].includes(each.id));
    assert.equal(untouched.length, 9);
    for (const each of untouched) assert.equal(each.updatedDate, LONG_AGO, each.email);
  });

  it('refuses a batch whose row the services refuse now, naming the row, and writes none of it', async () => {
    const caller: Caller = { orgId: h.org.id, tokenId: 'test', scopes: ['read', 'write'], actor: TEST_ACTOR };
    const [kim, lou, max] = [
      await h.create('users', { email: 'kim@batch.example' }),
      await h.create('users', { email: 'lou@batch.example' }),
      await h.create('users', { email: 'max@batch.example' }),
    ];
    await backdate();
    await newEvents();
    const rows: ImportRow[] = [
      { number: 2, user: { email: 'kim@batch.example', lastName: 'Changed' }, values: { [number]: 1 }, existingId: kim },
      { number: 3, user: { email: 'lou@batch.example', firstName: 'Lou' }, values: {}, existingId: lou },
      { number: 4, user: { email: 'max@batch.example', lastName: 'Changed' }, values: {}, existingId: max },
    ];
    const stale = await plannedWrites(h.database.db, h.org.id, rows, { dryRun: false, parallelism: 2 });
    assert.equal((await h.delete(`users/${lou}`)).statusCode, 204);
    await assert.rejects(writeBatch(h.database.db, caller, stale, 0, new Set(), DEFAULT_PASSWORD_POLICY), (error: Error) => {
      assert.ok(error instanceof ImportInterrupted);
      assert.match(error.message, /^row 3: /);
      return true;
    });

    // Max takes the email Kim's row gives her.
    const renamed = await plannedWrites(h.database.db, h.org.id, [{ ...rows[0]!, user: { email: 'new@batch.example' } }, rows[2]!], {
      dryRun: false,
      parallelism: 2,
    });
    assert.equal((await h.put(`users/${max}`, { email: 'new@batch.example' })).statusCode, 204);
    await assert.rejects(writeBatch(h.database.db, caller, renamed, 0, new Set(), DEFAULT_PASSWORD_POLICY), (error: Error) => {
      assert.ok(error instanceof ImportInterrupted);
      assert.match(error.message, /^row 2: email: is already in use/);
      return true;
    });

    // Both refusals undid their batch: Kim and Max are as the API left them.
    assert.deepEqual(
      (await newEvents()).map((event) => event.type),
      ['user.deleted', 'user.updated'],
    );
    assert.equal((await user(kim)).updatedDate, LONG_AGO);
    assert.deepEqual((await h.get(`users/${kim}/userfieldvalues`)).json(), {});
    assert.equal((await user(max)).lastName, undefined);
  });

  it('writes a batch of changed users in a few statements, not several a user', async () => {
    const people = Array.from({ length: 60 }, (_, n) => `s${n}@batch.example,S${n},Last${n},staff,${n},Red`);
    await importFile('sixty.csv', people);
    const caller: Caller = { orgId: h.org.id, tokenId: 'test', scopes: ['read', 'write'], actor: TEST_ACTOR };
    const rows: ImportRow[] = [];
    for (const [n] of people.entries()) {
      const email = `s${n}@batch.example`;
      rows.push({ number: n + 2, user: { email, lastName: `Moved${n}` }, values: { [number]: 100 + n }, existingId: await idOf(email) });
    }
    await newEvents();
    const statements: string[] = [];
    const counted = openDatabase(h.database.url, { onStatement: (statement) => statements.push(statement) });
    try {
      await writeBatch(
        counted.db,
        caller,
        await plannedWrites(counted.db, h.org.id, rows, { dryRun: false, parallelism: 2 }),
        0,
        new Set(),
        DEFAULT_PASSWORD_POLICY,
      );
    } finally {
      await counted.close();
    }
    assert.ok(statements.length < 40, `${statements.length} statements for 60 changed users:\n${statements.join('\n')}`);
    const events = await newEvents();
    assert.equal(events.filter((event) => event.type === 'user.updated').length, 60);
    assert.equal(events.filter((event) => event.type === 'userfieldvalues.updated').length, 60);
    assert.equal((await user(rows[59]!.existingId!)).lastName, 'Moved59');
  });

  it('writes a batch of new users without savepoints nor reading them back, on PostgreSQL a statement a table', async () => {
    const caller: Caller = { orgId: h.org.id, tokenId: 'test', scopes: ['read', 'write'], actor: TEST_ACTOR };
    const rows: ImportRow[] = Array.from({ length: 600 }, (_, n) => ({
      number: n + 2,
      user: { email: `n${n}@batch.example`, lastName: `New${n}` },
      values: { [number]: n, [team]: n % 2 ? 'Red' : 'Blue' },
    }));
    await newEvents();
    const statements: string[] = [];
    const counted = openDatabase(h.database.url, { onStatement: (statement) => statements.push(statement) });
    try {
      const writes = await plannedWrites(counted.db, h.org.id, rows, { dryRun: false, parallelism: 2 });
      statements.length = 0;
      await writeBatch(counted.db, caller, writes, 0, new Set(), DEFAULT_PASSWORD_POLICY);
    } finally {
      await counted.close();
    }
    const listed = statements.join('\n');
    assert.doesNotMatch(listed, /savepoint|for update|from "userfield_values"/i, listed);
    // begin, the users, the fields read, their values, the import's record of the users, the events with the webhooks read, commit.
    if (h.engine === 'postgres') assert.ok(statements.length <= 7, `${statements.length} statements for 600 new users:\n${listed}`);
    const events = await newEvents();
    assert.equal(events.filter((event) => event.type === 'user.created').length, 600);
    const valueEvents = events.filter((event) => event.type === 'userfieldvalues.updated');
    assert.equal(valueEvents.length, 600);
    const last = await idOf('n599@batch.example');
    const lastValues = valueEvents.find((event) => event.data.userId === last);
    assert.deepEqual(lastValues.data, { userId: last, values: { [number]: 599, [team]: 'Red' }, updatedDate: (await user(last)).updatedDate });
    assert.deepEqual(lastValues.previousAttributes, { values: {}, updatedDate: null });
    assert.deepEqual((await h.get(`users/${last}/userfieldvalues`)).json(), { [number]: 599, [team]: 'Red' });
    assert.equal((await user(last)).lastName, 'New599');
  });

  it('finds a value stored in other JSON spelling equal to the same value in the file', async () => {
    const rows = ['t1@batch.example,T1,Last,staff,5,Red', 't2@batch.example,T2,Last,staff,6,Blue'];
    await importFile('spelled.csv', rows);
    const t1 = await idOf('t1@batch.example');
    await h.database.db.updateTable('userfield_values').set({ value: '5.0' }).where('user_id', '=', t1).where('userfield_id', '=', number).execute();
    await backdate();
    await newEvents();
    assert.match(await importFile('spelled-again.csv', rows), /: 0 created, 0 updated, 2 unchanged, 0 userfield values set$/);
    assert.deepEqual(await newEvents(), []);
    assert.equal((await user(t1)).updatedDate, LONG_AGO);
  });

  it('deactivates missing users together, each with its event, and passes over one deleted meanwhile', async () => {
    const caller: Caller = { orgId: h.org.id, tokenId: 'test', scopes: ['read', 'write'], actor: TEST_ACTOR };
    await importFile('leaving.csv', [
      'd1@batch.example,D1,Last,staff,1,Red',
      'd2@batch.example,D2,Last,staff,2,Red',
      'd3@batch.example,D3,Last,staff,3,Red',
    ]);
    const [d1, d2, d3] = [await idOf('d1@batch.example'), await idOf('d2@batch.example'), await idOf('d3@batch.example')];
    assert.equal((await h.delete(`users/${d2}`)).statusCode, 204);
    await newEvents();
    const statements: string[] = [];
    const counted = openDatabase(h.database.url, { onStatement: (statement) => statements.push(statement) });
    try {
      await deactivateUsers(counted.db, caller, [d1, d2, d3], DEFAULT_PASSWORD_POLICY);
    } finally {
      await counted.close();
    }
    assert.ok(statements.length < 20, `${statements.length} statements:\n${statements.join('\n')}`);
    assert.equal((await user(d1)).active, false);
    assert.equal((await user(d3)).active, false);
    const events = await newEvents();
    assert.deepEqual(
      events.map((event) => [event.type, event.data.id, event.data.active]),
      [
        ['user.updated', d1, false],
        ['user.updated', d3, false],
      ],
    );
  });

  it("queues a batch's events for the organization's webhooks subscribed to their types, and for no other", async () => {
    const webhook = await h.create('webhooks', { url: 'https://hooks.example/import', events: ['user.created'] });
    const rows = Array.from({ length: 5 }, (_, n) => `w${n}@batch.example,W${n},Hooked${n},staff,${n},Red`);
    assert.match(await importFile('hooked.csv', rows), /: 5 created, 0 updated, 0 unchanged, 10 userfield values set$/);
    const deliveries = await h.database.db
      .selectFrom('webhook_deliveries')
      .select(['webhook_id', 'event_id'])
      .where('org_id', '=', h.org.id)
      .execute();
    // The batch's five user.created events, none of its userfieldvalues.updated ones.
    assert.equal(deliveries.length, 5);
    assert.ok(deliveries.every((delivery) => delivery.webhook_id === webhook));
  });
});
