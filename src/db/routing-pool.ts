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

/**
 * A replica's connection that moves to the primary when the replica goes away before it answered
 * anything but BEGIN: the reads of a request are then served by the primary instead of failing.
 */
class ReplicaClient implements PostgresPoolClient {
  #client: PostgresPoolClient;
  #onReplica = true;
  /** The statements sent so far, replayed on the primary when the replica breaks before answering a read. */
  #begun: { sql: string; parameters: readonly unknown[] }[] = [];
  #answeredRead = false;

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
    try {
      const result = await this.#client.query<R>(sql, parameters);
      if (/^\s*begin\b/i.test(sql)) this.#begun.push({ sql, parameters });
      else this.#answeredRead = true;
      return result;
    } catch (error) {
      if (!this.#onReplica || this.#answeredRead || !isBrokenConnection(error)) throw error;
      this.replicas.markDown(this.replica);
      this.#client.release();
      this.#client = await this.primary.connect();
      this.#onReplica = false;
      for (const statement of this.#begun) await this.#client.query(statement.sql, statement.parameters);
      return this.#client.query<R>(sql, parameters);
    }
  }

  release(): void {
    this.#client.release();
  }
}
