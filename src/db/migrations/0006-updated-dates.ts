import { sql, type Kysely } from 'kysely';

/** Tables that gain `updated_date`, with what it starts as for the rows they hold already. */
const TABLES = [
  ['userfield_categories', sql.ref('created_date')],
  ['userfields', sql.ref('created_date')],
  ['offering_categories', sql.ref('created_date')],
  ['offerings', sql.ref('created_date')],
  // A graded or ejected registration last changed when it ended.
  ['registrations', sql`coalesce(end_date, created_date)`],
] as const;

// Incremental sync: every resource that changes says when it last did, and collections filter by it.
export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, initial] of TABLES) {
    // SQLite adds a NOT NULL column only with a default; every row gets its real value right below.
    await db.schema
      .alterTable(table)
      .addColumn('updated_date', 'varchar(20)', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.updateTable(table).set({ updated_date: initial }).execute();
    await db.schema.createIndex(`${table}_updated`).on(table).columns(['org_id', 'updated_date', 'id']).execute();
  }
  await db.schema.createIndex('users_updated').on('users').columns(['org_id', 'updated_date', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_updated').execute();
  for (const [table] of TABLES) {
    await db.schema.dropIndex(`${table}_updated`).execute();
    await db.schema.alterTable(table).dropColumn('updated_date').execute();
  }
}
