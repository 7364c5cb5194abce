import type { Kysely } from 'kysely';

// Sandboxes: organizations the operator made to be tried out, filled with sample people, userfields,
// offerings and registrations, and reset to that sample in one action (src/sample-data/sandbox.ts).
// Only a sandbox can be reset; every organization made before is not one.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('sandbox', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organizations').dropColumn('sandbox').execute();
}
