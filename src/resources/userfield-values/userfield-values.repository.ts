import { sql, type Kysely, type Transaction } from 'kysely';
import { batches, findInBatches } from '../../db/batches.js';
import { isPostgres } from '../../db/locking.js';
import type { Database, UserfieldValuesTable } from '../../db/schema.js';
import { unnestedInsert } from '../../db/unnested-inserts.js';

export type UserfieldValueRow = UserfieldValuesTable;

/** `save` on PostgreSQL: every row in one statement, whatever their count. */
const saveValues = unnestedInsert(
  'userfield_values',
  ['org_id', 'user_id', 'userfield_id', 'value'],
  'on conflict ("org_id", "user_id", "userfield_id") do update set "value" = excluded."value"',
);

export function userfieldValuesRepository(db: Kysely<Database> | Transaction<Database>) {
  return {
    ofUser(orgId: string, userId: string): Promise<Pick<UserfieldValueRow, 'userfield_id' | 'value'>[]> {
      return db
        .selectFrom('userfield_values')
        .select(['userfield_id', 'value'])
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .orderBy('userfield_id')
        .execute();
    },

    /**
     * The values of several users at once (an export's page of users, the holders of a changing field, an
     * import's batch), in userfield id order. Sorted here, not by the statement: asked to order by userfield,
     * SQLite without statistics yet (an import's first run) reads every value of the organization through
     * the userfield index instead of the listed users' own.
     */
    async ofUsers(orgId: string, userIds: readonly string[]): Promise<Pick<UserfieldValueRow, 'user_id' | 'userfield_id' | 'value'>[]> {
      const rows = await findInBatches(userIds, (batch) =>
        db
          .selectFrom('userfield_values')
          .select(['user_id', 'userfield_id', 'value'])
          .where('org_id', '=', orgId)
          .where('user_id', 'in', batch)
          .execute(),
      );
      return rows.sort((a, b) => (a.userfield_id < b.userfield_id ? -1 : a.userfield_id > b.userfield_id ? 1 : 0));
    },

    ofUserfield(orgId: string, userfieldId: string): Promise<Pick<UserfieldValueRow, 'user_id' | 'value'>[]> {
      return db
        .selectFrom('userfield_values')
        .select(['user_id', 'value'])
        .where('org_id', '=', orgId)
        .where('userfield_id', '=', userfieldId)
        .execute();
    },

    /**
     * How many active users of the organization hold no value of the field (of a field not made yet: every
     * active user): those a required field of a public category asks at their next sign-in. An empty text
     * or an empty list of options is no value there either (profile.service.ts, `holdsValue`).
     */
    async countActiveUsersWithout(orgId: string, userfieldId?: string): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number | string>().as('total'))
        .where('users.org_id', '=', orgId)
        .where('users.active', '=', true)
        .$if(userfieldId !== undefined, (query) =>
          query.where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('userfield_values as v')
                  .select(sql.lit(1).as('held'))
                  .whereRef('v.org_id', '=', 'users.org_id')
                  .whereRef('v.user_id', '=', 'users.id')
                  .where('v.userfield_id', '=', userfieldId!)
                  .where('v.value', 'not in', ['""', '[]']),
              ),
            ),
          ),
        )
        .executeTakeFirstOrThrow();
      return Number(row.total);
    },

    /** Inserts or replaces each row's value. */
    async save(rows: readonly UserfieldValueRow[]): Promise<void> {
      if (isPostgres(db)) return saveValues(db, rows);
      for (const batch of batches(rows)) {
        await db
          .insertInto('userfield_values')
          .values(batch)
          .onConflict((conflict) =>
            conflict.columns(['org_id', 'user_id', 'userfield_id']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })),
          )
          .execute();
      }
    },

    /** Gives every listed user the same value of one field. */
    async setForUsers(orgId: string, userfieldId: string, userIds: readonly string[], value: string): Promise<void> {
      for (const batch of batches(userIds)) {
        await db
          .updateTable('userfield_values')
          .set({ value })
          .where('org_id', '=', orgId)
          .where('userfield_id', '=', userfieldId)
          .where('user_id', 'in', batch)
          .execute();
      }
    },

    async deleteOfUser(orgId: string, userId: string, userfieldIds: readonly string[]): Promise<void> {
      for (const batch of batches(userfieldIds)) {
        await db
          .deleteFrom('userfield_values')
          .where('org_id', '=', orgId)
          .where('user_id', '=', userId)
          .where('userfield_id', 'in', batch)
          .execute();
      }
    },

    /** Deletes the listed users' values of one field. */
    async deleteOfUsers(orgId: string, userfieldId: string, userIds: readonly string[]): Promise<void> {
      for (const batch of batches(userIds)) {
        await db
          .deleteFrom('userfield_values')
          .where('org_id', '=', orgId)
          .where('userfield_id', '=', userfieldId)
          .where('user_id', 'in', batch)
          .execute();
      }
    },
  };
}
