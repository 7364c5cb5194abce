import type { Kysely } from 'kysely';
import { compiledOnce } from '../../db/compiled.js';
import type { Database, WebhookDeliveriesTable } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { now } from '../../lib/time.js';
import type { EventPayload } from '../event-types.js';

/** How long a delivery is retried before it fails for good (Standard Webhooks' and Stripe's practice). */
export const RETRY_PERIOD_MS = 24 * 3_600_000;

/** A moment with milliseconds, as `next_attempt_at` and `give_up_at` hold them. */
export const instant = (ms: number): string => new Date(ms).toISOString();

/** A new delivery of `payload` (an event, or a test ping) to one webhook, due at once. */
export function newDelivery(orgId: string, webhookId: string, message: { id: string; type: string }, payload: string): WebhookDeliveriesTable {
  const at = Date.now();
  return {
    org_id: orgId,
    id: newId(),
    webhook_id: webhookId,
    event_id: message.id,
    event_type: message.type,
    payload,
    status: 'pending',
    attempts: 0,
    next_attempt_at: instant(at),
    give_up_at: instant(at + RETRY_PERIOD_MS),
    created_date: now(),
    updated_date: now(),
  };
}

/** Every write looks its organization's webhooks up, so the query is compiled once. */
const activeWebhooks = compiledOnce(1, (db, orgId) =>
  db.selectFrom('webhooks').select(['id', 'event_types']).where('org_id', '=', orgId).where('disabled_date', 'is', null),
);

/** Queues each event for every enabled webhook of its organization that subscribes to its type. */
export async function queueDeliveries(trx: Kysely<Database>, events: readonly EventPayload[]): Promise<void> {
  const webhooksOf = new Map<string, { id: string; event_types: string }[]>();
  const deliveries: WebhookDeliveriesTable[] = [];
  for (const event of events) {
    let webhooks = webhooksOf.get(event.organizationId);
    if (!webhooks) webhooksOf.set(event.organizationId, (webhooks = await activeWebhooks(trx, event.organizationId)));
    const subscribed = webhooks.filter((webhook) => webhook.event_types.split(' ').includes(event.type));
    if (subscribed.length === 0) continue;
    const payload = JSON.stringify(event);
    for (const webhook of subscribed) deliveries.push(newDelivery(event.organizationId, webhook.id, event, payload));
  }
  for (let start = 0; start < deliveries.length; start += 500) {
    await trx
      .insertInto('webhook_deliveries')
      .values(deliveries.slice(start, start + 500))
      .execute();
  }
}
