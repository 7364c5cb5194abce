/** Settings the configuration reads and the engines apply when a database is opened. */

export type SqliteSynchronous = 'full' | 'normal';

/** Bounded waits on the database, in milliseconds. */
export interface DatabaseLimits {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  idleTimeoutMs: number;
  keepAliveMs: number;
}
