/**
 * Kysely dialect for better-sqlite3, tuned for throughput.
 *
 * Kysely's stock SqliteDialect prepares every query anew and serialises all
 * queries behind one mutex. This one caches prepared statements and only
 * serialises what needs it: better-sqlite3 runs each statement synchronously,
 * so a plain query is already atomic. Exclusivity is needed only while a
 * transaction (or a streaming read) spans awaits on the one shared handle.
 */
import type { Database, Statement } from 'better-sqlite3';
import {
  CompiledQuery,
  IdentifierNode,
  RawNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  createQueryId,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';

export interface SqliteDialectOptions {
  /** Most prepared statements kept; the least recently used is dropped first. Default 500. */
  statementCacheSize?: number;
}

export function createSqliteDialect(database: Database, options: SqliteDialectOptions = {}): Dialect {
  const statementCacheSize = options.statementCacheSize ?? 500;
  if (!Number.isInteger(statementCacheSize) || statementCacheSize < 0) {
    throw new RangeError(`statementCacheSize must be a non-negative integer, got ${statementCacheSize}`);
  }
  return {
    createDriver: () => new SqliteDriver(database, statementCacheSize),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createAdapter: () => new SqliteAdapter(),
    createIntrospector: (db: Kysely<any>) => new SqliteIntrospector(db),
  };
}

type CompileQuery = QueryCompiler['compileQuery'];

/** A prepared statement; `toRow` only for one that returns rows (SELECT, and also INSERT/UPDATE/DELETE ... RETURNING). */
interface Prepared {
  statement: Statement;
  toRow?: RowBuilder;
}

type RowBuilder = (values: unknown[]) => object;

/**
 * Rows are read as arrays and made into objects by one object literal per statement: better-sqlite3
 * builds each row object property by property, which costs about as much again as reading the row
 * (a page of 100 users: ~40% of the statement's time).
 * A literal follows better-sqlite3's rules: the last of two columns of the same name wins.
 */
function rowBuilder(statement: Statement): RowBuilder {
  const names = statement.columns().map((column) => column.name);
  statement.raw(true);
  const properties = names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated on purpose; each column name is quoted by JSON.stringify
  return new Function('values', `return { ${properties.join(', ')} };`) as RowBuilder;
}

function prepare(database: Database, sql: string): Prepared {
  const statement = database.prepare(sql);
  return { statement, toRow: statement.reader ? rowBuilder(statement) : undefined };
}

/** LRU of prepared statements keyed by SQL text; a Map iterates in insertion order. */
class StatementCache {
  readonly #statements = new Map<string, Prepared>();
  readonly #database: Database;
  readonly #capacity: number;

  constructor(database: Database, capacity: number) {
    this.#database = database;
    this.#capacity = capacity;
  }

  get(sql: string): Prepared {
    let prepared = this.#statements.get(sql);
    if (prepared) {
      this.#statements.delete(sql); // re-inserted below as most recently used
    } else {
      prepared = prepare(this.#database, sql);
    }
    this.#statements.set(sql, prepared);
    if (this.#statements.size > this.#capacity) {
      this.#statements.delete(this.#statements.keys().next().value!);
    }
    return prepared;
  }
}

/** Which connection, if any, has the shared handle to itself across awaits. */
class ExclusiveLock {
  owner: SqliteConnection | undefined;
  released: Promise<void> = Promise.resolve();
  #resolveReleased = (): void => {};

  isHeldByOther(connection: SqliteConnection): boolean {
    return this.owner !== undefined && this.owner !== connection;
  }

  async acquire(owner: SqliteConnection): Promise<void> {
    // Every waiter wakes on release; the first one through takes the lock, the rest wait again.
    while (this.owner) await this.released;
    this.owner = owner;
    this.released = new Promise((resolve) => {
      this.#resolveReleased = resolve;
    });
  }

  /** No-op unless `owner` holds the lock, so a late or repeated release can't free someone else's. */
  release(owner: SqliteConnection): void {
    if (this.owner !== owner) return;
    this.owner = undefined;
    this.#resolveReleased();
  }
}

class SqliteDriver implements Driver {
  readonly #database: Database;
  readonly #statements: StatementCache;
  readonly #lock = new ExclusiveLock();

  constructor(database: Database, statementCacheSize: number) {
    this.#database = database;
    this.#statements = new StatementCache(database, statementCacheSize);
  }

  async init(): Promise<void> {}

  // A fresh object per acquisition lets the lock tell a transaction's queries from everyone else's.
  async acquireConnection(): Promise<DatabaseConnection> {
    return new SqliteConnection(this.#database, this.#statements, this.#lock);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const owner = connection as SqliteConnection;
    await this.#lock.acquire(owner);
    try {
      await owner.executeQuery(CompiledQuery.raw('begin immediate'));
    } catch (error) {
      this.#lock.release(owner);
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#endTransaction(connection as SqliteConnection, 'commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite rolls back on its own after some errors (e.g. SQLITE_FULL); issuing
    // ROLLBACK then would throw and hide the original error.
    if (!this.#database.inTransaction) {
      this.#lock.release(connection as SqliteConnection);
      return;
    }
    await this.#endTransaction(connection as SqliteConnection, 'rollback');
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await connection.executeQuery(compile(savepointCommand('savepoint', name), createQueryId()));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await connection.executeQuery(compile(savepointCommand('rollback to', name), createQueryId()));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: CompileQuery): Promise<void> {
    await connection.executeQuery(compile(savepointCommand('release', name), createQueryId()));
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    this.#database.close();
  }

  async #endTransaction(owner: SqliteConnection, sql: 'commit' | 'rollback'): Promise<void> {
    try {
      await owner.executeQuery(CompiledQuery.raw(sql));
    } finally {
      // A failed COMMIT (e.g. SQLITE_BUSY) leaves the transaction open: keep the lock until it is rolled back.
      if (!this.#database.inTransaction) this.#lock.release(owner);
    }
  }
}

class SqliteConnection implements DatabaseConnection {
  readonly #database: Database;
  readonly #statements: StatementCache;
  readonly #lock: ExclusiveLock;

  constructor(database: Database, statements: StatementCache, lock: ExclusiveLock) {
    this.#database = database;
    this.#statements = statements;
    this.#lock = lock;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // Fast path: with no transaction open the loop body never runs, so nothing is awaited.
    while (this.#lock.isHeldByOther(this)) await this.#lock.released;
    return runStatement<R>(this.#statements.get(query.sql), query.parameters);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize = 1): AsyncIterableIterator<QueryResult<R>> {
    // An open iterator makes better-sqlite3 refuse writes on the handle, so hold
    // the lock meanwhile (unless it is already ours, inside a transaction).
    const inTransaction = this.#lock.owner === this;
    if (!inTransaction) await this.#lock.acquire(this);
    try {
      // Not from the cache: a statement being iterated can't run other queries with the same SQL.
      const { statement, toRow } = prepare(this.#database, query.sql);
      if (!toRow) throw new Error('streamQuery only supports queries that return rows');
      let rows: R[] = [];
      for (const row of statement.iterate(toSqliteParameters(query.parameters))) {
        rows.push(toRow(row as unknown[]) as R);
        if (rows.length >= chunkSize) {
          yield { rows };
          rows = [];
        }
      }
      if (rows.length > 0) yield { rows };
    } finally {
      if (!inTransaction) this.#lock.release(this);
    }
  }
}

function runStatement<R>({ statement, toRow }: Prepared, parameters: readonly unknown[]): QueryResult<R> {
  const values = toSqliteParameters(parameters);
  if (toRow) {
    const rows = statement.all(values);
    for (let index = 0; index < rows.length; index += 1) rows[index] = toRow(rows[index] as unknown[]);
    return { rows: rows as R[] };
  }
  const { changes, lastInsertRowid } = statement.run(values);
  return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
}

// better-sqlite3 refuses to bind booleans; SQLite stores them as 0/1 anyway.
function toSqliteParameters(parameters: readonly unknown[]): readonly unknown[] {
  if (!parameters.some((value) => typeof value === 'boolean')) return parameters;
  return parameters.map((value) => (typeof value === 'boolean' ? Number(value) : value));
}

function savepointCommand(command: string, name: string): RawNode {
  // IdentifierNode makes the compiler quote the name, as Kysely's own drivers do.
  return RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)]);
}
