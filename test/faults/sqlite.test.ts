import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { newId } from '../../src/lib/ids.js';
import { Harness, type Response } from '../helpers/harness.js';

const UNAVAILABLE = { errors: ['The database is unavailable'] };

function assertUnavailable(response: Response): void {
  assert.equal(response.statusCode, 503, response.body);
  assert.deepEqual(response.json(), UNAVAILABLE);
  assert.ok(Number(response.headers['retry-after']) > 0);
  assert.ok(response.headers['x-request-id']);
}

/** SQLite's own errors, caused for real on the app's database file: each a 503, never a crash, and gone once the cause is. */
describe('SQLite faults', () => {
  const h = new Harness('sqlite');
  before(() => h.start());
  after(() => h.stop());

  const createUser = () => h.post('users', { email: `${newId()}@example.com` });
  const pathOf = () => h.database.url.slice('sqlite:'.length);

  it('answers 503 while the disk is full, serves reads meanwhile, and writes again once there is room', async () => {
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(h.database.db);
    // SQLite answers SQLITE_FULL once the file would grow past this many pages, as on a full disk.
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count}`).execute(h.database.db);
    try {
      let refused: Response | undefined;
      for (let n = 0; n < 2000 && !refused; n += 1) {
        const response = await h.post('users', { email: `${newId()}@example.com`, firstName: 'x'.repeat(255), lastName: 'y'.repeat(255) });
        if (response.statusCode !== 201) refused = response;
      }
      assert.ok(refused, 'the database filled up');
      assertUnavailable(refused);
      assert.ok(
        h.logs.some((line) => line.includes('SQLITE_FULL')),
        'the log names the cause',
      );
      assert.equal((await h.get('users?limit=1')).statusCode, 200);
    } finally {
      await sql.raw('pragma max_page_count = 4294967294').execute(h.database.db);
    }
    assert.equal((await createUser()).statusCode, 201);
  });

  it('answers 503 after a bounded wait while another connection holds the write lock', async () => {
    await sql.raw('pragma busy_timeout = 300').execute(h.database.db);
    const other = new BetterSqlite3(pathOf());
    try {
      other.exec('begin exclusive');
      const started = performance.now();
      assertUnavailable(await createUser());
      assert.ok(performance.now() - started < 2000);
      assert.equal((await h.get('users?limit=1')).statusCode, 200, 'reads go on under WAL');
    } finally {
      other.exec('rollback');
      other.close();
      await sql.raw('pragma busy_timeout = 5000').execute(h.database.db);
    }
    assert.equal((await createUser()).statusCode, 201);
  });

  it('answers 503 while the database is read-only', async () => {
    await sql.raw('pragma query_only = 1').execute(h.database.db);
    try {
      assertUnavailable(await createUser());
      assert.equal((await h.get('users?limit=1')).statusCode, 200);
    } finally {
      await sql.raw('pragma query_only = 0').execute(h.database.db);
    }
    assert.equal((await createUser()).statusCode, 201);
  });
});
