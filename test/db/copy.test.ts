import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { buildApp } from '../../src/app.js';
import type { ApiInstance } from '../../src/http/api-instance.js';
import { main } from '../../src/cli/main.js';
import { VERSIONS_TABLE } from '../../src/db/migration-versions.js';
import { seedUsers } from '../../src/tenancy/seed.js';
import { copyDatabase } from '../../src/db/copy.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { Harness, type Organization } from '../helpers/harness.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

const SKIP = process.env.TEST_POSTGRES_URL ? false : 'needs TEST_POSTGRES_URL: the copy is tested from SQLite into PostgreSQL';
const SEEDED_USERS = 10_000;

/**
 * The tables a copy fills (each database keeps its own record of the versions that migrated it, and SQLite's
 * name index, a virtual table and its shadow tables, is filled by the target's own triggers).
 */
async function tableNames(database: TestDatabase): Promise<string[]> {
  const tables = await database.db.introspection.getTables();
  const indexes =
    database.engine === 'sqlite'
      ? (await sql<{ name: string }>`select name from pragma_table_list where type in ('virtual', 'shadow')`.execute(database.db)).rows.map(
          ({ name }) => name,
        )
      : [];
  return tables
    .map((table) => table.name)
    .filter((name) => name !== VERSIONS_TABLE && !indexes.includes(name))
    .sort();
}

async function countRows(db: Kysely<any>, table: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

async function counts(database: TestDatabase, tables: string[]): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const table of tables) result[table] = await countRows(database.db, table);
  return result;
}

/** Runs the command line, capturing what it prints. */
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {}, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const discard = new Writable({ write: (_chunk, _encoding, callback) => callback() });

