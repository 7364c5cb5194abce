import type { Kysely } from 'kysely';
import { hasWord } from '../../db/filters.js';
import { forUpdate } from '../../db/locking.js';
import type { Database } from '../../db/schema.js';
import type { ChangeTime } from '../../db/unit-of-work.js';
import { VISIBLE_COLUMNS, visibleUser, type VisibleUserRow } from '../../resources/users/users.repository.js';
import type { Condition } from '../filter.js';

/**
 * Reads for the SCIM surface, and the tag writes of group membership; its other writes go through
 * the users and userfield values services.
 */
export function scimUsersRepository(db: Kysely<Database>) {
  function matching(orgId: string, condition: Condition) {
    return db.selectFrom('users').where('users.org_id', '=', orgId).where(condition);
  }

  return {
    /** One page in creation order (stable, so startIndex pages never overlap). `offset` counts from 0. */
    list(orgId: string, condition: Condition, offset: number, count: number): Promise<VisibleUserRow[]> {
      return matching(orgId, condition)
        .select(VISIBLE_COLUMNS)
        .orderBy('created_date')
        .orderBy('id')
        .limit(count)
        .offset(offset)
        .execute()
        .then((rows) => rows.map(visibleUser));
    },

    async count(orgId: string, condition: Condition): Promise<number> {
      const row = await matching(orgId, condition)
        .select((eb) => eb.fn.countAll<number | string>().as('total'))
        .executeTakeFirstOrThrow();
      return Number(row.total);
    },

    async find(orgId: string, id: string): Promise<VisibleUserRow | undefined> {
      const row = await db.selectFrom('users').select(VISIBLE_COLUMNS).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return row && visibleUser(row);
    },

    /** The values of the given userfields held by the given users. */
    async values(orgId: string, userIds: readonly string[], userfieldIds: readonly string[]) {
      if (userIds.length === 0 || userfieldIds.length === 0) return [];
      return db
        .selectFrom('userfield_values')
        .select(['user_id', 'userfield_id', 'value'])
        .where('org_id', '=', orgId)
        .where('user_id', 'in', userIds)
        .where('userfield_id', 'in', userfieldIds)
        .execute();
    },

    /** The users' ids, names and tags, in creation order, for groups' member lists. */
    async members(orgId: string, condition: Condition) {
      return matching(orgId, condition).select(['id', 'username', 'email', 'tags']).orderBy('created_date').orderBy('id').execute();
    },

    /** The listed users (at most a statement's batch), in id order, their rows locked until the transaction ends. */
    async lock(orgId: string, ids: readonly string[]): Promise<VisibleUserRow[]> {
      if (ids.length === 0) return [];
      const query = db.selectFrom('users').select(VISIBLE_COLUMNS).where('org_id', '=', orgId).where('id', 'in', ids).orderBy('id');
      return (await forUpdate(db, query).execute()).map(visibleUser);
    },

    /** Up to `limit` users carrying `tag`, in id order after `afterId`, their rows locked until the transaction ends. */
    async lockWithTag(orgId: string, tag: string, afterId: string, limit: number): Promise<VisibleUserRow[]> {
      const query = db
        .selectFrom('users')
        .select(VISIBLE_COLUMNS)
        .where('org_id', '=', orgId)
        .where(hasWord('tags', tag))
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit);
      return (await forUpdate(db, query).execute()).map(visibleUser);
    },

    /** Gives the listed users the same tags column. */
    async setTags(orgId: string, ids: readonly string[], tags: string | null, updatedDate: ChangeTime): Promise<void> {
      await db.updateTable('users').set({ tags, updated_date: updatedDate }).where('org_id', '=', orgId).where('id', 'in', ids).execute();
    },

    /** The email lists stored for the given users (those whose SCIM emails are more than the v5 email). */
    async emails(orgId: string, userIds: readonly string[]): Promise<{ user_id: string; emails: string }[]> {
      if (userIds.length === 0) return [];
      return db.selectFrom('scim_user_emails').select(['user_id', 'emails']).where('org_id', '=', orgId).where('user_id', 'in', userIds).execute();
    },

    /** Stores a user's email list, or forgets it (`null`: the v5 email says everything). */
    async setEmails(orgId: string, userId: string, emails: string | null): Promise<void> {
      if (emails === null) {
        await db.deleteFrom('scim_user_emails').where('org_id', '=', orgId).where('user_id', '=', userId).execute();
        return;
      }
      await db
        .insertInto('scim_user_emails')
        .values({ org_id: orgId, user_id: userId, emails })
        .onConflict((conflict) => conflict.columns(['org_id', 'user_id']).doUpdateSet({ emails }))
        .execute();
    },

    /** The tags of the given users. */
    async tags(orgId: string, userIds: readonly string[]) {
      if (userIds.length === 0) return [];
      return db.selectFrom('users').select(['id', 'tags']).where('org_id', '=', orgId).where('id', 'in', userIds).execute();
    },
  };
}
