import type { Kysely } from 'kysely';

// The Idempotency-Key of each POST (per organization, kept 24 hours): the request it named, and
// once it ran, the answer it gave; see idempotency/key-store.ts.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('key', 'varchar(255)', (c) => c.notNull())
    .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('claim_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('claimed_at', 'varchar(24)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(24)', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('location', 'text')
    .addColumn('body', 'text')
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['org_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
