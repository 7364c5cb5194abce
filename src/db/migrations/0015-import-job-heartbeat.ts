import type { Kysely } from 'kysely';

// A running import job's server stamps it every few seconds: a job whose stamp is old lost its server
// (killed, or its machine gone), and GET /imports/{id} reports it failed instead of running forever.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('import_jobs').addColumn('heartbeat_date', 'varchar(30)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('import_jobs').dropColumn('heartbeat_date').execute();
}
