import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../locking.js';

// Webhook deliveries of one resource go out in the order their events committed (events/webhooks/deliveries.ts):
// each delivery names its resource (`ordering_key`, null for pings and for deliveries queued before this
// migration) and carries a number given in the order deliveries are inserted (`seq`). A delivery waits while an
// earlier one of the same webhook and resource is pending.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('ordering_key', 'varchar(80)').execute();
  if (isPostgres(db)) {
    await db.schema
      .alterTable('webhook_deliveries')
      .addColumn('seq', 'bigint', (c) => c.notNull().generatedByDefaultAsIdentity())
      .execute();
  } else {
    // SQLite adds no autoincrement column to a table; its writers take turns, so each insert takes the largest
    // number so far plus one, read from this index.
    await db.schema
      .alterTable('webhook_deliveries')
      .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`update webhook_deliveries set seq = rowid`.execute(db);
    await db.schema.createIndex('webhook_deliveries_seq').on('webhook_deliveries').column('seq').execute();
  }
  // What each worker claims next: a webhook's due deliveries, oldest first.
  await db.schema
    .createIndex('webhook_deliveries_due_per_webhook')
    .on('webhook_deliveries')
    .columns(['org_id', 'webhook_id', 'status', 'next_attempt_at'])
    .execute();
  // Whether an earlier delivery of the same webhook and resource is pending, and which one comes next.
  await db.schema
    .createIndex('webhook_deliveries_resource_order')
    .on('webhook_deliveries')
    .columns(['org_id', 'webhook_id', 'ordering_key', 'status', 'seq'])
    .execute();
  // Which events a webhook already has a delivery of (recovering missed events).
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['org_id', 'webhook_id', 'event_id']).execute();
  // Replaced by the index per webhook: no query looks for due deliveries across webhooks any more.
  await db.schema.dropIndex('webhook_deliveries_due').execute();
}
