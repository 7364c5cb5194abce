/**
 * Kysely dialect for better-sqlite3, tuned for throughput.
 *
 * Kysely's stock SqliteDialect prepares every query anew and serialises all
 * queries behind one mutex. This one caches prepared statements and only
 * serialises what needs it: better-sqlite3 runs each statement synchronously,
 * so a plain query is already atomic. Exclusivity is needed only while a
 * transaction (or a streaming read) spans awaits on the one shared handle,
 * the transactions of a turn commit together, and the reads made outside
 * them share a read transaction of the turn (see WriteBatch).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database, Statement } from 'better-sqlite3';
import {
  type CompiledQuery,
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
import type { DirectRunner } from './direct-statements.js';

interface SqliteDialectOptions {
  /** Most prepared statements kept; the least recently used is dropped first. Default 500. */
  statementCacheSize?: number;
}

/** The dialect, and the runner of reads outside Kysely (direct-statements.ts) on the same handle and batch. */
export interface SqliteDialect extends Dialect {
  direct: DirectRunner;
}

export function createSqliteDialect(database: Database, options: SqliteDialectOptions = {}): SqliteDialect {
  const statementCacheSize = options.statementCacheSize ?? 500;
  if (!Number.isInteger(statementCacheSize) || statementCacheSize < 0) {
    throw new RangeError(`statementCacheSize must be a non-negative integer, got ${statementCacheSize}`);
  }
  // One driver for the handle: its write batch is what every read, direct or not, waits for.
  const driver = new SqliteDriver(database, statementCacheSize);
  return {
    direct: driver,
    createDriver: () => driver,
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
  /** Changes rows: outside a transaction it still commits with the batch of its turn. */
  writes: boolean;
  /** Returns rows and changes nothing (SQLite's own verdict on the compiled statement, so never a write with RETURNING): it may join the turn's read transaction. */
  readsOnly: boolean;
}

const WRITE = /^\s*(insert|update|delete|replace)\b/i;

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
  return {
    statement,
    toRow: statement.reader ? rowBuilder(statement) : undefined,
    writes: WRITE.test(sql),
    readsOnly: statement.reader && statement.readonly,
  };
}

/** LRU of prepared statements keyed by SQL text; a Map iterates in insertion order. */
class StatementCache {
  readonly #statements = new Map<string, Prepared>();
  readonly #batch: WriteBatch;
  readonly #capacity: number;

  constructor(batch: WriteBatch, capacity: number) {
    this.#batch = batch;
    this.#capacity = capacity;
  }

  get(sql: string): Prepared {
    let prepared = this.#statements.get(sql);
    if (prepared) {
      this.#statements.delete(sql); // re-inserted below as most recently used
    } else {
      prepared = this.#batch.prepare(sql);
    }
    this.#statements.set(sql, prepared);
    if (this.#statements.size > this.#capacity) {
      this.#statements.delete(this.#statements.keys().next().value!);
    }
    return prepared;
  }
}

/** How long a transaction waits before it tries again for the write lock another connection holds (`WriteBatch.#takeWriteLock`). */
const LOCK_RETRY_MS = 1;

/** The savepoint that holds one transaction's work inside the batch's SQLite transaction. */
const MEMBER_SAVEPOINT = 'batch_member';

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Who has the shared handle, the transactions that commit together ("group commit"), and the read
 * transaction that the reads of a turn share.
 *
 * Each transaction runs alone, as a savepoint of one SQLite transaction that stays open until the
 * end of the event-loop turn in which it began; one COMMIT (one fsync under synchronous=FULL) then
 * makes all of that turn's transactions durable, and only then is each told that it committed. Under
 * load that is one commit for the writes of many requests instead of one each, and never an
 * acknowledgement before the data is on disk. Nothing outside the batch reads while it is open, so no
 * one sees a write before it is durable. A transaction that fails rolls back its own savepoint only;
 * a failed COMMIT, or an error after which SQLite rolled the whole transaction back, fails them all.
 */
