import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrateToLatest, openDatabase, type DatabaseHandle, type DatabaseOptions, type Engine } from '../../src/db/database.js';
import { newId } from '../../src/lib/ids.js';

/**
 * Names a PgBouncer in transaction mode whose `*` entry leads to TEST_POSTGRES_URL's server: the run then reaches
 * PostgreSQL through it alone, as a deployment behind PgBouncer does (test/topology/pgbouncer-conformance.test.ts).
 */
export const POSTGRES_POOLER_VARIABLE = 'TEST_POSTGRES_POOLER_URL';
const pooler = process.env[POSTGRES_POOLER_VARIABLE];

/** SQLite always; PostgreSQL too when TEST_POSTGRES_URL names a server; PostgreSQL alone through a pooler. */
export const ENGINES: Engine[] = pooler ? ['postgres'] : process.env.TEST_POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/** Both engines, for suites that run on each where it is available and say why where it is not (`engineSkip`). */
export const ALL_ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/** Why a suite of `engine` is skipped on this run, or false when it runs. */
export function engineSkip(engine: Engine): string | false {
  if (ENGINES.includes(engine)) return false;
  return pooler ? 'this run is PostgreSQL through a pooler' : 'needs TEST_POSTGRES_URL';
}

export interface TestDatabase extends DatabaseHandle {
  /** The DATABASE_URL another process would use to reach the same data. */
  url: string;
  /** PostgreSQL schema of this database, when on PostgreSQL. */
  schema?: string;
  /** Closes and throws the database away. */
  drop(): Promise<void>;
}

/** `url` with its database name replaced. */
function withDatabaseName(url: string, database: string): string {
  const named = new URL(url);
  named.pathname = `/${database}`;
  return named.toString();
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>, url = process.env.TEST_POSTGRES_URL): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Names a migrated SQLite file that each new test database of the run starts as a copy of (see `migratedSqliteTemplate`). */
export const SQLITE_TEMPLATE_VARIABLE = 'TEST_SQLITE_TEMPLATE';

/**
 * Migrates a SQLite database once, at `path`, for a whole test run: each test file's databases
 * are then copies of it (a file copy takes milliseconds, the migrations half a second).
 */
export async function migratedSqliteTemplate(path: string): Promise<void> {
  const handle = openDatabase(`sqlite:${path}`);
  await migrateToLatest(handle.db);
  await handle.close();
  // Closed, the last connection has moved its write-ahead log into the file: the file alone is the database.
  if (existsSync(`${path}-wal`)) throw new Error(`${path}-wal is still there after closing the template`);
}

/** Names a file holding the SQL that makes a migrated PostgreSQL schema, its name written as POSTGRES_TEMPLATE_SCHEMA. */
export const POSTGRES_TEMPLATE_VARIABLE = 'TEST_POSTGRES_TEMPLATE';
const POSTGRES_TEMPLATE_SCHEMA = '__migrated_schema__';

/**
 * Migrates a PostgreSQL schema once for a whole test run and writes, at `path`, the SQL that makes
 * a copy of it (pg_dump's, tables and rows): each test file's schema is then made by one script,
 * in about half the time of the migrations. False when pg_dump is not installed or fails.
 */
export async function migratedPostgresTemplate(path: string): Promise<boolean> {
  const template = await createTestDatabase('postgres', { migrate: true });
  try {
    const pgDump = (...args: string[]) =>
      spawnSync('pg_dump', [...args, '--no-owner', `--schema=${template.schema}`, process.env.TEST_POSTGRES_URL!], { encoding: 'utf8' });
    const dump = pgDump('--schema-only', '--no-privileges');
    const rows = pgDump('--data-only', '--inserts');
    if (dump.error || rows.error) return false;
    const failed = [dump, rows].find(({ status }) => status !== 0);
    if (failed) {
      // An older pg_dump than the server, say: each test file then migrates its own schema, slower but the same.
      console.error(`pg_dump could not copy the migrated schema, so each test file migrates its own: ${failed.stderr.trim()}`);
      return false;
    }
    const script = `${dump.stdout}\n${rows.stdout}`
      .split('\n')
      // psql's meta-commands (\restrict) and the session settings are pg_dump's, not the schema's.
      .filter((line) => !line.startsWith('\\') && !/^(SET |SELECT pg_catalog\.set_config)/.test(line))
      .join('\n')
      .replaceAll(template.schema!, POSTGRES_TEMPLATE_SCHEMA);
    writeFileSync(path, script);
    return true;
  } finally {
    await template.drop();
  }
}

