import type { Kysely } from 'kysely';

// An update event carries the previous values of the properties that changed (events/outbox.ts).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('previous_attributes', 'text').execute();
}
