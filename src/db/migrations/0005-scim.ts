import { sql, type Kysely } from 'kysely';

// Provisioning from identity providers (SCIM 2.0). Portable DDL; every key starts with org_id.
export async function up(db: Kysely<any>): Promise<void> {
  // SQLite adds a NOT NULL column only with a default; every user gets its real value right below.
  await db.schema
    .alterTable('users')
    .addColumn('updated_date', 'varchar(20)', (c) => c.notNull().defaultTo(''))
    .execute();
  await db
    .updateTable('users')
    .set({ updated_date: sql.ref('created_date') })
    .execute();
  await db.schema
    .alterTable('users')
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .execute();
  await db.schema.alterTable('users').addColumn('external_id', 'text').execute();
  await db.schema.createIndex('users_external_id').on('users').columns(['org_id', 'external_id']).execute();

  // A group is a tag: its members are the users carrying the tag. The row keeps what SCIM knows of it.
  await db.schema
    .createTable('scim_groups')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('tag_key', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('updated_date', 'varchar(20)', (c) => c.notNull())
    .addPrimaryKeyConstraint('scim_groups_pkey', ['org_id', 'id'])
    .addUniqueConstraint('scim_groups_tag_key', ['org_id', 'tag_key'])
    .execute();
  await db.schema.createIndex('scim_groups_created').on('scim_groups').columns(['org_id', 'created_date', 'id']).execute();

  // Which SCIM attribute (enterprise extension or the organization's own) feeds which userfield.
  await db.schema
    .createTable('scim_attribute_mappings')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('attribute', 'text', (c) => c.notNull())
    .addColumn('attribute_key', 'text', (c) => c.notNull())
    .addColumn('userfield_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addPrimaryKeyConstraint('scim_attribute_mappings_pkey', ['org_id', 'attribute_key'])
    .addUniqueConstraint('scim_attribute_mappings_userfield_key', ['org_id', 'userfield_id'])
    .addForeignKeyConstraint('scim_attribute_mappings_userfield_fkey', ['org_id', 'userfield_id'], 'userfields', ['org_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scim_attribute_mappings').execute();
  await db.schema.dropTable('scim_groups').execute();
  await db.schema.dropIndex('users_external_id').execute();
  await db.schema.alterTable('users').dropColumn('external_id').execute();
  await db.schema.alterTable('users').dropColumn('active').execute();
  await db.schema.alterTable('users').dropColumn('updated_date').execute();
}