describe('copy from SQLite to PostgreSQL', { skip: SKIP }, () => {
  const source = new Harness('sqlite');
  let second: Organization;
  let sourceTables: string[];

  before(async () => {
    await source.start();
    second = await source.createOrganization('Second organization', ['read']);
    await source.token(source.org.id, { scopes: ['read'], expiresDate: new Date('2031-01-01T00:00:00Z') });
    await tokensService(source.database.db).revoke((await tokensService(source.database.db).create(second.id)).info.id);
    const people = [
      {
        email: 'Ada@Example.com',
        firstName: 'Ada',
        lastName: 'Lovelace',
        username: 'ada',
        password: 'engine1',
        locale: 'en-GB',
        tags: ['math', 'poetry'],
      },
      { email: 'odysseas@example.com', firstName: 'ΟΔΥΣΣΕΑΣ', lastName: 'Ελύτης', username: 'Odysseas', locale: 'el', tags: ['ΠΟΙΗΣΗ'] },
      { email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper', tags: ['navy', 'cobol', 'Math'] },
    ];
    for (const person of people) await source.create('users', person);
    await seedUsers(source.database.db, source.org.id, SEEDED_USERS, DEFAULT_PASSWORD_POLICY, discard);
    await seedUsers(source.database.db, second.id, 25, DEFAULT_PASSWORD_POLICY, discard);
    sourceTables = await tableNames(source.database);
  });
  after(() => source.stop());

  it('copies every table and the target answers the API exactly as the source does', async () => {
    const target = await createTestDatabase('postgres', { migrate: false });
    let targetApp: ApiInstance | undefined;
    try {
      const { code, out, err } = await cli('copy', '--from', source.database.url, '--to', target.url);
      assert.equal(code, 0, err);
      assert.match(out, /every table's row count matches/);
      assert.match(out, /users\s+10,028\s+10,028/);

      const sourceCounts = await counts(source.database, sourceTables);
      assert.deepEqual(await tableNames(target), sourceTables);
      assert.deepEqual(await counts(target, sourceTables), sourceCounts);
      for (const table of ['organizations', 'access_tokens', 'users']) assert.ok(sourceCounts[table]! > 1, table);

      const app = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: target.db });
      targetApp = app;
      const ids = (await source.database.db.selectFrom('users').select('id').orderBy('id').execute()).map((row) => row.id);
      const urls = [
        'users',
        ...[0, 100, 5_000, 9_950, 10_000].map((offset) => `users?limit=100&offset=${offset}`),
        'users?firstName=ada',
        'users?firstName=%CF%83%CF%83', // σσ, inside ΟΔΥΣΣΕΑΣ
        'users?lastName=ELY',
        'users?username=GRACE.&limit=50&offset=20',
        'users?tags=math',
        'users?tags=sales%20manager&limit=100&offset=300',
        'users?tags=%CF%80%CE%BF%CE%B9%CE%B7%CF%83%CE%B7', // ποιηση
        'users?email=ADA@example.COM',
        `users?createdDate=${new Date().getUTCFullYear()}&limit=7&offset=9000`,
        'users?createdDate=../2001',
        'users?lastLoginDate=2020/..',
        ...ids.filter((_, index) => index % 500 === 0).map((id) => `users/${id}`),
        'users/0123456789abcdef0123456789abcdef',
      ];
      let usersCompared = 0;
      for (const token of [source.org.token, second.token]) {
        for (const url of urls) {
          const request = { method: 'GET' as const, url: `/api/v5/${url}`, headers: { authorization: `Bearer ${token}` } };
          const expected = await source.app.inject(request);
          const actual = await app.inject(request);
          assert.equal(actual.statusCode, expected.statusCode, url);
          assert.equal(actual.body, expected.body, url);
          if (expected.statusCode === 200) usersCompared += expected.json().results?.length ?? 1;
        }
      }
      assert.ok(usersCompared > 500, `only ${usersCompared} users compared`);
    } finally {
      await targetApp?.close();
      await target.drop();
    }
  });

  it('refuses a target that already holds data, and changes nothing in it', async () => {
    const target = await createTestDatabase('postgres');
    try {
      await organizationsRepository(target.db).create('Already here');
      const before = await counts(target, sourceTables);
      const { code, err } = await cli('copy', '--from', source.database.url, '--to', target.url);
      assert.equal(code, 2);
      assert.match(err, /already holds data \(organizations: 1[,)]/);
      assert.deepEqual(await counts(target, sourceTables), before);
    } finally {
      await target.drop();
    }
  });

  it('leaves the target without a single row when the copy fails midway', async () => {
    const target = await createTestDatabase('postgres', { migrate: false });
    try {
      let batches = 0;
      const failing = {
        start() {},
        advance() {
          if (++batches === 4) throw new Error('the disk is full');
        },
      };
      await assert.rejects(copyDatabase(source.database, target, failing), /the disk is full/);
      assert.ok(batches === 4);
      const targetCounts = await counts(target, sourceTables);
      assert.deepEqual(
        Object.values(targetCounts),
        sourceTables.map(() => 0),
      );
    } finally {
      await target.drop();
    }
  });
});

