import { sql, type Kysely } from 'kysely';
import { sqliteJsonObject, type JsonProperty } from '../json-objects.js';
import { isPostgres } from '../locking.js';

// The people side of users: what kind of account each is (learner, course or organization administrator),
// whether a new password is asked for at the next sign-in, and from when sessions count.
//
// SQLite keeps each user's JSON in a generated column, indexed with the list's order (migration 0017): the new
// property joins it, so the column and its index are made again from this list, the user's properties as they
// are at this migration (resources/users/user-properties.ts; a test holds the two equal). PostgreSQL writes the
// JSON in the statement and needs nothing; the new column is a code of a fixed list, which never needs escaping,
// so the test of migration 0018 stays as it is.
export const USER_JSON: readonly JsonProperty[] = [
  { property: 'id', column: 'id', kind: 'verbatim' },
  { property: 'email', column: 'email', kind: 'text' },
  { property: 'createdDate', column: 'created_date', kind: 'verbatim' },
  { property: 'active', column: 'active', kind: 'boolean' },
  { property: 'updatedDate', column: 'updated_date', kind: 'verbatim' },
  { property: 'firstName', column: 'first_name', kind: 'text', optional: true },
  { property: 'lastName', column: 'last_name', kind: 'text', optional: true },
  { property: 'username', column: 'username', kind: 'text', optional: true },
  { property: 'tags', column: 'tags', kind: 'words', optional: true },
  { property: 'locale', column: 'locale', kind: 'text', optional: true },
  { property: 'lastLoginDate', column: 'last_login_date', kind: 'verbatim', optional: true },
  { property: 'accountType', column: 'account_type', kind: 'verbatim', optional: true },
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('account_type', 'varchar(32)').execute();
  await db.schema
    .alterTable('users')
    .addColumn('password_change_required', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.alterTable('users').addColumn('sessions_valid_after', 'varchar(24)').execute();
  // The console's filter by kind of account: administrators are few among many learners.
  await db.schema.createIndex('users_account_type').on('users').columns(['org_id', 'account_type']).execute();
  if (isPostgres(db)) return;
  await db.schema.dropIndex('users_created_json').execute();
  await db.schema.alterTable('users').dropColumn('user_json').execute();
  await sql`alter table users add column user_json text generated always as (${sqliteJsonObject(USER_JSON)}) virtual`.execute(db);
  await db.schema
    .createIndex('users_created_json')
    .on('users')
    .columns(['org_id', 'created_date', 'id', 'user_json'])
    .where(sql.ref('user_json'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_account_type').execute();
  if (!isPostgres(db)) {
    // Back to migration 0017's column, which does not read the columns dropped below.
    await db.schema.dropIndex('users_created_json').execute();
    await db.schema.alterTable('users').dropColumn('user_json').execute();
    await sql`alter table users add column user_json text generated always as (${sqliteJsonObject(USER_JSON.slice(0, -1))}) virtual`.execute(db);
    await db.schema
      .createIndex('users_created_json')
      .on('users')
      .columns(['org_id', 'created_date', 'id', 'user_json'])
      .where(sql.ref('user_json'), 'is not', null)
      .execute();
  }
  await db.schema.alterTable('users').dropColumn('sessions_valid_after').execute();
  await db.schema.alterTable('users').dropColumn('password_change_required').execute();
  await db.schema.alterTable('users').dropColumn('account_type').execute();
}
