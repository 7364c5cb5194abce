import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { eventsAfter } from '../helpers/events.js';
import { forEachEngine } from '../helpers/harness.js';

/** The nightly sync: `import users --deactivate-missing` with its threshold, dry run and `--only-imported`. */
forEachEngine('nightly HR sync', (h) => {
  const dir = mkdtempSync(join(tmpdir(), 'nightly-sync-'));
  let cursor: string | undefined;
  after(() => rmSync(dir, { recursive: true, force: true }));

  const staff = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `person${from + i}@example.com`);
  function file(name: string, emails: readonly string[]): string {
    const path = join(dir, name);
    writeFileSync(path, ['Email,First Name', ...emails.map((email) => `${email},${email.split('@')[0]}`)].join('\n'));
    return path;
  }
  const sync = (path: string, ...options: string[]) => runCli(h.database.url, 'import', 'users', '--org', h.org.id, ...options, path);
  const active = async (email: string) => {
    const page = (await h.get('users', { query: { email } })).json();
    return page.results[0]?.active as boolean | undefined;
  };
  async function newEvents(): Promise<any[]> {
    const events = await eventsAfter(h, cursor);
    cursor = events.at(-1)?.id ?? cursor;
    return events;
  }

  /** 30 people came from the HR file; one more was created through the API. */
  let apiUser: string;
  before(async () => {
    assert.equal((await sync(file('all.csv', staff(30)))).code, 0);
    apiUser = await h.create('users', { email: 'contractor@example.com', firstName: 'Con' });
    await newEvents();
  });

  it('refuses the whole file when more users would be deactivated than --max-changes allows (10% unless told)', async () => {
    // A truncated export: 20 of the 30 people.
    const run = await sync(file('truncated.csv', staff(20)), '--deactivate-missing');
    assert.equal(run.code, 1);
    assert.match(run.err, /would update 0 and deactivate 11 of the organization's 31 users, more than the default --max-changes 10%,5 allows/);
    assert.equal(await active('person25@example.com'), true);
    assert.deepEqual(await newEvents(), [], 'nothing written');
    const counted = await sync(file('truncated.csv', staff(20)), '--deactivate-missing', '--max-changes', '10');
    assert.equal(counted.code, 1);
    assert.match(counted.err, /more than --max-changes 10 allows/);
  });

  it('lists who would be deactivated in a dry run, and writes nothing', async () => {
    const run = await sync(file('two-left.csv', staff(28)), '--deactivate-missing', '--dry-run');
    assert.equal(run.code, 0, run.err);
    const lines = run.out.split('\n');
    assert.equal(
      lines[0],
      'two-left.csv is valid: 28 users would be imported (0 created, 0 updated, 28 unchanged, 0 userfield values); 3 missing from the file would be deactivated; nothing was written',
    );
    assert.deepEqual(lines.slice(1).sort(), [
      '  would deactivate contractor@example.com',
      '  would deactivate person28@example.com',
      '  would deactivate person29@example.com',
    ]);
    assert.equal(await active('person29@example.com'), true);
    assert.deepEqual(await newEvents(), []);
  });

  it('with --only-imported, deactivates only the users an import brought, each with its user.updated event', async () => {
    const run = await sync(file('two-left.csv', staff(28)), '--deactivate-missing', '--only-imported');
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /: 0 created, 0 updated, 28 unchanged, 0 userfield values set; 2 missing from the file deactivated$/);
    assert.equal(await active('person29@example.com'), false);
    assert.equal(await active('contractor@example.com'), true, 'created through the API');
    const events = await newEvents();
    assert.deepEqual(events.map((event) => [event.type, event.data.email, event.data.active, event.previousAttributes?.active]).sort(), [
      ['user.updated', 'person28@example.com', false, true],
      ['user.updated', 'person29@example.com', false, true],
    ]);
    const again = await sync(file('two-left.csv', staff(28)), '--deactivate-missing', '--only-imported');
    assert.match(again.out, /28 unchanged, 0 userfield values set; 0 missing from the file deactivated$/, 'the deactivated are not active any more');
    assert.deepEqual(await newEvents(), []);
    assert.ok((await h.get(`users/${apiUser}`)).statusCode === 200);
  });

  it('makes a deactivated user active again when it is back in the file (never deleted)', async () => {
    const run = await sync(file('all.csv', staff(30)), '--deactivate-missing', '--only-imported');
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /: 0 created, 2 updated, 28 unchanged/);
    assert.equal(await active('person29@example.com'), true);
    const events = await newEvents();
    assert.deepEqual(events.map((event) => [event.type, event.data.email, event.data.active]).sort(), [
      ['user.updated', 'person28@example.com', true],
      ['user.updated', 'person29@example.com', true],
    ]);
  });

  it('leaves alone a user the API deactivated after the API had reactivated one the sync deactivated', async () => {
    const idOf = async (email: string) => (await h.get('users', { query: { email } })).json().results[0].id as string;
    const setActive = async (email: string, value: boolean) =>
      assert.equal((await h.put(`users/${await idOf(email)}`, { active: value })).statusCode, 204);
    assert.equal((await sync(file('two-left.csv', staff(28)), '--deactivate-missing', '--only-imported')).code, 0);
    await setActive('person29@example.com', true);
    // Back in the file and active already: the row is unchanged, and the sync no longer holds the user deactivated.
    assert.match((await sync(file('all.csv', staff(30)))).out, /: 0 created, 1 updated, 29 unchanged/);
    await setActive('person29@example.com', false);
    const run = await sync(file('all.csv', staff(30)));
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /: 0 created, 0 updated, 30 unchanged/);
    assert.equal(await active('person29@example.com'), false, 'the API deactivated it, and the file does not say otherwise');
    await setActive('person29@example.com', true);
    await newEvents();
  });

  it('without --only-imported deactivates every active user missing from the file, the API-created too', async () => {
    const run = await sync(file('all.csv', staff(30)), '--deactivate-missing', '--json');
    assert.equal(run.code, 0, run.err);
    assert.deepEqual(JSON.parse(run.out), { rows: 30, created: 0, updated: 0, unchanged: 30, deactivated: 1, userfieldValues: 0, dryRun: false });
    assert.equal(await active('contractor@example.com'), false);
  });

  it('refuses options that make no sense, as a usage error', async () => {
    for (const [options, message] of [
      [['--max-changes', 'lots'], /--max-changes must be a number of users, a percentage of the organization's users, or both/],
      [['--max-changes', '120%'], /--max-changes must be a number/],
      [['--only-imported'], /--only-imported limits what deactivateMissing deactivates/],
    ] as const) {
      const run = await sync(file('all.csv', staff(30)), ...options);
      assert.equal(run.code, 2, run.err);
      assert.match(run.err, message);
    }
  });
});
