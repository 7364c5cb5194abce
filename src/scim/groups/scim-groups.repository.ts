import type { Kysely } from 'kysely';
import type { Database, ScimGroupsTable } from '../../db/schema.js';
import type { Condition } from '../filter.js';

export type ScimGroupRow = ScimGroupsTable;
type ScimGroupPatch = Partial<Omit<ScimGroupRow, 'org_id' | 'id' | 'created_date'>>;

export function scimGroupsRepository(db: Kysely<Database>) {
  function matching(orgId: string, condition: Condition) {
    return db.selectFrom('scim_groups').where('scim_groups.org_id', '=', orgId).where(condition);
  }

  return {
    list(orgId: string, condition: Condition, offset: number, count: number): Promise<ScimGroupRow[]> {
      return matching(orgId, condition).selectAll().orderBy('created_date').orderBy('id').limit(count).offset(offset).execute();
    },

    async count(orgId: string, condition: Condition): Promise<number> {
      const row = await matching(orgId, condition)
        .select((eb) => eb.fn.countAll<number | string>().as('total'))
        .executeTakeFirstOrThrow();
      return Number(row.total);
    },

    find(orgId: string, id: string): Promise<ScimGroupRow | undefined> {
      return db.selectFrom('scim_groups').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    },

    /** The groups whose tags are among `tagKeys` (a user's groups). */
    async withTagKeys(orgId: string, tagKeys: readonly string[]): Promise<Pick<ScimGroupRow, 'id' | 'display_name' | 'tag_key'>[]> {
      if (tagKeys.length === 0) return [];
      return db
        .selectFrom('scim_groups')
        .select(['id', 'display_name', 'tag_key'])
        .where('org_id', '=', orgId)
        .where('tag_key', 'in', tagKeys)
        .orderBy('display_name')
        .execute();
    },

    /** Group id → tag, for the ids that name groups. */
    async tagsOf(orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await db.selectFrom('scim_groups').select(['id', 'tag']).where('org_id', '=', orgId).where('id', 'in', ids).execute();
      return new Map(rows.map((row) => [row.id, row.tag]));
    },

    async insert(row: ScimGroupRow): Promise<void> {
      await db.insertInto('scim_groups').values(row).execute();
    },

    async update(orgId: string, id: string, patch: ScimGroupPatch): Promise<void> {
      await db.updateTable('scim_groups').set(patch).where('org_id', '=', orgId).where('id', '=', id).execute();
    },

    async delete(orgId: string, id: string): Promise<void> {
      await db.deleteFrom('scim_groups').where('org_id', '=', orgId).where('id', '=', id).execute();
    },
  };
}
