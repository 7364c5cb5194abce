import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { isBrokenConnection } from './faults.js';
import type { PoolCounts } from './postgres-pool.js';
import type { ReadReplicas, Replica } from './read-replicas.js';
import { currentReadRoute } from './read-routing.js';

/**
 * The pool Kysely sees when read replicas are configured: a connection from a replica when the code
 * asking for it runs on a replica route (read-routing.ts) and a replica qualifies, else from the
 * primary. Counts are the primary's: the writes wait there.
 */
export function createRoutingPool(primary: PostgresPool & PoolCounts, replicas: ReadReplicas): PostgresPool & PoolCounts {
  return {
    async connect() {
      const route = currentReadRoute();
      const replica = route?.replica ? replicas.pick(route.minLsn) : undefined;
      if (!replica) return primary.connect();
      try {
        return new ReplicaClient(await replica.pool.connect(), replica, replicas, primary);
      } catch {
        replicas.markDown(replica);
        return primary.connect();
      }
    },
    end: () => primary.end(),
    get totalCount() {
      return primary.totalCount;
    },
    get idleCount() {
      return primary.idleCount;
    },
    get waitingCount() {
      return primary.waitingCount;
    },
  };
}

/** SQLSTATE of a write attempted on a standby ("cannot execute ... in a read-only transaction"). */
const READ_ONLY_TRANSACTION = '25006';

/**
 * A replica's connection that moves to the primary when the replica goes away, or when a statement
 * turns out to write (a standby refuses it, and has therefore written nothing): the statements sent
 * so far are sent again on the primary, so the request is served instead of failing. Its reads
 * before the move may then come from another snapshot than those after it, which only a request
 * that met a replica's death or wrote from a GET can see.
 */
class ReplicaClient implements PostgresPoolClient {
  #client: PostgresPoolClient;
  #onReplica = true;
  #sent: { sql: string; parameters: readonly unknown[] }[] = [];

  constructor(
    client: PostgresPoolClient,
    private readonly replica: Replica,
    private readonly replicas: ReadReplicas,
    private readonly primary: PostgresPool,
  ) {
    this.#client = client;
  }

  query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(sql: string | PostgresCursor<R>, parameters?: readonly unknown[]): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sql !== 'string') throw new Error('Streaming queries are not supported');
    return this.#query<R>(sql, parameters ?? []);
  }

  async #query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>> {
    if (!this.#onReplica) return this.#client.query<R>(sql, parameters);
    try {
      const result = await this.#client.query<R>(sql, parameters);
      this.#sent.push({ sql, parameters });
      return result;
    } catch (error) {
      const broken = isBrokenConnection(error);
      if (!broken && (error as { code?: string }).code !== READ_ONLY_TRANSACTION) throw error;
      if (broken) this.replicas.markDown(this.replica);
      // A write refused by the replica aborts the transaction open there: end it before the connection goes
      // back to the pool, or the next request given it would have every statement refused.
      else await this.#client.query('rollback', []).catch(() => undefined);
      this.#client.release();
      this.#client = await this.primary.connect();
      this.#onReplica = false;
      for (const statement of this.#sent) await this.#client.query(statement.sql, statement.parameters);
      return this.#client.query<R>(sql, parameters);
    }
  }

  release(): void {
    this.#client.release();
  }
}