class WriteBatch {
  /** Has the handle to itself: the transaction running now, or a streaming read. */
  owner: SqliteConnection | undefined;
  /** Resolves at every change of owner and at the end of every batch. */
  changed: Promise<void> = Promise.resolve();
  #signalChange = (): void => {};
  readonly #database: Database;
  /** An SQLite transaction is open for the batch. */
  #open = false;
  /** The turn that opened the batch has ended: it takes no more transactions and commits once the running one ends. */
  #closing = false;
  /** Transactions that finished inside the open batch, waiting for its commit. */
  #finished: Waiter[] = [];
  /** Counts batches, so that a turn's end closes only the batch that turn opened. */
  #opened = 0;
  /** A deferred transaction is open for the reads of this turn (see `read`). */
  #reading = false;
  readonly #endReadingAtTurnEnd = (): void => this.endReading();
  /** A transaction waits for the database's write lock, held by another connection (`#takeWriteLock`). */
  #locking = false;
  #readBusyTimeout: Statement | undefined;
  /** `pragma busy_timeout = n`, prepared once for each n. */
  readonly #busyTimeoutSetters = new Map<number, Statement>();

  constructor(database: Database) {
    this.#database = database;
    this.#renewSignal();
  }

  /** Whether `connection` must wait before it may use the handle. */
  blocks(connection: SqliteConnection): boolean {
    return (this.owner !== undefined || this.#open) && this.owner !== connection;
  }

  /** No transaction runs and no batch waits for its commit: a read outside any may run at once. */
  get idle(): boolean {
    return this.owner === undefined && !this.#open;
  }

  /** Starts `member`'s transaction in the open batch, or in a new one. */
  async begin(member: SqliteConnection): Promise<void> {
    while (this.owner !== undefined || this.#closing || this.#locking) await this.changed;
    if (this.#open) this.owner = member;
    else {
      this.#locking = true;
      try {
        await this.#takeWriteLock(member);
      } finally {
        this.#locking = false;
        // Those that waited for the lock's outcome: the batch is open (they wait for its owner now), or not.
        this.#notify();
      }
    }
    try {
      this.#run(`savepoint ${MEMBER_SAVEPOINT}`);
    } catch (error) {
      this.#leave();
      throw error;
    }
  }

  /**
   * Marks the batch open for `member`, its SQLite transaction just begun, and its commit due at the
   * end of this turn. In the same step as the `begin`, so that no read of another request begins a
   * transaction of its own between the two.
   */
  #batchOpened(member: SqliteConnection): void {
    this.#open = true;
    this.owner = member;
    const batch = ++this.#opened;
    setImmediate(() => {
      if (batch !== this.#opened || !this.#open) return;
      this.#closing = true;
      this.#settleIfIdle();
    });
  }

  /** Ends `member`'s transaction; resolves once the batch holding its work has committed. */
  commit(member: SqliteConnection): Promise<void> {
    if (this.owner !== member) throw new Error('Only the running transaction can commit');
    this.#run(`release ${MEMBER_SAVEPOINT}`);
    const committed = new Promise<void>((resolve, reject) => this.#finished.push({ resolve, reject }));
    this.#leave();
    return committed;
  }

  /** Undoes `member`'s own work; no-op when its transaction already ended (its batch failed). */
  rollback(member: SqliteConnection): void {
    if (this.owner !== member) return;
    try {
      // SQLite may have rolled the whole transaction back on its own (noticeFailure saw it).
      if (this.#database.inTransaction) {
        this.#run(`rollback to ${MEMBER_SAVEPOINT}`);
        this.#run(`release ${MEMBER_SAVEPOINT}`);
      }
    } finally {
      this.#leave();
    }
  }

  /**
   * Opens the batch's SQLite transaction (`begin immediate`, the database's write lock) without
   * holding the event loop while another connection (an import in a process of its own) has the
   * lock: SQLite's busy handler would sleep on this thread, in steps growing to 25 ms and more, while
   * every request waits, and wakes up after the lock was free and taken again. Each attempt fails at
   * once when the lock is held (`#tryBeginImmediate`); the next is made LOCK_RETRY_MS later, the reads
   * of other requests answered meanwhile, until the handle's busy_timeout has passed (then
   * SQLITE_BUSY, as SQLite's own wait ends). The timeout is read each time: it may be changed with a
   * PRAGMA.
   */
  async #takeWriteLock(member: SqliteConnection): Promise<void> {
    const started = performance.now();
    for (;;) {
      this.endReading();
      const timeoutMs = this.#busyTimeout();
      const refusal = this.#tryBeginImmediate(timeoutMs);
      if (refusal === undefined) return this.#batchOpened(member);
      if (performance.now() - started >= timeoutMs) throw refusal;
      await sleep(LOCK_RETRY_MS);
    }
  }

  /**
   * `begin immediate` with no busy wait: the SQLITE_BUSY error when another connection holds the
   * lock, else undefined. The handle's busy_timeout is zero for this one statement only, set back
   * before anything else runs on the handle: a read of another request made while this waits keeps
   * SQLite's own wait for the rare moments a reader must wait too (another connection's checkpoint or
   * recovery), where a zero timeout would fail it.
   */
  #tryBeginImmediate(timeoutMs: number): Error | undefined {
    if (timeoutMs > 0) this.#setBusyTimeout(0);
    try {
      this.#run('begin immediate');
      return undefined;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      return error as Error;
    } finally {
      if (timeoutMs > 0) this.#setBusyTimeout(timeoutMs);
    }
  }

  #busyTimeout(): number {
    this.#readBusyTimeout ??= this.#database.prepare('pragma busy_timeout').pluck();
    return this.#readBusyTimeout.get() as number;
  }

  #setBusyTimeout(ms: number): void {
    let statement = this.#busyTimeoutSetters.get(ms);
    if (!statement) {
      statement = this.#database.prepare(`pragma busy_timeout = ${Math.trunc(ms)}`);
      this.#busyTimeoutSetters.set(ms, statement);
    }
    statement.get();
  }

