import type { PostgresPool } from 'kysely';
import { hostName, type PostgresHost } from './postgres-hosts.js';
import { CURRENT_LSN_SQL, parseLsn } from './read-routing.js';

/** How often the primary's position and each replica's replay are read. */
const WATCH_INTERVAL_MS = 200;

/** What /readyz and /metrics say of a replica. */
export interface ReplicaState {
  host: string;
  up: boolean;
  /** Seconds the replica is behind: since the oldest write of the primary it has not replayed; null while down. */
  lagSeconds: number | null;
}

interface Replica {
  host: PostgresHost;
  pool: PostgresPool;
  up: boolean;
  /** The last WAL position it was seen to have replayed. */
  replayed: bigint;
  lagMs: number;
}

async function readLsn(pool: PostgresPool, text: string): Promise<bigint> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ lsn: string | null }>(text, []);
    return parseLsn(rows[0]?.lsn ?? '0/0');
  } finally {
    client.release();
  }
}

/** A standby tells its replay position; a server that is not in recovery, its own. */
const REPLAYED_LSN_SQL = 'select (case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_insert_lsn() end)::text as lsn';

/**
 * The read replicas and how far each has replayed the primary's WAL. Every WATCH_INTERVAL_MS the
 * primary's position is sampled; a replica's lag is the time since the oldest sample it has not
 * replayed yet (0 when it has replayed them all, so a quiet primary never makes a replica look late).
 * A replica that does not answer is down until it answers again.
 */
export class ReadReplicas {
  readonly #replicas: Replica[];
  /** The primary's positions over the last while, oldest first. */
  #samples: { at: number; lsn: bigint }[] = [];
  #next = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly primary: PostgresPool,
    replicas: { host: PostgresHost; pool: PostgresPool }[],
    private readonly maxLagMs: number,
  ) {
    this.#replicas = replicas.map((replica) => ({ ...replica, up: false, replayed: 0n, lagMs: Infinity }));
  }

  /** Starts watching; resolves after the first round, so the replicas serve as soon as the server does. */
  async start(): Promise<void> {
    await this.#watch();
    const tick = (): void => {
      this.#timer = setTimeout(() => void this.#watch().finally(tick), WATCH_INTERVAL_MS).unref();
    };
    tick();
  }

  /**
   * A replica that has replayed `minLsn` and lags no more than allowed, taken in turn; undefined
   * when none qualifies, and the primary serves.
   */
  pick(minLsn: bigint): Replica | undefined {
    const count = this.#replicas.length;
    for (let i = 0; i < count; i += 1) {
      const replica = this.#replicas[(this.#next + i) % count]!;
      if (replica.up && replica.lagMs <= this.maxLagMs && replica.replayed >= minLsn) {
        this.#next = (this.#next + i + 1) % count;
        return replica;
      }
    }
    return undefined;
  }

  /** A connection to it failed: skipped until the watch sees it answer again. */
  markDown(replica: Replica): void {
    replica.up = false;
  }

  /** Whether every replica that answers has replayed `lsn` (a client's write no longer needs the primary). */
  allReplayed(lsn: bigint): boolean {
    return this.#replicas.every((replica) => !replica.up || replica.replayed >= lsn);
  }

  states(): ReplicaState[] {
    return this.#replicas.map((replica) => ({
      host: hostName(replica.host),
      up: replica.up,
      lagSeconds: replica.up && Number.isFinite(replica.lagMs) ? replica.lagMs / 1000 : null,
    }));
  }

  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await Promise.all(this.#replicas.map((replica) => replica.pool.end?.()));
  }

  async #watch(): Promise<void> {
    const at = performance.now();
    try {
      this.#samples.push({ at, lsn: await readLsn(this.primary, CURRENT_LSN_SQL) });
    } catch {
      // The primary is away: the replicas' lag is measured against the last position known.
    }
    await Promise.all(
      this.#replicas.map(async (replica) => {
        try {
          replica.replayed = await readLsn(replica.pool, REPLAYED_LSN_SQL);
          replica.up = true;
        } catch {
          replica.up = false;
        }
      }),
    );
    const now = performance.now();
    for (const replica of this.#replicas) {
      const behind = this.#samples.find((sample) => sample.lsn > replica.replayed);
      replica.lagMs = behind ? now - behind.at : 0;
    }
    // A sample every replica has replayed tells nothing more, nor one older than twice the bound (a replica
    // behind it is skipped either way); the newest stays for the next comparison.
    const stale = (sample: { at: number; lsn: bigint }) =>
      now - sample.at > 2 * this.maxLagMs || this.#replicas.every((replica) => replica.replayed >= sample.lsn);
    while (this.#samples.length > 1 && stale(this.#samples[0]!)) this.#samples.shift();
  }
}

export type { Replica };
