import type { Kysely } from 'kysely';
import type { Database, ScimAttributeMappingsTable, UserfieldsTable } from '../../db/schema.js';

export type AttributeMappingRow = ScimAttributeMappingsTable;
/** A mapping with the userfield it feeds. */
export type MappedUserfieldRow = AttributeMappingRow & { field: UserfieldsTable };

export function attributeMappingsRepository(db: Kysely<Database>) {
  return {
    list(orgId: string): Promise<AttributeMappingRow[]> {
      return db.selectFrom('scim_attribute_mappings').selectAll().where('org_id', '=', orgId).orderBy('attribute_key').execute();
    },

    /** Every mapping with its userfield, in one query (a SCIM request needs them all to read or write a user). */
    async withUserfields(orgId: string): Promise<MappedUserfieldRow[]> {
      const rows = await db
        .selectFrom('scim_attribute_mappings as m')
        .innerJoin('userfields as f', (join) => join.onRef('f.org_id', '=', 'm.org_id').onRef('f.id', '=', 'm.userfield_id'))
        .selectAll('f')
        .select(['m.attribute', 'm.attribute_key', 'm.userfield_id', 'm.created_date as mapped_date'])
        .where('m.org_id', '=', orgId)
        .orderBy('m.attribute_key')
        .execute();
      return rows.map(({ attribute, attribute_key, userfield_id, mapped_date, ...field }) => ({
        org_id: orgId,
        attribute,
        attribute_key,
        userfield_id,
        created_date: mapped_date,
        field,
      }));
    },

    async save(row: AttributeMappingRow): Promise<void> {
      await db
        .insertInto('scim_attribute_mappings')
        .values(row)
        .onConflict((conflict) =>
          conflict.columns(['org_id', 'attribute_key']).doUpdateSet((eb) => ({
            attribute: eb.ref('excluded.attribute'),
            userfield_id: eb.ref('excluded.userfield_id'),
          })),
        )
        .execute();
    },

    async delete(orgId: string, attributeKeys: readonly string[]): Promise<void> {
      if (attributeKeys.length === 0) return;
      await db.deleteFrom('scim_attribute_mappings').where('org_id', '=', orgId).where('attribute_key', 'in', attributeKeys).execute();
    },
  };
}
