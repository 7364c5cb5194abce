import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { now } from '../../lib/time.js';
import { orderingKey, type EventPayload } from '../event-types.js';
import { instant, webhooksRepository, type NewDelivery } from './webhooks.repository.js';

/** How long a delivery is retried before it fails for good (Standard Webhooks' and Stripe's practice). */
export const RETRY_PERIOD_MS = 24 * 3_600_000;

/**
 * A new delivery of `message` (an event, or a test ping) to one webhook, due at once. An event's
 * delivery carries the key of its resource: the deliveries of one resource to one webhook go out one
 * after another, in the order they were queued (see webhooks.repository.ts, `insertDeliveries`).
 */
export function newDelivery(
  orgId: string,
  webhookId: string,
  message: EventPayload | { id: string; type: 'webhook.ping' },
  payload = JSON.stringify(message),
): NewDelivery {
  const at = Date.now();
  return {
    org_id: orgId,
    id: newId(),
    webhook_id: webhookId,
    event_id: message.id,
    event_type: message.type,
    payload,
    ordering_key: message.type === 'webhook.ping' ? null : orderingKey(message),
    status: 'pending',
    attempts: 0,
    next_attempt_at: instant(at),
    give_up_at: instant(at + RETRY_PERIOD_MS),
    created_date: now(),
    updated_date: now(),
  };
}

/**
 * Queues each event for every enabled webhook of its organization that subscribes to its type, in
 * the transaction that records the events: called last before the commit, after the locks of the
 * changed resources were taken, so that a resource's deliveries are numbered in commit order.
 */
export async function queueDeliveries(
  trx: Kysely<Database>,
  events: readonly EventPayload[],
  /** Organization id → its enabled webhooks, for those already read. */
  webhooksOf = new Map<string, { id: string; event_types: string }[]>(),
): Promise<void> {
  const repository = webhooksRepository(trx);
  const deliveries: NewDelivery[] = [];
  for (const event of events) {
    let webhooks = webhooksOf.get(event.organizationId);
    if (!webhooks) webhooksOf.set(event.organizationId, (webhooks = await repository.enabled(event.organizationId)));
    const subscribed = webhooks.filter((webhook) => webhook.event_types.split(' ').includes(event.type));
    if (subscribed.length === 0) continue;
    const payload = JSON.stringify(event);
    for (const webhook of subscribed) deliveries.push(newDelivery(event.organizationId, webhook.id, event, payload));
  }
  await repository.insertDeliveries(deliveries);
}
