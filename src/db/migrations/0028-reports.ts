import type { Kysely } from 'kysely';

// The console's reports.
//
// How many sign-ins succeeded in each organization on each day (UTC): a counter per organization and day, added to
// in the sign-in's own transaction, so that the report of sign-ins per day reads a row a day however many people
// sign in; a person's lastLoginDate keeps only their latest sign-in.
//
// The reports count registrations made within some days by offering, status and grade, and people by kind of
// account and state. The indexes those are read through (registrations by creation, people by kind of account)
// now carry those columns too, so that a count reads the index alone: at 1,000,000 registrations, reading each
// row of 90 days' took 1.8 s (the table's rows fetched one by one), and counting the people by state 3.5 s, on
// SQLite. The columns are added at the end: the lists' order, which those indexes serve, is unchanged; and as
// both tables index `updated_date`, which every change sets, no update was cheaper without them.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sign_in_days')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    .addColumn('sign_ins', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('sign_in_days_pkey', ['org_id', 'day'])
    .execute();
  await db.schema.dropIndex('registrations_created').execute();
  await db.schema
    .createIndex('registrations_created')
    .on('registrations')
    .columns(['org_id', 'created_date', 'id', 'offering_id', 'status', 'grade'])
    .execute();
  await db.schema.dropIndex('users_account_type_created').execute();
  await db.schema.createIndex('users_account_type_created').on('users').columns(['org_id', 'account_type', 'created_date', 'id', 'active']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_account_type_created').execute();
  await db.schema.createIndex('users_account_type_created').on('users').columns(['org_id', 'account_type', 'created_date', 'id']).execute();
  await db.schema.dropIndex('registrations_created').execute();
  await db.schema.createIndex('registrations_created').on('registrations').columns(['org_id', 'created_date', 'id']).execute();
  await db.schema.dropTable('sign_in_days').execute();
}
