import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import type { DatabaseLimits } from './options.js';
import { isBrokenConnection } from './faults.js';
import { type HostLocator, locatedClient } from './postgres-hosts.js';
import { preparedName } from './prepared-statements.js';

/** What the PostgreSQL pool tells about its connections (pg.Pool's counts), read by the metrics. */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

interface PostgresPoolOptions {
  /** Where to connect: the host in use, found again after a failover. */
  locator: HostLocator;
  size: number;
  /** Schema to work in (search_path). */
  schema?: string;
  /** false: commits do not wait for their WAL to reach the disk (synchronous_commit=off). */
  synchronousCommit?: boolean;
  limits?: Partial<DatabaseLimits>;
  /** Told of every error of a connection outside a query (the server ended it, the network dropped). */
  onConnectionError?: (error: Error) => void;
  /**
   * Connections go through a pooler in transaction mode (PgBouncer): no startup parameters, which it
   * refuses; the server's own timeouts then come from the role's settings (docs/deploy.md).
   */
  transactionPooler?: boolean;
  /** The hot statements go as named (prepared) statements (prepared-statements.ts); off behind a pooler that cannot keep them. */
  preparedStatements?: boolean;
}

/**
 * How much longer than the server's statement_timeout the client waits for an answer: beyond it
 * the server is not answering at all (frozen, or the network silently dropped), and the
 * connection is abandoned.
 */
const UNANSWERED_GRACE_MS = 1000;

/** PgBouncer's refusal of a startup parameter, which PostgreSQL itself never sends. */
const POOLER_REFUSAL = /^unsupported startup parameter: (\S+)/;

/**
 * A connection refused by PgBouncer for a startup parameter (statement_timeout, which DATABASE_STATEMENT_TIMEOUT
 * sends) tells what to set instead of PgBouncer's words alone; any other error as it is.
 */
function explained(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const parameter = POOLER_REFUSAL.exec(error.message)?.[1];
  if (parameter) {
    error.message =
      `${error.message}: the database is reached through PgBouncer, which refuses startup parameters; set ` +
      `DATABASE_POOL_MODE=transaction, which sends none, and give the database role its ${parameter} instead ` +
      `(docs/deploy.md, "PgBouncer in transaction mode")`;
  }
  return error;
}

/**
 * A pg pool for Kysely that survives its server. pg reports a connection that ends while idle in
 * the pool as a pool 'error', and one that ends while checked out (between the statements of a
 * transaction) as an 'error' of that client, which nothing listens to: either ends the process
 * unless heard. Both are heard here. A connection whose query failed because the connection broke
 * or stopped answering is destroyed on release instead of going back to the pool, where pg would
 * otherwise queue the next statement behind the one that never ends. Nothing more is sent on a
 * broken checkout, so a request's worst wait is one pool wait plus one statement.
 */
