import type { Kysely } from 'kysely';

// The email addresses a SCIM client gave a user beyond its v5 `email` (the primary one), and the type
// it gave the primary one when not `work`: a JSON list of {value, type, primary}, so that a second
// address or a `home` one comes back as it was sent instead of being dropped or relabelled.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scim_user_emails')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('emails', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('scim_user_emails_pkey', ['org_id', 'user_id'])
    .addForeignKeyConstraint('scim_user_emails_user_fkey', ['org_id', 'user_id'], 'users', ['org_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scim_user_emails').execute();
}
