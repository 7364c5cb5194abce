import { sql, type Kysely } from 'kysely';

// The worker picks an endpoint's next deliveries from an index of the ready ones alone (decision 0014): a
// delivery has a `next_attempt_at` exactly while it is pending and not waiting behind an earlier one of its
// resource, so the index holds the heads of the queues, in the order they are picked, and no delivery
// that waits, succeeded or failed. The pick then reads about as many entries as it takes.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_ready')
    .on('webhook_deliveries')
    .columns(['org_id', 'webhook_id', 'next_attempt_at', 'seq'])
    .where(sql.ref('next_attempt_at'), 'is not', null)
    .execute();
  // Replaced by the index above: it also held every finished delivery, and it left the order by `seq` to a sort.
  await db.schema.dropIndex('webhook_deliveries_due_per_webhook').execute();
}
