import type { Kysely } from 'kysely';
import { now } from '../../lib/time.js';

/**
 * The standard agreement as it read when this migration was written. Literal, so that a later
 * revision of the text new organizations start with never changes what this migration did.
 */
const STANDARD_TITLE = 'Terms of use';
const STANDARD_TEXT = [
  'By using this training platform you agree to these terms.',
  'Your account is for you alone: keep your password to yourself and tell your organization if you think someone else has used it.',
  'Course material is provided for your own learning. Do not copy, share or publish it without permission.',
  'Your organization administers your account and the data in it, including your registrations, grades and the details you enter, ' +
    'and may use that data to run its training programme.',
  'Your organization may end your access to a course or to the platform at any time.',
  'These terms may be revised; the version you agreed to stays on record.',
].join('\n\n');

// Offering categories, offerings, registrations and agreements. Portable DDL; every key starts with org_id.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('offering_categories')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('color', 'varchar(7)')
    .addColumn('order_index', 'integer', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addPrimaryKeyConstraint('offering_categories_pkey', ['org_id', 'id'])
    .addUniqueConstraint('offering_categories_name_key', ['org_id', 'name_key'])
    .execute();

  await db.schema
    .createTable('offerings')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('begin_date', 'varchar(20)')
    .addColumn('end_date', 'varchar(20)')
    .addColumn('registration_begin_date', 'varchar(20)')
    .addColumn('registration_end_date', 'varchar(20)')
    .addColumn('catalog_description', 'text')
    .addColumn('price', 'double precision')
    .addColumn('tags', 'text')
    .addColumn('order_index', 'integer', (c) => c.notNull())
    .addColumn('passing_grade', 'double precision', (c) => c.notNull())
    .addColumn('allow_retake', 'boolean', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addPrimaryKeyConstraint('offerings_pkey', ['org_id', 'id'])
    .execute();
  await db.schema.createIndex('offerings_order').on('offerings').columns(['org_id', 'order_index', 'id']).execute();

  // An offering's categories, in the order the client gave them.
  await db.schema
    .createTable('offering_category_links')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('offering_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('category_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('offering_category_links_pkey', ['org_id', 'offering_id', 'category_id'])
    .addForeignKeyConstraint('offering_category_links_offering_fkey', ['org_id', 'offering_id'], 'offerings', ['org_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .addForeignKeyConstraint('offering_category_links_category_fkey', ['org_id', 'category_id'], 'offering_categories', ['org_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('offering_category_links_category').on('offering_category_links').columns(['org_id', 'category_id']).execute();

  // No cascade from offerings: an offering is deleted only after its (ejected) registrations, never by surprise.
  await db.schema
    .createTable('registrations')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('offering_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('grade', 'double precision')
    .addColumn('grader_id', 'varchar(32)')
    .addColumn('grader_comment', 'text')
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('begin_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('last_active_date', 'varchar(20)')
    .addColumn('end_date', 'varchar(20)')
    .addPrimaryKeyConstraint('registrations_pkey', ['org_id', 'id'])
    .addForeignKeyConstraint('registrations_user_fkey', ['org_id', 'user_id'], 'users', ['org_id', 'id'], (c) => c.onDelete('cascade'))
    .addForeignKeyConstraint('registrations_offering_fkey', ['org_id', 'offering_id'], 'offerings', ['org_id', 'id'])
    .execute();
  await db.schema.createIndex('registrations_created').on('registrations').columns(['org_id', 'created_date', 'id']).execute();
  await db.schema.createIndex('registrations_user').on('registrations').columns(['org_id', 'user_id', 'offering_id']).execute();
  await db.schema.createIndex('registrations_offering').on('registrations').columns(['org_id', 'offering_id']).execute();

  await db.schema
    .createTable('agreements')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('required', 'boolean', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('updated_date', 'varchar(20)')
    .addPrimaryKeyConstraint('agreements_pkey', ['org_id', 'type'])
    .execute();

  // A row exists only while the user agrees; it keeps the title and text they agreed to.
  await db.schema
    .createTable('user_agreements')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('agreed_date', 'varchar(20)', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_agreements_pkey', ['org_id', 'user_id', 'type'])
    .addForeignKeyConstraint('user_agreements_user_fkey', ['org_id', 'user_id'], 'users', ['org_id', 'id'], (c) => c.onDelete('cascade'))
    .addForeignKeyConstraint('user_agreements_agreement_fkey', ['org_id', 'type'], 'agreements', ['org_id', 'type'], (c) => c.onDelete('cascade'))
    .execute();

  // Organizations created before this migration get their standard agreement here; later ones when created.
  const organizations = await db.selectFrom('organizations').select('id').execute();
  const BATCH = 500; // well under either engine's limit of bound parameters per statement
  const createdDate = now();
  for (let start = 0; start < organizations.length; start += BATCH) {
    const rows = organizations.slice(start, start + BATCH).map((org: { id: string }) => ({
      org_id: org.id,
      type: 'standard',
      title: STANDARD_TITLE,
      text: STANDARD_TEXT,
      required: true,
      created_date: createdDate,
      updated_date: null,
    }));
    await db.insertInto('agreements').values(rows).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['user_agreements', 'agreements', 'registrations', 'offering_category_links', 'offerings', 'offering_categories']) {
    await db.schema.dropTable(table).execute();
  }
}
