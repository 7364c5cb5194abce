import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, sql, type KyselyConfig, type LogEvent, type MigrationResultSet, type PostgresPool } from 'kysely';
import type { DatabaseLimits, SqliteSynchronous } from './options.js';
import { migrations } from './migrations/index.js';
import { recordMigrationVersion, refuseNewerDatabase } from './migration-versions.js';
import { createPostgresPool, type PoolCounts } from './postgres-pool.js';
import { HostLocator, hostName, parsePostgresTarget } from './postgres-hosts.js';
import { ReadReplicas, type ReplicaState } from './read-replicas.js';
import { createRoutingPool } from './routing-pool.js';
import { CurrentSchemaPostgresDialect } from './postgres-introspector.js';
import { lowerCase } from './filters.js';
import type { Database } from './schema.js';
import { isPostgres } from './locking.js';
import { createSqliteDialect } from './sqlite-dialect.js';
import { runDirectly, type DirectRunner, type StatementObserver } from './direct-statements.js';
import { runTransactionsDirectly } from './direct-transactions.js';
import { postgresRevocationWatch, sqliteRevocationWatch, type RevocationWatch } from './token-revocations.js';

export type Engine = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  engine: Engine;
  /** PostgreSQL's connection pool, for its counts. */
  pool?: PoolCounts;
  /**
   * Starts watching for token revocations (on PostgreSQL, a listening connection of its own); closed with
   * the handle. None behind a transaction pooler without DATABASE_LISTEN_URL: every request looks its token up.
   */
  watchTokenRevocations(): RevocationWatch | undefined;
  /** PostgreSQL: the host writes go to (undefined while none is found) and the read replicas' state. */
  topology?(): DatabaseTopology;
  /** The read replicas of DATABASE_READ_URL, watched. */
  replicas?: ReadReplicas;
  close(): Promise<void>;
}

export interface DatabaseTopology {
  primary: string | undefined;
  replicas: ReplicaState[];
}

/** PostgreSQL beyond one server: replicas, a pooler, a connection for LISTEN. */
export interface PostgresTopologyOptions {
  /** Read replicas (DATABASE_READ_URL), one host or several. */
  readUrl?: string;
  /** A replica further behind than this serves no reads. */
  readMaxLagMs?: number;
  /** A direct connection (not through a transaction pooler) for LISTEN (DATABASE_LISTEN_URL). */
  listenUrl?: string;
  /** DATABASE_URL leads to a pooler in transaction mode (DATABASE_POOL_MODE=transaction). */
  transactionPooler?: boolean;
  /**
   * The hot statements go as named (server-side prepared) statements (DATABASE_PREPARED_STATEMENTS);
   * by default on, and off with a transaction pooler.
   */
  preparedStatements?: boolean;
}

export interface DatabaseOptions extends PostgresTopologyOptions {
  /** Connections in the PostgreSQL pool. */
  poolSize?: number;
  /** PostgreSQL schema to work in (tests give each file its own). */
  schema?: string;
  /** Bounded waits; unset ones keep the driver's defaults (the command line waits as long as it takes). */
  limits?: Partial<DatabaseLimits>;
  /** SQLite durability; FULL unless told otherwise. */
  sqliteSynchronous?: SqliteSynchronous;
  /**
   * PostgreSQL durability: false lets a commit return before its WAL is on disk (synchronous_commit=off, for the
   * tests' databases); the server's setting unless told otherwise, and always behind a transaction pooler.
   */
  postgresSynchronousCommit?: boolean;
  /** Told the duration of every statement, and whether it failed (for metrics). */
  onQuery?: (durationMs: number, failed: boolean) => void;
  /** Told the text of every statement, without its parameters (the SQL snapshots of test/snapshots/). */
  onStatement?: (sql: string) => void;
  /** Errors of PostgreSQL connections outside any query (see postgres-pool.ts). */
  onConnectionError?: (error: Error) => void;
}

/** How far behind the primary a read replica may be and still serve reads. */
const DEFAULT_READ_MAX_LAG_MS = 5000;

/** How long a SQLite write waits for another process's lock when no statement timeout is given. */
const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5000;
/** The page cache of each SQLite connection, in KiB (a negative `cache_size`). */
const SQLITE_CACHE_KIB = 32 * 1024;

