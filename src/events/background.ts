import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { pruneIdempotencyKeys } from '../idempotency/key-store.js';
import { startDeliveryWorker, type DeliveryObserver, type WebhookSettings } from './webhooks/delivery-worker.js';
import { pruneEvents } from './retention.js';

export interface EventSettings {
  /** Events (and finished webhook deliveries) older than this many days are deleted. */
  retentionDays: number;
  webhooks: WebhookSettings;
}

const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * The server's background work on events: webhook deliveries, and pruning past the retention period,
 * hourly; the same pass deletes the Idempotency-Keys past their 24 hours.
 */
export function startEventJobs(
  db: Kysely<Database>,
  settings: EventSettings,
  log: FastifyBaseLogger,
  observeDelivery?: DeliveryObserver,
): { stop(): Promise<void> } {
  let pruning: Promise<void> = Promise.resolve();
  const prune = () => {
    pruning = pruneEvents(db, settings.retentionDays)
      .then(() => pruneIdempotencyKeys(db))
      .catch((error: unknown) => log.error({ err: error }, 'pruning old events or idempotency keys failed'));
  };
  prune();
  const worker = startDeliveryWorker(db, settings.webhooks, log, observeDelivery);
  const timer = setInterval(prune, PRUNE_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all([pruning, worker.stop()]);
    },
  };
}