describe('copy between engines, generically', { skip: SKIP }, () => {
  const databases: TestDatabase[] = [];
  const fresh = async (engine: 'sqlite' | 'postgres', migrate = true) => {
    const database = await createTestDatabase(engine, { migrate });
    databases.push(database);
    return database;
  };
  after(async () => {
    for (const database of databases) await database.drop();
  });

  /** A table that no migration of this program creates, with a boolean column, on a migrated database. */
  async function addGadgets(database: TestDatabase): Promise<void> {
    await database.db.schema
      .createTable('gadgets')
      .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id'))
      .addColumn('id', 'varchar(32)', (c) => c.notNull())
      .addColumn('active', 'boolean', (c) => c.notNull())
      .addColumn('size', 'integer')
      .addPrimaryKeyConstraint('gadgets_pkey', ['org_id', 'id'])
      .execute();
  }

  it('copies a table it was never told about, both ways, booleans included', async () => {
    const sqlite = await fresh('sqlite');
    await addGadgets(sqlite);
    const { id: orgId } = await organizationsRepository(sqlite.db).create('Gadgets');
    const gadgets = [
      { org_id: orgId, id: 'a', active: true, size: 3 },
      { org_id: orgId, id: 'b', active: false, size: null },
    ];
    await (sqlite.db as Kysely<any>).insertInto('gadgets').values(gadgets).execute();

    const postgres = await fresh('postgres');
    await addGadgets(postgres);
    await copyDatabase(sqlite, postgres);
    assert.deepEqual(await (postgres.db as Kysely<any>).selectFrom('gadgets').selectAll().orderBy('id').execute(), gadgets);

    const back = await fresh('sqlite');
    await addGadgets(back);
    const summary = await copyDatabase(postgres, back);
    assert.deepEqual(
      summary.find((count) => count.table === 'gadgets'),
      { table: 'gadgets', source: 2, target: 2 },
    );
    const rows = await (back.db as Kysely<any>).selectFrom('gadgets').selectAll().orderBy('id').execute();
    assert.deepEqual(
      rows,
      gadgets.map((gadget) => ({ ...gadget, active: Number(gadget.active) })),
    );
  });

  it('orders parents before children whatever their names', async () => {
    const sqlite = await fresh('sqlite');
    const postgres = await fresh('postgres');
    for (const database of [sqlite, postgres]) {
      await addGadgets(database);
      // "a_parts" sorts before "gadgets" but references it.
      await database.db.schema
        .createTable('a_parts')
        .addColumn('org_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('gadget_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('id', 'varchar(32)', (c) => c.notNull())
        .addPrimaryKeyConstraint('a_parts_pkey', ['org_id', 'id'])
        .addForeignKeyConstraint('a_parts_gadget', ['org_id', 'gadget_id'], 'gadgets', ['org_id', 'id'])
        .execute();
    }
    const { id: orgId } = await organizationsRepository(sqlite.db).create('Parts');
    await (sqlite.db as Kysely<any>).insertInto('gadgets').values({ org_id: orgId, id: 'g', active: true, size: 1 }).execute();
    await (sqlite.db as Kysely<any>).insertInto('a_parts').values({ org_id: orgId, gadget_id: 'g', id: 'p' }).execute();
    const summary = await copyDatabase(sqlite, postgres);
    assert.deepEqual(
      summary.map((count) => count.table).filter((table) => ['organizations', 'gadgets', 'a_parts'].includes(table)),
      ['organizations', 'gadgets', 'a_parts'],
    );
    assert.equal(await countRows(postgres.db, 'a_parts'), 1);
  });

  it('refuses a source migrated by a newer version of the program', async () => {
    const sqlite = await fresh('sqlite');
    await (sqlite.db as Kysely<any>)
      .insertInto('kysely_migration')
      .values({ name: '9999-from-the-future', timestamp: new Date().toISOString() })
      .execute();
    const postgres = await fresh('postgres', false);
    const { code, err } = await cli('copy', '--from', sqlite.url, '--to', postgres.url);
    assert.equal(code, 2);
    assert.match(err, /source database has migrations this version of training-api does not know \(9999-from-the-future\)/);
  });

  it('refuses what it cannot copy before opening anything', async () => {
    const missing = await cli('copy', '--from', 'sqlite:/nonexistent/training-api.db', '--to', 'sqlite:/tmp/never-written.db');
    assert.equal(missing.code, 2);
    assert.match(missing.err, /no SQLite database at \/nonexistent\/training-api\.db/);
    const same = await cli('copy', '--from', 'sqlite:/tmp/a.db', '--to', 'sqlite:/tmp/a.db');
    assert.equal(same.code, 2);
    assert.match(same.err, /name the same database/);
    const unknown = await cli('copy', '--from', 'mysql://localhost/x', '--to', 'sqlite:/tmp/a.db');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /--from: DATABASE_URL must start with sqlite: or postgres:\/\//);
    assert.equal((await cli('copy', '--from', 'sqlite:/tmp/a.db')).code, 2);
  });
});
