import type { Kysely } from 'kysely';

// Each event names who made its change (the audit trail): the actor's kind, id and name at the time,
// and the resource it is about, which the console's audit trail filters on. Events recorded before
// have none of them.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('actor_type', 'varchar(20)').execute();
  await db.schema.alterTable('events').addColumn('actor_id', 'varchar(64)').execute();
  await db.schema.alterTable('events').addColumn('actor_name', 'text').execute();
  await db.schema.alterTable('events').addColumn('resource_id', 'varchar(64)').execute();
  await db.schema.createIndex('events_resource').on('events').columns(['org_id', 'resource_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_resource').execute();
  for (const column of ['resource_id', 'actor_name', 'actor_id', 'actor_type']) await db.schema.alterTable('events').dropColumn(column).execute();
}
