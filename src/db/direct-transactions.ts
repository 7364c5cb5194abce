import { performance } from 'node:perf_hooks';
import {
  Transaction,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type Kysely,
  type KyselyConfig,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  type QueryResult,
} from 'kysely';
import { observedWhenSettled, type StatementObserver } from './direct-statements.js';
import type { ResilientClient } from './postgres-pool.js';

/** Runs `work` in a transaction of its own: begun before, committed after, rolled back when it fails. */
export type TransactionRunner = <T>(work: (trx: Transaction<any>) => Promise<T>) => Promise<T>;

/** The handles whose units of work run their transactions on the driver directly. */
const runners = new WeakMap<Kysely<any>, TransactionRunner>();

/** How the units of work begun on `db` itself (unit-of-work.ts) run their transaction, when not through Kysely's. */
export function transactionRunnerOf(db: Kysely<any>): TransactionRunner | undefined {
  return runners.get(db);
}

/** The connection of each transaction a runner made, by its Kysely instance (not those `withPlugin` derives from it). */
const connections = new WeakMap<Kysely<any>, DirectConnection>();

/**
 * The statement runner of the transaction `db` is, when a direct runner made it: the statements
 * compiled once (compiled.ts) go straight to its connection, as reads outside transactions go to
 * the pool (direct-statements.ts).
 */
export function transactionConnectionOf(db: Kysely<any>): DirectConnection | undefined {
  return connections.get(db);
}

/**
 * A Transaction never reaches its driver (it refuses `transaction`, `connection` and `destroy`);
 * Kysely asks for one all the same.
 */
const NO_DRIVER: Driver = {
  init: () => Promise.resolve(),
  acquireConnection: refuse,
  beginTransaction: refuse,
  commitTransaction: refuse,
  rollbackTransaction: refuse,
  releaseConnection: refuse,
  destroy: refuse,
};
function refuse(): Promise<never> {
  return Promise.reject(new Error('A transaction run on the driver directly has no driver of its own'));
}

/**
 * From now on, the units of work begun on `db` run their transactions on the pool's connection itself, without Kysely's executor: one connection
 * checked out of `pool` (the same wrapper, named statements, broken-connection handling and read
 * routing as Kysely's path), `begin`, the work, `commit` (or `rollback` when the work or the commit
 * failed), each sent straight to it, and the connection released. The work gets a Kysely
 * Transaction whose statements go to that connection: the ones built by Kysely through its
 * compiler and plugins, the ones compiled once straight (`transactionConnectionOf`). Every statement
 * is told to `observe`, as Kysely's log is told of the others. What Kysely's transaction costs per
 * statement (its connection provider, the result transforms of its plugins, a dozen promises) is
 * left out of the units of work that take only compiled statements, as a create does.
 */
export function runTransactionsDirectly(pool: PostgresPool, db: Kysely<any>, props: { config: KyselyConfig; observe?: StatementObserver }): void {
  runners.set(db, async (work) => {
    const connection = new DirectConnection(await pool.connect(), props.observe);
    const trx = new Transaction<any>({
      config: props.config,
      dialect: props.config.dialect,
      driver: NO_DRIVER,
      executor: db.getExecutor().withConnectionProvider({ provideConnection: (consumer) => consumer(connection) }),
    });
    connections.set(trx, connection);
    let begun = false;
    try {
      const result = await afterBegin(
        connection,
        () => work(trx),
        () => (begun = true),
      );
      await connection.query('commit', []);
      connection.end('committed');
      return result;
    } catch (error) {
      if (begun) {
        await connection.query('rollback', []);
        connection.end('rolled back');
      }
      throw error;
    } finally {
      connection.release();
    }
  });
}

/**
 * `work`'s result, a BEGIN sent before it (`begun` called once it is answered). Pipelined, the
 * work's first statement goes out with the BEGIN; otherwise the BEGIN is answered first.
 */
async function afterBegin<T>(connection: DirectConnection, work: () => Promise<T>, begun: () => void): Promise<T> {
  const pipelined = connection.beginPipelined();
  if (!pipelined) {
    await connection.query('begin', []);
    begun();
    return work();
  }
  const began = pipelined.then(
    () => true,
    () => false,
  );
  const done = work();
  // Answered below, once the BEGIN's outcome is known: not an unhandled rejection meanwhile.
  done.catch(() => undefined);
  if (!(await began)) {
    // A failed BEGIN fails the statements behind it, answered before the connection goes back; its
    // own error is the one that tells why.
    await done.catch(() => undefined);
    return pipelined.then(() => done);
  }
  begun();
  return done;
}

/**
 * A transaction's connection. Its statements run one after the other, as on Kysely's connection of
 * a transaction: one sent while another runs waits for it, unless the connection pipelines (then
 * they are sent at once, and answered in order).
 */
export class DirectConnection implements DatabaseConnection {
  #running: Promise<unknown> | undefined;
  #pipelined = false;
  #ended: string | undefined;

  constructor(
    private readonly client: PostgresPoolClient,
    private readonly observe: StatementObserver | undefined,
  ) {}

  /** `begin` sent without waiting for its answer, when the pool's connection can (postgres-pool.ts); else undefined. */
  beginPipelined(): Promise<PostgresQueryResult<object>> | undefined {
    const client = this.client as PostgresPoolClient & Partial<Pick<ResilientClient, 'beginPipelined'>>;
    const started = this.observe && performance.now();
    const begin = client.beginPipelined?.();
    if (!begin) return undefined;
    this.#pipelined = true;
    return this.observe ? observedWhenSettled(this.observe, 'begin', started!, begin) : begin;
  }

  /** Runs `sql` on the transaction's connection once the statement running (if any) is done. */
  query(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<object>> {
    if (this.#pipelined) return this.#send(sql, parameters);
    const running = this.#running;
    if (running) {
      const next = () => this.query(sql, parameters);
      return running.then(next, next);
    }
    const sent = this.#send(sql, parameters);
    this.#running = sent;
    const done = () => {
      if (this.#running === sent) this.#running = undefined;
    };
    sent.then(done, done);
    return sent;
  }

  #send(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<object>> {
    if (this.#ended) return Promise.reject(new Error(`Transaction is already ${this.#ended}`));
    if (!this.observe) return this.client.query<object>(sql, parameters);
    return observedWhenSettled(this.observe, sql, performance.now(), this.client.query<object>(sql, parameters));
  }

  /** As Kysely's PostgreSQL connection answers. */
  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return this.query(compiledQuery.sql, compiledQuery.parameters).then(({ command, rowCount, rows }) => ({
      numAffectedRows: command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE' ? BigInt(rowCount) : undefined,
      rows: (rows ?? []) as R[],
    }));
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported');
  }

  end(how: string): void {
    this.#ended = how;
  }

  release(): void {
    this.client.release();
  }
}
