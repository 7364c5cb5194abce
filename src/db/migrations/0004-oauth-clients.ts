import type { Kysely } from 'kysely';

// OAuth 2.0 clients (client credentials grant), and the tokens issued to them, which live beside the
// other access tokens so that authenticating any bearer token stays one lookup. Portable DDL.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('last_used_date', 'varchar(20)')
    .addColumn('revoked_date', 'varchar(20)')
    .addPrimaryKeyConstraint('oauth_clients_pkey', ['org_id', 'id'])
    .execute();
  // A client names itself by its id alone at the token endpoint.
  await db.schema.createIndex('oauth_clients_id').on('oauth_clients').column('id').execute();

  await db.schema.alterTable('access_tokens').addColumn('client_id', 'varchar(32)').execute();
  await db.schema.createIndex('access_tokens_client').on('access_tokens').columns(['org_id', 'client_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('access_tokens_client').execute();
  await db.schema.alterTable('access_tokens').dropColumn('client_id').execute();
  await db.schema.dropTable('oauth_clients').execute();
}
