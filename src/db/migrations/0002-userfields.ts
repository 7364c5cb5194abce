import type { Kysely } from 'kysely';
import { newId } from '../../lib/ids.js';
import { now } from '../../lib/time.js';

/**
 * The predefined fields as they were when this migration was written. Literal, so that a later change
 * to what new organizations are provisioned with never changes what this migration did.
 */
const PREDEFINED_NAMES = ['Street 1', 'Street 2', 'City', 'State/Province', 'Postal Code', 'Country', 'Phone Number', 'Company'];

function predefinedRows(orgId: string, createdDate: string) {
  return PREDEFINED_NAMES.map((name) => ({
    org_id: orgId,
    id: newId(), // time-ordered, so the list keeps the order above
    type: 'text',
    name,
    localized_names: null,
    category_id: null,
    order_index: null,
    required: false,
    options: null,
    constraints: null,
    message: null,
    size: 'medium',
    read_only: true,
    prompt_missing_values: false,
    created_date: createdDate,
  }));
}

// Userfield categories, userfields and their values per user. Portable DDL; every key starts with org_id.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('userfield_categories')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('order_index', 'integer', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addPrimaryKeyConstraint('userfield_categories_pkey', ['org_id', 'id'])
    .addUniqueConstraint('userfield_categories_name_key', ['org_id', 'name_key'])
    .execute();

  // No cascade from categories: a category is deleted only once it is empty, never by surprise.
  await db.schema
    .createTable('userfields')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('localized_names', 'text')
    .addColumn('category_id', 'varchar(32)')
    .addColumn('order_index', 'integer')
    .addColumn('required', 'boolean', (c) => c.notNull())
    .addColumn('options', 'text')
    .addColumn('constraints', 'text')
    .addColumn('message', 'text')
    .addColumn('size', 'varchar(16)')
    .addColumn('read_only', 'boolean', (c) => c.notNull())
    .addColumn('prompt_missing_values', 'boolean', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addPrimaryKeyConstraint('userfields_pkey', ['org_id', 'id'])
    .addForeignKeyConstraint('userfields_category_fkey', ['org_id', 'category_id'], 'userfield_categories', ['org_id', 'id'])
    .execute();
  await db.schema.createIndex('userfields_category').on('userfields').columns(['org_id', 'category_id', 'order_index']).execute();

  await db.schema
    .createTable('userfield_values')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('userfield_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('userfield_values_pkey', ['org_id', 'user_id', 'userfield_id'])
    .addForeignKeyConstraint('userfield_values_user_fkey', ['org_id', 'user_id'], 'users', ['org_id', 'id'], (c) => c.onDelete('cascade'))
    .addForeignKeyConstraint('userfield_values_userfield_fkey', ['org_id', 'userfield_id'], 'userfields', ['org_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('userfield_values_userfield').on('userfield_values').columns(['org_id', 'userfield_id']).execute();

  // Organizations created before this migration get the predefined fields a new one is provisioned with.
  const organizations: { id: string }[] = await db.selectFrom('organizations').select('id').execute();
  for (const { id } of organizations) {
    await db.insertInto('userfields').values(predefinedRows(id, now())).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('userfield_values').execute();
  await db.schema.dropTable('userfields').execute();
  await db.schema.dropTable('userfield_categories').execute();
}
