import type { Kysely } from 'kysely';

// The imports sent to POST /imports: each one's options, state and outcome (its counts, or the
// file's problems), kept so that GET /imports/{id} answers after the import finished.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('import_jobs')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('summary', 'text')
    .addColumn('problems', 'text')
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('finished_date', 'varchar(20)')
    .addPrimaryKeyConstraint('import_jobs_pkey', ['org_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_jobs').execute();
}
