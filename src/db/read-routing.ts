import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type Kysely } from 'kysely';

/**
 * Where the statements of the code running now may read: a replica that has replayed at least
 * `minLsn`, or (without a route, or with `replica` false) the primary. Set per request by the read
 * routing plugin; the routing pool reads it when it hands out a connection.
 */
interface ReadRoute {
  replica: boolean;
  /** The primary's WAL position the replica must have replayed: the caller's last write, or the moment a watermark was taken. */
  minLsn: bigint;
}

const routes = new AsyncLocalStorage<ReadRoute>();

export function currentReadRoute(): ReadRoute | undefined {
  return routes.getStore();
}

/** Runs `work` with its reads allowed on a replica that has replayed `minLsn`. */
export function readingFromReplica<T>(minLsn: bigint, work: () => T): T {
  return routes.run({ replica: true, minLsn }, work);
}

/** Runs `work` against the primary whatever the route around it says. */
export function onPrimary<T>(work: () => T): T {
  return routes.run({ replica: false, minLsn: 0n }, work);
}

/** From here on, the current route reads only from a replica that has replayed `lsn`. */
export function requireReplayOf(lsn: bigint): void {
  const route = routes.getStore();
  if (route && lsn > route.minLsn) route.minLsn = lsn;
}

/** PostgreSQL's text form of a WAL position (`16/B374D848`) as a number. */
export function parseLsn(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** The statement that tells the primary's WAL position: everything committed so far lies before it. */
export const CURRENT_LSN_SQL = 'select pg_current_wal_insert_lsn()::text as lsn';

/** The primary's WAL position now. */
export async function primaryLsn(db: Kysely<any>): Promise<bigint> {
  const { rows } = await onPrimary(() => sql<{ lsn: string }>`select pg_current_wal_insert_lsn()::text as lsn`.execute(db));
  return parseLsn(rows[0]!.lsn);
}
