import type { Kysely } from 'kysely';
import type { Database, ScimAttributeMappingsTable } from '../../db/schema.js';
import { userfieldsRepository, type UserfieldRow } from '../userfields/userfields.repository.js';

type AttributeMappingRow = ScimAttributeMappingsTable;
/** A mapping with the userfield it feeds. */
type MappedUserfieldRow = AttributeMappingRow & { field: UserfieldRow };

export function attributeMappingsRepository(db: Kysely<Database>) {
  function list(orgId: string): Promise<AttributeMappingRow[]> {
    return db.selectFrom('scim_attribute_mappings').selectAll().where('org_id', '=', orgId).orderBy('attribute_key').execute();
  }

  return {
    list,

    /**
     * Every mapping with its userfield. Two plain queries, the second only when something is mapped:
     * every SCIM request asks, and most organizations map nothing.
     */
    async withUserfields(orgId: string): Promise<MappedUserfieldRow[]> {
      const mappings = await list(orgId);
      if (mappings.length === 0) return [];
      const fields = new Map(
        (
          await userfieldsRepository(db).findMany(
            orgId,
            mappings.map((m) => m.userfield_id),
          )
        ).map((f) => [f.id, f]),
      );
      return mappings.flatMap((mapping) => {
        const field = fields.get(mapping.userfield_id);
        return field ? [{ ...mapping, field }] : [];
      });
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
