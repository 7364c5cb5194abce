import { PostgresAdapter, type Kysely } from 'kysely';

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Locks the selected rows until the transaction ends, so concurrent read-modify-write sequences
 * (dense orderIndex, status changes) serialize. PostgreSQL needs `FOR UPDATE`; SQLite transactions
 * are already exclusive (`BEGIN IMMEDIATE`, one writer at a time), and reject the clause.
 */
export function forUpdate<Q extends { forUpdate(): Q }>(db: Kysely<any>, query: Q): Q {
  return isPostgres(db) ? query.forUpdate() : query;
}
