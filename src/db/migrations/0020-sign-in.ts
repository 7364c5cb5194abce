import type { Kysely } from 'kysely';

// People sign in: their sessions, the one-time links of a forgotten password, the OpenID Connect provider's
// state (codes, tokens, its own sessions, interactions), the server's keys (ID token signing, cookie signing),
// and the redirect URIs of the OAuth clients that sign people in. Everything lives in the database, so that
// any instance serves any request. Portable DDL.
export async function up(db: Kysely<any>): Promise<void> {
  // A session cookie holds a random secret; the row holds its SHA-256 only.
  await db.schema
    .createTable('sessions')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(24)', (c) => c.notNull())
    .addColumn('last_seen_at', 'varchar(24)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(24)', (c) => c.notNull())
    .addColumn('address', 'varchar(64)')
    .addColumn('user_agent', 'text')
    .addPrimaryKeyConstraint('sessions_pkey', ['org_id', 'id'])
    .addForeignKeyConstraint('sessions_user', ['org_id', 'user_id'], 'users', ['org_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').columns(['org_id', 'user_id']).execute();

  await db.schema
    .createTable('password_resets')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(24)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(24)', (c) => c.notNull())
    .addPrimaryKeyConstraint('password_resets_pkey', ['org_id', 'id'])
    .addForeignKeyConstraint('password_resets_user', ['org_id', 'user_id'], 'users', ['org_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').columns(['org_id', 'user_id']).execute();

  // oidc-provider's models (Session, Interaction, AuthorizationCode, AccessToken, RefreshToken, Grant, ...), one
  // row each, as the library hands them to its storage adapter. org_id and account_id are read from the payload
  // where it names them, so that an organization's or a person's rows can be found and ended.
  await db.schema
    .createTable('oidc_payloads')
    .addColumn('model', 'varchar(32)', (c) => c.notNull())
    .addColumn('id', 'varchar(128)', (c) => c.notNull())
    .addColumn('org_id', 'varchar(32)')
    .addColumn('account_id', 'varchar(32)')
    .addColumn('grant_id', 'varchar(128)')
    .addColumn('uid', 'varchar(128)')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(24)')
    .addColumn('consumed_at', 'varchar(24)')
    .addPrimaryKeyConstraint('oidc_payloads_pkey', ['model', 'id'])
    .execute();
  await db.schema.createIndex('oidc_payloads_grant').on('oidc_payloads').column('grant_id').execute();
  await db.schema.createIndex('oidc_payloads_uid').on('oidc_payloads').column('uid').execute();
  await db.schema.createIndex('oidc_payloads_account').on('oidc_payloads').columns(['org_id', 'account_id']).execute();
  await db.schema.createIndex('oidc_payloads_expiry').on('oidc_payloads').column('expires_at').execute();

  // The server's own keys, made once by whichever instance starts first: not an organization's data.
  await db.schema
    .createTable('server_keys')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .execute();

  // A client that signs people in (authorization code with PKCE) has the addresses it may be sent back to;
  // a public one (a native or browser app) has no secret to keep.
  await db.schema.alterTable('oauth_clients').addColumn('redirect_uris', 'text').execute();
  await db.schema.alterTable('oauth_clients').addColumn('post_logout_redirect_uris', 'text').execute();
  await db.schema
    .alterTable('oauth_clients')
    .addColumn('public', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_clients').dropColumn('public').execute();
  await db.schema.alterTable('oauth_clients').dropColumn('post_logout_redirect_uris').execute();
  await db.schema.alterTable('oauth_clients').dropColumn('redirect_uris').execute();
  await db.schema.dropTable('server_keys').execute();
  await db.schema.dropTable('oidc_payloads').execute();
  await db.schema.dropTable('password_resets').execute();
  await db.schema.dropTable('sessions').execute();
}
