import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { toTimestamp } from '../lib/time.js';
import { deliveryQueue } from './webhooks/webhooks.repository.js';

export const DEFAULT_RETENTION_DAYS = 30;

/**
 * Deletes the events older than `days`, and the deliveries finished (succeeded or failed for good)
 * that long ago with their attempts. Pending deliveries stay whatever their age.
 */
export async function pruneEvents(db: Kysely<Database>, days: number): Promise<void> {
  const cutoff = toTimestamp(new Date(Date.now() - days * 86_400_000));
  await db.deleteFrom('events').where('created_date', '<', cutoff).execute();
  await deliveryQueue(db).pruneFinished(cutoff);
}
