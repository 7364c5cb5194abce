import type { Kysely } from 'kysely';

// The users a file import manages: each user a row of an imported file named (created or matched),
// so that the nightly sync's `--only-imported` deactivates none that SCIM or the API brought, and
// `deactivated_date` set while the sync holds one deactivated for being missing from the file:
// when the user is back in a file, the import makes it active again.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('imported_users')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('deactivated_date', 'varchar(20)')
    .addPrimaryKeyConstraint('imported_users_pkey', ['org_id', 'user_id'])
    .addForeignKeyConstraint('imported_users_user_fkey', ['org_id', 'user_id'], 'users', ['org_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('imported_users').execute();
}
