import type { Kysely } from 'kysely';
import { isPostgres } from '../locking.js';

// The outbox of changes (the event feed) and the webhooks that receive them, with their deliveries.
export async function up(db: Kysely<any>): Promise<void> {
  // `seq` orders the feed: events are numbered in the order their transactions commit (see events/outbox.ts).
  await db.schema
    .createTable('events')
    .$call((table) =>
      isPostgres(db)
        ? table.addColumn('seq', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
        : table.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement()),
    )
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('type', 'varchar(40)', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addUniqueConstraint('events_id_key', ['org_id', 'id'])
    .execute();
  await db.schema.createIndex('events_feed').on('events').columns(['org_id', 'seq']).execute();
  await db.schema.createIndex('events_created').on('events').column('created_date').execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('updated_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('failing_since', 'varchar(24)')
    .addColumn('disabled_date', 'varchar(20)')
    .addColumn('disabled_reason', 'text')
    .addPrimaryKeyConstraint('webhooks_pkey', ['org_id', 'id'])
    .execute();
  await db.schema.createIndex('webhooks_created').on('webhooks').columns(['org_id', 'created_date', 'id']).execute();

  // One row per event and webhook; `next_attempt_at` (with milliseconds) is when a worker may claim it next.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('id', 'varchar(32)', (c) => c.notNull())
    .addColumn('webhook_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('event_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('event_type', 'varchar(40)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(10)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'varchar(24)')
    .addColumn('give_up_at', 'varchar(24)', (c) => c.notNull())
    .addColumn('created_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('updated_date', 'varchar(20)', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_deliveries_pkey', ['org_id', 'id'])
    .addForeignKeyConstraint('webhook_deliveries_webhook_fkey', ['org_id', 'webhook_id'], 'webhooks', ['org_id', 'id'], (c) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_webhook').on('webhook_deliveries').columns(['org_id', 'webhook_id', 'id']).execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('delivery_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('attempted_date', 'varchar(20)', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('response_body', 'text')
    .addPrimaryKeyConstraint('webhook_attempts_pkey', ['org_id', 'delivery_id', 'attempt'])
    .addForeignKeyConstraint('webhook_attempts_delivery_fkey', ['org_id', 'delivery_id'], 'webhook_deliveries', ['org_id', 'id'], (c) =>
      c.onDelete('cascade'),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
  await db.schema.dropTable('events').execute();
}
