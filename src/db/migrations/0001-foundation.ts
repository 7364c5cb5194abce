import type { Kysely } from 'kysely';

// Portable DDL only: the same migration runs on SQLite and PostgreSQL. Every key starts with org_id.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('access_tokens')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('last_used_date', 'varchar(20)')
    .addColumn('expires_date', 'varchar(20)')
    .addColumn('revoked_date', 'varchar(20)')
    .addPrimaryKeyConstraint('access_tokens_pkey', ['org_id', 'id'])
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('username', 'text')
    .addColumn('username_key', 'text')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('locale', 'varchar(16)')
    .addColumn('tags', 'text')
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('last_login_date', 'varchar(20)')
    .addPrimaryKeyConstraint('users_pkey', ['org_id', 'id'])
    .addUniqueConstraint('users_email_key', ['org_id', 'email_key'])
    .addUniqueConstraint('users_username_key', ['org_id', 'username_key'])
    .execute();

  await db.schema.createIndex('users_created').on('users').columns(['org_id', 'created_date', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('users').execute();
  await db.schema.dropTable('access_tokens').execute();
  await db.schema.dropTable('organizations').execute();
}