export function engineOf(url: string): Engine {
  // Without a path SQLite would open a temporary database, and everything written would be lost.
  if (url === 'sqlite:') throw new Error('DATABASE_URL sqlite: must name a file, as in sqlite:./data/training-api.db');
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got "${url.replace(/\/\/[^@]*@/, '//***@')}")`);
}

/**
 * The database holds personal data, password and token hashes: a new file is readable by its owner
 * only, in a directory only its owner may enter. SQLite gives the -wal and -shm files it creates
 * the database file's permissions. Existing files and directories keep theirs.
 */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
}

function openSqlite(path: string, options: DatabaseOptions): BetterSqlite3.Database {
  let sqlite: BetterSqlite3.Database;
  try {
    if (path !== ':memory:') createPrivately(path);
    sqlite = new BetterSqlite3(path);
    sqlite.pragma('journal_mode = WAL');
  } catch (error) {
    // SQLite's messages ("file is not a database") do not say which file.
    (error as Error).message = `Cannot open the SQLite database ${path}: ${(error as Error).message}`;
    throw error;
  }
  // FULL syncs the WAL at every commit, so an acknowledged write survives a power loss; NORMAL
  // survives a crash of the process but may lose the last commits when the machine loses power.
  sqlite.pragma(`synchronous = ${options.sqliteSynchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  sqlite.pragma('foreign_keys = ON');
  // Each transaction is a savepoint of a shared one (sqlite-dialect.ts): keep the pages it would
  // have to restore in memory rather than in a temporary file that it opens, writes and deletes.
  sqlite.pragma('temp_store = MEMORY');
  // SQLite's default page cache is 2 MB: a deep webhook backlog (about 50 MB for 100,000 deliveries) had each
  // commit's updates read their index pages back from the operating system. Pages are taken as they are used.
  sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  sqlite.pragma(`busy_timeout = ${options.limits?.statementTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS}`);
  // SQLite's own lower() folds ASCII only; this one folds all of Unicode as PostgreSQL's does.
  sqlite.function('lower', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? lowerCase(value) : value));
  return sqlite;
}

/** What is told of every statement, whether Kysely runs it or the driver does directly (direct-statements.ts). */
function statementObserver({ onQuery, onStatement }: DatabaseOptions): StatementObserver | undefined {
  if (!onQuery && !onStatement) return undefined;
  return (sql, durationMs, failed) => {
    onQuery?.(durationMs, failed);
    onStatement?.(sql);
  };
}

function queryLog(observe: StatementObserver | undefined): KyselyConfig['log'] {
  return observe && ((event: LogEvent) => observe(event.query.sql, event.queryDurationMillis, event.level === 'error'));
}

/** Reads run directly on a PostgreSQL pool: one query on a connection checked out for it. */
function postgresRunner(pool: PostgresPool): DirectRunner {
  return {
    prepare: (sql) => (parameters) =>
      pool.connect().then((client) =>
        client.query<object>(sql, parameters).then(
          (result) => {
            client.release();
            return result.rows;
          },
          (error: unknown) => {
            client.release();
            throw error;
          },
        ),
      ),
  };
}