  /** Takes the handle for work that must not interleave with anyone's (a streaming read); waits for the open batch to commit. */
  async acquire(owner: SqliteConnection): Promise<void> {
    while (this.owner !== undefined || this.#open || this.#locking) await this.changed;
    this.endReading();
    this.owner = owner;
  }

  /**
   * Runs a read made outside any transaction, while the handle is idle, in the turn's read
   * transaction. A statement on its own is a transaction of its own, and beginning and ending one
   * costs more than a lookup by key: SQLite takes and gives back its shared lock (two `fcntl` system
   * calls) and checks the WAL index, about 6 of the 9 µs of such a lookup. The reads of a turn share one
   * transaction instead, and see the database as of the turn's first read; the turn's end, or any
   * other use of the handle (a write, a streaming read, a statement that must run alone), ends it,
   * so that a write of this process is seen by every read after it.
   */
  read<R>(prepared: Prepared, parameters: readonly unknown[]): QueryResult<R> {
    if (!this.#reading) {
      this.#run('begin');
      this.#reading = true;
      setImmediate(this.#endReadingAtTurnEnd);
    }
    try {
      return runStatement<R>(prepared, parameters);
    } catch (error) {
      // An error that ended SQLite's transaction (it rolls back on some) ended the turn's read transaction with it.
      if (!this.#database.inTransaction) this.#reading = false;
      throw error;
    }
  }

  /**
   * A statement prepared outside the turn's read transaction: SQLite does part of some statements'
   * work as it compiles them, and a PRAGMA foreign_keys compiled inside a transaction does nothing.
   */
  prepare(sql: string): Prepared {
    this.endReading();
    return prepare(this.#database, sql);
  }

  /** Ends the turn's read transaction, if one is open. */
  endReading(): void {
    if (!this.#reading) return;
    this.#reading = false;
    if (this.#database.open && this.#database.inTransaction) this.#run('commit');
  }

  release(owner: SqliteConnection): void {
    if (this.owner !== owner) return;
    this.owner = undefined;
    this.#notify();
  }

  /** After a statement failed: an error that ended SQLite's transaction took the batch's work with it. */
  noticeFailure(error: unknown): void {
    if (this.#open && !this.#database.inTransaction) this.#end(error);
  }

  #leave(): void {
    this.owner = undefined;
    this.#settleIfIdle();
    this.#notify();
  }

  /**
   * With no transaction running: a batch that holds no finished work is rolled back at once (the
   * write lock is not kept for nothing); a closing one commits.
   */
  #settleIfIdle(): void {
    if (this.owner !== undefined || !this.#open) return;
    if (this.#finished.length > 0 && !this.#closing) return;
    try {
      this.#run(this.#finished.length > 0 ? 'commit' : 'rollback');
      this.#end();
    } catch (error) {
      // A COMMIT that failed may leave the transaction open (SQLITE_BUSY): nothing of it is kept.
      try {
        if (this.#database.inTransaction) this.#run('rollback');
      } finally {
        this.#end(error);
      }
    }
  }

  /** Closes the batch: its transactions committed, or failed with `error`. */
  #end(error?: unknown): void {
    const finished = this.#finished;
    this.#finished = [];
    this.#open = false;
    this.#closing = false;
    for (const waiter of finished) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
    this.#notify();
  }

  #run(command: string): void {
    this.#database.exec(command);
  }

  #notify(): void {
    this.#signalChange();
    this.#renewSignal();
  }

  #renewSignal(): void {
    this.changed = new Promise((resolve) => {
      this.#signalChange = resolve;
    });
  }
}

class SqliteDriver implements Driver, DirectRunner {
  readonly #database: Database;
  readonly #statements: StatementCache;
  readonly #batch: WriteBatch;

  constructor(database: Database, statementCacheSize: number) {
    this.#database = database;
    this.#batch = new WriteBatch(database);
    this.#statements = new StatementCache(this.#batch, statementCacheSize);
  }

  async init(): Promise<void> {}

  // A fresh object per acquisition lets the batch tell a transaction's queries from everyone else's.
  async acquireConnection(): Promise<DatabaseConnection> {
    return new SqliteConnection(this.#statements, this.#batch);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#batch.begin(connection as SqliteConnection);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#batch.commit(connection as SqliteConnection);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    this.#batch.rollback(connection as SqliteConnection);
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

  /**
   * A read run at once while the handle is idle (the check a connection of Kysely's makes first), in
   * the turn's read transaction as Kysely's reads are, with a statement of its own and rows built as
   * every read's; while a batch is open it waits in Kysely's path.
   */
  prepare(sql: string): ((parameters: readonly unknown[]) => object[] | undefined) | undefined {
    const prepared = this.#batch.prepare(sql);
    if (!prepared.readsOnly) return undefined;
    return (parameters) => (this.#batch.idle ? this.#batch.read<object>(prepared, parameters).rows : undefined);
  }

  async destroy(): Promise<void> {
    this.#batch.endReading();
    this.#database.close();
  }
}

class SqliteConnection implements DatabaseConnection {
  readonly #statements: StatementCache;
  readonly #batch: WriteBatch;

  constructor(statements: StatementCache, batch: WriteBatch) {
    this.#statements = statements;
    this.#batch = batch;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // Fast path: with no transaction open the loop body never runs, so nothing is awaited.
    while (this.#batch.blocks(this)) await this.#batch.changed;
    const prepared = this.#statements.get(query.sql);
    const inTransaction = this.#batch.owner === this;
    if (prepared.writes && !inTransaction) return this.#writeAlone(prepared, query.parameters);
    try {
      if (inTransaction) return runStatement<R>(prepared, query.parameters);
      if (prepared.readsOnly) return this.#batch.read<R>(prepared, query.parameters);
      // A statement that must run alone (DDL, a pragma that sets something, one that writes after a WITH): a PRAGMA
      // foreign_keys inside the read transaction would do nothing.
      this.#batch.endReading();
      return runStatement<R>(prepared, query.parameters);
    } catch (error) {
      this.#batch.noticeFailure(error);
      throw error;
    }
  }

  /** A write outside a transaction: a transaction of its own, committed with the others of its turn. */
  async #writeAlone<R>(prepared: Prepared, parameters: readonly unknown[]): Promise<QueryResult<R>> {
    await this.#batch.begin(this);
    let result: QueryResult<R>;
    try {
      result = runStatement<R>(prepared, parameters);
    } catch (error) {
      this.#batch.noticeFailure(error);
      this.#batch.rollback(this);
      throw error;
    }
    await this.#batch.commit(this);
    return result;
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize = 1): AsyncIterableIterator<QueryResult<R>> {
    // An open iterator makes better-sqlite3 refuse writes on the handle, so hold
    // the handle meanwhile (unless it is already ours, inside a transaction).
    const inTransaction = this.#batch.owner === this;
    if (!inTransaction) await this.#batch.acquire(this);
    try {
      // Not from the cache: a statement being iterated can't run other queries with the same SQL.
      const { statement, toRow } = this.#batch.prepare(query.sql);
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
      if (!inTransaction) this.#batch.release(this);
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
