import type { Kysely } from 'kysely';
import { isPostgres } from '../locking.js';

// The console's imports: how far a running import is (its stage and rows, written by its server as it
// goes, read by whichever instance a browser asks); the files administrators uploaded, kept between
// mapping their headings and running the import, for a day at most; and what each heading meant in
// the organization's last import, to offer it again for the next file.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('import_jobs').addColumn('progress', 'text').execute();

  await db.schema
    .createTable('import_uploads')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('format', 'varchar(8)', (c) => c.notNull())
    .addColumn('bytes', isPostgres(db) ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('uploaded_by', 'varchar(32)', (c) => c.notNull())
    .addColumn('options', 'text')
    .addColumn('preview_job_id', 'varchar(32)')
    .addColumn('created_date', 'varchar(24)', (c) => c.notNull())
    .addColumn('expires_date', 'varchar(24)', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_uploads_pkey', ['org_id', 'id'])
    .execute();
  await db.schema.createIndex('import_uploads_expiry').on('import_uploads').column('expires_date').execute();

  await db.schema
    .createTable('import_mappings')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('heading', 'varchar(255)', (c) => c.notNull())
    .addColumn('target', 'varchar(64)')
    .addColumn('updated_date', 'varchar(24)', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_mappings_pkey', ['org_id', 'heading'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_mappings').execute();
  await db.schema.dropTable('import_uploads').execute();
  await db.schema.alterTable('import_jobs').dropColumn('progress').execute();
}
