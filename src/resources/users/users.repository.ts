import type { Kysely, Transaction } from 'kysely';
import { containsText, hasWord, pageWindow, withinRange } from '../../db/filters.js';
import type { Database, UsersTable } from '../../db/schema.js';
import type { DateRange } from '../../lib/date-filter.js';
import type { Paging } from '../../lib/paging.js';

export type UserRow = UsersTable;

/** What a response shows; the password hash and lookup keys never leave the database on a read. */
const VISIBLE_COLUMNS = ['id', 'first_name', 'last_name', 'username', 'email', 'locale', 'tags', 'created_date', 'last_login_date'] as const;
export type VisibleUserRow = Pick<UserRow, (typeof VISIBLE_COLUMNS)[number]>;
export type UserPatch = Partial<Omit<UserRow, 'org_id' | 'id' | 'created_date'>>;

export interface UserFilters {
  emailKey?: string;
  firstName?: string;
  lastName?: string;
  username?: string;
  tags?: string[];
  createdDate?: DateRange;
  lastLoginDate?: DateRange;
}

export function usersRepository(db: Kysely<Database> | Transaction<Database>) {
  return {
    /** Up to `limit + 1` users in creation order, so the caller can tell whether a next page exists. */
    list(orgId: string, filters: UserFilters, paging: Paging): Promise<VisibleUserRow[]> {
      let query = db.selectFrom('users').select(VISIBLE_COLUMNS).where('org_id', '=', orgId);
      if (filters.emailKey !== undefined) query = query.where('email_key', '=', filters.emailKey);
      if (filters.firstName !== undefined) query = query.where(containsText('first_name', filters.firstName));
      if (filters.lastName !== undefined) query = query.where(containsText('last_name', filters.lastName));
      if (filters.username !== undefined) query = query.where(containsText('username', filters.username));
      for (const tag of filters.tags ?? []) query = query.where(hasWord('tags', tag));
      if (filters.createdDate) query = query.where(withinRange('created_date', filters.createdDate));
      if (filters.lastLoginDate) query = query.where(withinRange('last_login_date', filters.lastLoginDate));
      return query
        .orderBy('created_date')
        .orderBy('id')
        .$call((q) => pageWindow(q, paging))
        .execute();
    },

    find(orgId: string, id: string): Promise<VisibleUserRow | undefined> {
      return db.selectFrom('users').select(VISIBLE_COLUMNS).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    },

    /** Ids of the users other than `exceptId` that hold this email or username key. */
    findConflicts(orgId: string, keys: { emailKey?: string; usernameKey?: string }, exceptId?: string) {
      return db
        .selectFrom('users')
        .select(['id', 'email_key', 'username_key'])
        .where('org_id', '=', orgId)
        .where((eb) =>
          eb.or([
            ...(keys.emailKey ? [eb('email_key', '=', keys.emailKey)] : []),
            ...(keys.usernameKey ? [eb('username_key', '=', keys.usernameKey)] : []),
          ]),
        )
        .$if(exceptId !== undefined, (q) => q.where('id', '!=', exceptId!))
        .execute();
    },

    async insert(row: UserRow): Promise<void> {
      await db.insertInto('users').values(row).execute();
    },

    async update(orgId: string, id: string, patch: UserPatch): Promise<boolean> {
      const result = await db.updateTable('users').set(patch).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async delete(orgId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('users').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
