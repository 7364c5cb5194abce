import type { Kysely } from 'kysely';
import { isPostgres } from '../db/locking.js';
import type { Database } from '../db/schema.js';
import { unnestedInsert } from '../db/unnested-inserts.js';

/** `record` on PostgreSQL: one statement whatever the count of users. */
const recordUsers = unnestedInsert(
  'imported_users',
  ['org_id', 'user_id', 'deactivated_date'],
  'on conflict ("org_id", "user_id") do update set "deactivated_date" = $4',
);

/** The users the imports of an organization manage (migration 0013). */
export function importedUsersRepository(db: Kysely<Database>) {
  /** Records the users as managed, deactivated by the sync at `deactivatedDate` or (null) not. */
  async function record(orgId: string, userIds: readonly string[], deactivatedDate: string | null): Promise<void> {
    if (userIds.length === 0) return;
    const rows = userIds.map((user_id) => ({ org_id: orgId, user_id, deactivated_date: deactivatedDate }));
    if (isPostgres(db)) return recordUsers(db, rows, deactivatedDate);
    await db
      .insertInto('imported_users')
      .values(rows)
      .onConflict((conflict) => conflict.columns(['org_id', 'user_id']).doUpdateSet({ deactivated_date: deactivatedDate }))
      .execute();
  }

  return {
    /** Every managed user's id, with whether the sync holds it deactivated. */
    async all(orgId: string): Promise<Map<string, { deactivated: boolean }>> {
      const rows = await db.selectFrom('imported_users').select(['user_id', 'deactivated_date']).where('org_id', '=', orgId).execute();
      return new Map(rows.map((row) => [row.user_id, { deactivated: row.deactivated_date !== null }]));
    },

    async manage(orgId: string, userIds: readonly string[]): Promise<void> {
      await record(orgId, userIds, null);
    },

    async markDeactivated(orgId: string, userIds: readonly string[], at: string): Promise<void> {
      await record(orgId, userIds, at);
    },
  };
}
