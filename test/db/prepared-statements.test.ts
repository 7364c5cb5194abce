import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type DatabaseOptions } from '../../src/db/database.js';
import { tokensRepository } from '../../src/auth/tokens.repository.js';
import { usersRepository } from '../../src/resources/users/users.repository.js';
import { createTestDatabase, engineSkip, type TestDatabase } from '../helpers/database.js';
import { backdated } from '../helpers/actors.js';

describe('named (prepared) statements on PostgreSQL', { skip: engineSkip('postgres') }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('postgres');
    await database.db.insertInto('organizations').values({ id: 'o', name: 'Org', created_date: '2026-01-01T00:00:00Z' }).execute();
    await database.db
      .insertInto('users')
      .values({
        org_id: 'o',
        id: 'u',
        email: 'u@example.com',
        password_change_required: false,
        email_key: 'u@example.com',
        active: true,
        created_date: '2026-01-01T00:00:00Z',
        updated_date: backdated('2026-01-01T00:00:00Z'),
      })
      .execute();
  });
  after(() => database.drop());

  /** The statements PostgreSQL keeps prepared for the one connection of a pool of one, after three reads of a user. */
  async function preparedAfterReads(options: DatabaseOptions): Promise<{ name: string; statement: string }[]> {
    const handle = openDatabase(process.env.TEST_POSTGRES_URL!, { schema: database.schema, poolSize: 1, ...options });
    try {
      for (let i = 0; i < 3; i += 1) assert.equal((await usersRepository(handle.db).find('o', 'u'))?.email, 'u@example.com');
      assert.equal(await usersRepository(handle.db).find('o', 'nobody'), undefined);
      const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(handle.db);
      return rows;
    } finally {
      await handle.close();
    }
  }

  it('sends a user read by id as a named statement, prepared once per connection', async () => {
    const prepared = await preparedAfterReads({});
    assert.equal(prepared.length, 1, JSON.stringify(prepared));
    assert.match(prepared[0]!.name, /^training_api_\d+$/);
    assert.match(prepared[0]!.statement, /from "users" where "org_id" = \$1 and "id" = \$2/);
  });

  it('keeps answering the token lookup when a migration adds a column while instances run (a rolling deploy)', async () => {
    await database.db
      .insertInto('access_tokens')
      .values({ org_id: 'o', id: 't', name: 'deploy', token_hash: 'hash-of-t', scopes: 'read', created_date: '2026-01-01T00:00:00Z' })
      .execute();
    const handle = openDatabase(process.env.TEST_POSTGRES_URL!, { schema: database.schema, poolSize: 1 });
    try {
      assert.equal((await tokensRepository(handle.db).findByHash('hash-of-t'))?.id, 't');
      // A `select *` prepared before this would be refused after it: "cached plan must not change result type".
      await sql`alter table access_tokens add column added_later text`.execute(database.db);
      assert.equal((await tokensRepository(handle.db).findByHash('hash-of-t'))?.id, 't');
    } finally {
      await handle.close();
      await sql`alter table access_tokens drop column added_later`.execute(database.db);
    }
  });

  it('names nothing when told not to, or behind a pooler in transaction mode', async () => {
    assert.deepEqual(await preparedAfterReads({ preparedStatements: false }), []);
    assert.deepEqual(await preparedAfterReads({ transactionPooler: true }), []);
  });

  it('reads DATABASE_PREPARED_STATEMENTS: on by default, off with DATABASE_POOL_MODE=transaction unless set on', () => {
    const url = { DATABASE_URL: 'postgres://app@db/training' };
    assert.equal(loadConfig(url).topology.preparedStatements, true);
    assert.equal(loadConfig({ ...url, DATABASE_PREPARED_STATEMENTS: 'off' }).topology.preparedStatements, false);
    assert.equal(loadConfig({ ...url, DATABASE_POOL_MODE: 'transaction' }).topology.preparedStatements, false);
    assert.equal(loadConfig({ ...url, DATABASE_POOL_MODE: 'transaction', DATABASE_PREPARED_STATEMENTS: 'on' }).topology.preparedStatements, true);
    assert.throws(() => loadConfig({ ...url, DATABASE_PREPARED_STATEMENTS: 'sometimes' }), /DATABASE_PREPARED_STATEMENTS must be on or off/);
  });
});
