import type { Kysely } from 'kysely';
import type { Database, SessionsTable, UsersTable } from '../db/schema.js';
import { withBooleans, type Row } from '../db/rows.js';

export type SessionRow = SessionsTable;

/** A session with what every page needs of its person. */
export type SessionWithUser = SessionRow &
  Row<Pick<UsersTable, 'email' | 'first_name' | 'last_name' | 'locale' | 'account_type' | 'active' | 'sessions_valid_after'>>;

export function sessionsRepository(db: Kysely<Database>) {
  return {
    async insert(row: SessionRow): Promise<void> {
      await db.insertInto('sessions').values(row).execute();
    },

    async find(orgId: string, id: string): Promise<SessionWithUser | undefined> {
      const row = await db
        .selectFrom('sessions')
        .innerJoin('users', (join) => join.onRef('users.org_id', '=', 'sessions.org_id').onRef('users.id', '=', 'sessions.user_id'))
        .selectAll('sessions')
        .select([
          'users.email',
          'users.first_name',
          'users.last_name',
          'users.locale',
          'users.account_type',
          'users.active',
          'users.sessions_valid_after',
        ])
        .where('sessions.org_id', '=', orgId)
        .where('sessions.id', '=', id)
        .executeTakeFirst();
      return row && withBooleans(row, ['active']);
    },

    async touch(orgId: string, id: string, at: string): Promise<void> {
      await db.updateTable('sessions').set({ last_seen_at: at }).where('org_id', '=', orgId).where('id', '=', id).execute();
    },

    async delete(orgId: string, id: string): Promise<void> {
      await db.deleteFrom('sessions').where('org_id', '=', orgId).where('id', '=', id).execute();
    },

    async deleteOfUser(orgId: string, userId: string): Promise<number> {
      const result = await db.deleteFrom('sessions').where('org_id', '=', orgId).where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** The sessions of every organization that ended before `at` (their absolute end; the idle end is checked on use). */
    async deleteEnded(at: string): Promise<void> {
      await db.deleteFrom('sessions').where('expires_at', '<', at).execute();
    },
  };
}