export function createPostgresPool(options: PostgresPoolOptions): PostgresPool & PoolCounts {
  const limits = options.limits ?? {};
  const serverTimeouts = limits.statementTimeoutMs && !options.transactionPooler;
  const { locator } = options;
  const startupSettings = [
    ...(options.schema ? [`-c search_path=${options.schema}`] : []),
    ...(options.synchronousCommit === false && !options.transactionPooler ? ['-c synchronous_commit=off'] : []),
  ];
  const pool = new pg.Pool({
    Client: locatedClient(locator),
    connectionString: locator.target.url,
    max: options.size,
    ...(startupSettings.length > 0 ? { options: startupSettings.join(' ') } : {}),
    ...(limits.connectTimeoutMs ? { connectionTimeoutMillis: limits.connectTimeoutMs } : {}),
    ...(limits.idleTimeoutMs ? { idleTimeoutMillis: limits.idleTimeoutMs } : {}),
    ...(limits.keepAliveMs ? { keepAlive: true, keepAliveInitialDelayMillis: limits.keepAliveMs } : {}),
    ...(serverTimeouts
      ? {
          statement_timeout: limits.statementTimeoutMs,
          // A transaction left open by a stuck instance would hold its row locks against every other one.
          idle_in_transaction_session_timeout: limits.statementTimeoutMs,
        }
      : {}),
    // Whatever is in between, a server that stops answering is given up on.
    ...(limits.statementTimeoutMs ? { query_timeout: limits.statementTimeoutMs + UNANSWERED_GRACE_MS } : {}),
  });
  const report = (error: Error) => options.onConnectionError?.(error);
  pool.on('connect', (client) => client.on('error', report));
  // The same errors while idle: already reported by the client's own listener above.
  pool.on('error', () => {});

  const prepared = options.preparedStatements ?? !options.transactionPooler;
  // A pooler in transaction mode is given one statement at a time, as it always was.
  const pipelined = !options.transactionPooler;
  const checkouts = new WeakMap<pg.PoolClient, ResilientClient>();
  return {
    connect: () =>
      pool.connect().then(
        (client) => {
          // One wrapper per connection for its life (a broken one is destroyed, never handed out again),
          // so that Kysely, which keeps its own connection object per client, makes none per query.
          let checkout = checkouts.get(client);
          if (!checkout) checkouts.set(client, (checkout = new ResilientClient(client, locator, prepared, pipelined)));
          return checkout;
        },
        (error: unknown) => {
          throw explained(error);
        },
      ),
    end: () => pool.end(),
    get totalCount() {
      return pool.totalCount;
    },
    get idleCount() {
      return pool.idleCount;
    },
    get waitingCount() {
      return pool.waitingCount;
    },
  };
}

/** The part of pg's client that `begin` reaches beyond its typings: its pipeline switch and socket. */
interface PipelinableClient {
  pipeline?: boolean;
  connection?: { stream?: { cork?(): void; uncork?(): void } };
}

/** A pooled connection as checked out; released destroyed when a query found the connection broken. */
export class ResilientClient implements PostgresPoolClient {
  #broken: Error | undefined;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly locator: HostLocator,
    private readonly prepared: boolean,
    private readonly pipelinable: boolean,
  ) {}

  /**
   * Sends `begin` without waiting for its answer, when the connection may pipeline: the statements
   * sent after it until the connection is released go out at once, in order, each still its own
   * exchange (pg's pipeline mode), and those sent in the same turn share one write with it. The
   * transaction's first statement thus costs no round trip of its own. A BEGIN that fails leaves no
   * transaction only when the connection itself failed, which fails every statement behind it too.
   * Undefined when the connection does not pipeline (behind a transaction pooler): then `begin` is
   * a statement like any other, to be awaited before the next.
   */
  beginPipelined(): Promise<PostgresQueryResult<object>> | undefined {
    const client = this.client as unknown as PipelinableClient;
    const stream = client.connection?.stream;
    if (!this.pipelinable || this.#broken || client.pipeline === undefined || !stream?.cork || !stream.uncork) return undefined;
    client.pipeline = true;
    stream.cork();
    process.nextTick(() => stream.uncork!());
    return this.query<object>('begin', []);
  }

  query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(sql: string | PostgresCursor<R>, parameters?: readonly unknown[]): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // Kysely passes a cursor only when the dialect is given one, and this one is not.
    if (typeof sql !== 'string') throw new Error('Streaming queries are not supported');
    // The connection is abandoned on release, which rolls back anything open on it server-side; a
    // statement sent now (the transaction's ROLLBACK) would only wait out another timeout.
    if (this.#broken) return Promise.reject(this.#broken);
    const name = this.prepared ? preparedName(sql) : undefined;
    const sent = name ? this.client.query({ name, text: sql, values: parameters as unknown[] }) : this.client.query(sql, parameters as unknown[]);
    return sent.catch((error: unknown) => {
      if (isBrokenConnection(error)) {
        this.#broken = error as Error;
        this.locator.forget();
      }
      throw error;
    }) as Promise<PostgresQueryResult<R>>;
  }

  release(): void {
    // Every statement has been answered (or the connection is destroyed): back to one at a time.
    (this.client as unknown as PipelinableClient).pipeline &&= false;
    this.client.release(this.#broken);
  }
}
