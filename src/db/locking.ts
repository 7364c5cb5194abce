import { PostgresAdapter, type Kysely } from 'kysely';
import type { Database } from './schema.js';

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

/**
 * Like `forUpdate`, for rows a transaction reads and relies on without changing them: other
 * transactions may share the lock, but none can update or delete the rows until it ends.
 */
export function forShare<Q extends { forShare(): Q }>(db: Kysely<any>, query: Q): Q {
  return isPostgres(db) ? query.forShare() : query;
}

/** Tables of items keyed by (org_id, id) that a conditional write locks by their row. */
type RowLockedTable = 'users' | 'registrations' | 'webhooks';

/** Locks one item's row until the transaction ends; whether there is such an item (nothing locked when not). */
export async function lockRow(trx: Kysely<Database>, table: RowLockedTable, orgId: string, id: string): Promise<boolean> {
  const query = trx.selectFrom(table).select('id').where('org_id', '=', orgId).where('id', '=', id);
  return (await forUpdate(trx, query).executeTakeFirst()) !== undefined;
}

/**
 * Locks a user's row until the transaction ends; undefined when the organization has no such user.
 * Rows that hang on the user, written afterwards in the same transaction, then cannot race the
 * user's deletion into a foreign-key error.
 */
export async function lockUser(trx: Kysely<Database>, orgId: string, userId: string): Promise<{ active: boolean } | undefined> {
  const query = trx.selectFrom('users').select('active').where('org_id', '=', orgId).where('id', '=', userId);
  const row = await forUpdate(trx, query).executeTakeFirst();
  return row && { active: Boolean(row.active) }; // SQLite reads booleans back as 0/1
}