/**
 * A fresh, migrated database: a SQLite file in a temp directory, or a schema of its own on the
 * PostgreSQL test server, so test files can run in parallel.
 */
export async function createTestDatabase(
  engine: Engine,
  options: {
    migrate?: boolean;
    /**
     * PostgreSQL: a database of its own rather than a schema in the shared one. Dead row versions are then removed
     * (vacuum, an index scan marking them) whatever other test files' transactions are open: PostgreSQL keeps them for
     * the oldest transaction in the same database.
     */
    ownDatabase?: boolean;
  } & Pick<DatabaseOptions, 'onStatement'> = {},
): Promise<TestDatabase> {
  const { onStatement } = options;
  let database: TestDatabase;
  let migrated = false;
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'training-api-test-'));
    const file = join(dir, 'test.db');
    const template = options.migrate === false ? undefined : process.env[SQLITE_TEMPLATE_VARIABLE];
    if (template) {
      copyFileSync(template, file);
      migrated = true;
    }
    const url = `sqlite:${file}`;
    // The tests' own connections do not wait for the disk at each commit (6 ms here, on a shared disk): a commit
    // in WAL mode with synchronous=NORMAL survives the process's crash, and only the server processes the fault
    // tests start, with their own settings, are about surviving more.
    const handle = openDatabase(url, { onStatement, sqliteSynchronous: 'normal' });
    database = {
      ...handle,
      url,
      async drop() {
        await handle.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } else {
    const schema = `test_${newId()}`;
    const base = process.env.TEST_POSTGRES_URL!;
    // A transaction pooler carries no startup parameter such as search_path: there each test schema is alone in a
    // database of its own, whose default search_path names it.
    const alone = pooler !== undefined || options.ownDatabase === true;
    const admin = alone ? withDatabaseName(base, schema) : base;
    if (alone) {
      await withAdmin((client) => client.query(`create database ${schema}`));
      await withAdmin((client) => client.query(`alter database ${schema} set search_path = ${schema}`));
    }
    // Migration 0030 creates pg_trgm where it is missing, in the current schema: here a test schema, dropped with what
    // it holds while other schemas' indexes use it. It is made once for the database instead, outside them all.
    await withAdmin(
      (client) => client.query(`begin; select pg_advisory_xact_lock(30); create extension if not exists pg_trgm schema public; commit`),
      admin,
    );
    const template = options.migrate === false ? undefined : process.env[POSTGRES_TEMPLATE_VARIABLE];
    if (template) {
      const script = readFileSync(template, 'utf8').replaceAll(POSTGRES_TEMPLATE_SCHEMA, schema);
      await withAdmin((client) => client.query(`begin;\n${script};\ncommit`), admin);
      migrated = true;
    } else {
      await withAdmin((client) => client.query(`create schema ${schema}`), admin);
    }
    // As on SQLite, the tests' own connections do not wait for the disk at each commit (5-7 ms here).
    const handle = pooler
      ? openDatabase(withDatabaseName(pooler, schema), { poolSize: 10, onStatement, transactionPooler: true })
      : openDatabase(alone ? admin : base, { schema, poolSize: 10, onStatement, postgresSynchronousCommit: false });
    const url = pooler
      ? withDatabaseName(pooler, schema)
      : alone
        ? admin
        : `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    database = {
      ...handle,
      url,
      schema,
      async drop() {
        await handle.close();
        await withAdmin((client) => client.query(alone ? `drop database ${schema} with (force)` : `drop schema ${schema} cascade`));
      },
    };
  }
  if (options.migrate !== false && !migrated) await migrateToLatest(database.db);
  return database;
}