export function openDatabase(url: string, options: DatabaseOptions = {}): DatabaseHandle {
  const engine = engineOf(url);
  const observe = statementObserver(options);
  let watch: RevocationWatch | undefined;
  if (engine === 'sqlite') {
    const sqlite = openSqlite(url.slice('sqlite:'.length), options);
    const dialect = createSqliteDialect(sqlite);
    const db = new Kysely<Database>({ dialect, log: queryLog(observe) });
    runDirectly(db, dialect.direct, { observe });
    return {
      db,
      engine,
      watchTokenRevocations: () => (watch ??= sqliteRevocationWatch(sqlite)),
      close: () => db.destroy(),
    };
  }
  const limits = options.limits;
  const locator = new HostLocator(parsePostgresTarget(url), limits?.connectTimeoutMs);
  const primary = createPostgresPool({
    locator,
    size: options.poolSize ?? 10,
    schema: options.schema,
    synchronousCommit: options.postgresSynchronousCommit,
    limits,
    onConnectionError: options.onConnectionError,
    transactionPooler: options.transactionPooler,
    preparedStatements: options.preparedStatements,
  });
  const replicas = options.readUrl ? readReplicas(primary, options) : undefined;
  const pool = replicas ? createRoutingPool(primary, replicas) : primary;
  const config: KyselyConfig = { dialect: new CurrentSchemaPostgresDialect({ pool }), log: queryLog(observe) };
  const db = new Kysely<Database>(config);
  // Each statement is a write to PostgreSQL's socket and a wake-up of a backend: the lookups by id of a turn
  // share one. Not with read replicas, whose route (replica or primary) is each request's own.
  runDirectly(db, postgresRunner(pool), { observe, coalesce: !replicas });
  runTransactionsDirectly(pool, db, { config, observe });
  const listenTarget = options.listenUrl ?? (options.transactionPooler ? undefined : url);
  return {
    db,
    engine,
    pool,
    watchTokenRevocations: () =>
      listenTarget
        ? (watch ??= postgresRevocationWatch(new HostLocator(parsePostgresTarget(listenTarget, 'DATABASE_LISTEN_URL'), limits?.connectTimeoutMs)))
        : undefined,
    ...(replicas ? { replicas } : {}),
    topology: () => ({ primary: locator.current && hostName(locator.current), replicas: replicas?.states() ?? [] }),
    async close() {
      await watch?.close();
      await replicas?.close();
      await db.destroy();
    },
  };
}

/** A pool of its own for each host of DATABASE_READ_URL, watched from now on. */
function readReplicas(primary: ReturnType<typeof createPostgresPool>, options: DatabaseOptions): ReadReplicas {
  const target = parsePostgresTarget(options.readUrl!, 'DATABASE_READ_URL', false);
  const replicas = new ReadReplicas(
    primary,
    target.hosts.map((host) => ({
      host,
      pool: createPostgresPool({
        locator: new HostLocator({ hosts: [host], writableOnly: false, url: target.url }, options.limits?.connectTimeoutMs),
        size: options.poolSize ?? 10,
        schema: options.schema,
        limits: options.limits,
        onConnectionError: options.onConnectionError,
        transactionPooler: options.transactionPooler,
        preparedStatements: options.preparedStatements,
      }),
    })),
    options.readMaxLagMs ?? DEFAULT_READ_MAX_LAG_MS,
  );
  void replicas.start();
  return replicas;
}

/** Applies pending migrations; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<Database>): Promise<MigrationResultSet> {
  // Kysely looks for its bookkeeping tables in `public` unless told otherwise; keep them in the
  // schema the connection works in (search_path), beside the data they describe.
  const migrationTableSchema = isPostgres(db)
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
    : undefined;
  await refuseNewerDatabase(db, Object.keys(migrations));
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, migrationTableSchema });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Migration ${failed} failed: ${(result.error as Error).message ?? result.error}`, { cause: result.error });
  }
  const applied = (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  if (applied.length > 0) await recordMigrationVersion(db, applied);
  return result;
}

/** A unique-constraint violation, with the constraint's columns or name to tell which field is in use. */
export function uniqueViolation(error: unknown): string | undefined {
  const e = error as { code?: string; constraint?: string; message?: string };
  if (e?.code === '23505') return e.constraint ?? '';
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return e.message ?? '';
  return undefined;
}

/**
 * Brings the planner's statistics up to date for `tables`. Anything that bulk-loads rows calls it
 * last: without statistics PostgreSQL takes a freshly filled table for a small one and sorts a whole
 * organization for every page instead of walking the index. On PostgreSQL it vacuums them too, which
 * marks the new rows visible to all in the visibility map: until then an index-only scan (a deep
 * page's ids, read from an index) must still visit the table for every row.
 */
export async function analyze(db: Kysely<Database>, tables: readonly string[]): Promise<void> {
  if (tables.length === 0) return;
  if (isPostgres(db)) {
    await sql`vacuum analyze ${sql.join(tables.map((table) => sql.table(table)))}`.execute(db);
    return;
  }
  // SQLite's full ANALYZE reads every index whole, a second for 200,000 users on a thread that serves
  // every request meanwhile; a sample of each index gives the planner what it needs (SQLite's advice: 100-1000 rows).
  await sql`pragma analysis_limit = 1000`.execute(db);
  for (const table of tables) await sql`analyze ${sql.table(table)}`.execute(db);
}
