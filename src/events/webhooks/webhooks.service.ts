import type { Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.js';
import { pageWindow } from '../../db/filters.js';
import { lockRow } from '../../db/locking.js';
import type { Database, WebhookDeliveriesTable, WebhooksTable } from '../../db/schema.js';
import type { AddressPolicy } from './address-policy.js';
import { urlProblem } from './address-policy.js';
import { instant, newDelivery, RETRY_PERIOD_MS } from './deliveries.js';
import { newSigningSecret } from './signing.js';
import { errors } from '../../lib/errors.js';
import { isId, newId } from '../../lib/ids.js';
import { findById } from '../../lib/not-found.js';
import type { Paging } from '../../lib/paging.js';
import { now } from '../../lib/time.js';
import type { CreatedWebhook, CreateWebhook, Delivery, DeliveryQuery, UpdateWebhook, Webhook, WebhookQuery } from './webhooks.schemas.js';

const DISABLED = 'The webhook is disabled; enable it with PUT {"disabled": false} first';

function toResponse(row: WebhooksTable): Webhook {
  const webhook: Webhook = {
    id: row.id,
    url: row.url,
    events: row.event_types.split(' '),
    disabled: row.disabled_date !== null,
    createdDate: row.created_date,
    updatedDate: row.updated_date,
  };
  if (row.description) webhook.description = row.description;
  if (row.disabled_reason) webhook.disabledReason = row.disabled_reason;
  if (row.disabled_date) webhook.disabledDate = row.disabled_date;
  return webhook;
}

function checkUrl(url: string, policy: AddressPolicy): void {
  const problem = urlProblem(url, policy);
  if (problem) throw errors.fieldErrors({ url: problem });
}

export function webhooksService(db: Kysely<Database>, policy: AddressPolicy) {
  const find = (orgId: string, id: string) =>
    db.selectFrom('webhooks').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();

  /** `reader` is `db`, or the transaction of a write to read what it wrote. */
  async function deliveriesWithAttempts(orgId: string, rows: WebhookDeliveriesTable[], reader = db): Promise<Delivery[]> {
    const attempts =
      rows.length === 0
        ? []
        : await reader
            .selectFrom('webhook_attempts')
            .selectAll()
            .where('org_id', '=', orgId)
            .where(
              'delivery_id',
              'in',
              rows.map((row) => row.id),
            )
            .orderBy('attempt')
            .execute();
    return rows.map((row) => {
      const delivery: Delivery = {
        id: row.id,
        eventId: row.event_id,
        eventType: row.event_type,
        status: row.status,
        createdDate: row.created_date,
        attempts: attempts
          .filter((attempt) => attempt.delivery_id === row.id)
          .map((attempt) => ({
            attempt: attempt.attempt,
            attemptedDate: attempt.attempted_date,
            durationMs: attempt.duration_ms,
            ...(attempt.status_code === null ? {} : { statusCode: attempt.status_code }),
            ...(attempt.error === null ? {} : { error: attempt.error }),
            ...(attempt.response_body === null ? {} : { responseBody: attempt.response_body }),
          })),
      };
      if (row.next_attempt_at) delivery.nextAttemptDate = row.next_attempt_at;
      return delivery;
    });
  }

  async function findDelivery(orgId: string, webhookId: string, id: string, reader = db): Promise<Delivery> {
    const row = await findById(id, (id) =>
      reader
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('webhook_id', '=', webhookId)
        .where('id', '=', id)
        .executeTakeFirst(),
    );
    return (await deliveriesWithAttempts(orgId, [row], reader))[0]!;
  }

  /** The webhook, enabled: tests and resends of a disabled one would wait unseen. */
  async function enabled(orgId: string, id: string): Promise<WebhooksTable> {
    const webhook = await findById(id, (id) => find(orgId, id));
    if (webhook.disabled_date) throw errors.badRequest(DISABLED);
    return webhook;
  }

  return {
    async list(caller: Caller, _query: WebhookQuery, paging: Paging): Promise<Webhook[]> {
      const rows = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('org_id', '=', caller.orgId)
        .orderBy('created_date')
        .orderBy('id')
        .$call((q) => pageWindow(q, paging))
        .execute();
      return rows.map(toResponse);
    },

    async get(caller: Caller, id: string): Promise<Webhook> {
      return toResponse(await findById(id, (id) => find(caller.orgId, id)));
    },

    /**
     * The secret is stored as it is, not hashed as tokens are: signing each delivery needs the key
     * itself (an HMAC cannot be computed from a hash of its key). It is shown once, here, and
     * never logged; who can read the database can read it, as with any webhook sender.
     */
    async create(caller: Caller, input: CreateWebhook): Promise<CreatedWebhook> {
      checkUrl(input.url, policy);
      const at = now();
      const row: WebhooksTable = {
        org_id: caller.orgId,
        id: newId(),
        url: input.url,
        description: input.description || null,
        event_types: input.events.join(' '),
        secret: newSigningSecret(),
        created_date: at,
        updated_date: at,
        failing_since: null,
        disabled_date: null,
        disabled_reason: null,
      };
      const created = { ...toResponse(row), secret: row.secret };
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('webhooks').values(row).execute();
        await caller.idempotentWrite?.settle(trx, created);
      });
      return created;
    },

    async update(caller: Caller, id: string, input: UpdateWebhook): Promise<void> {
      const current = await findById(id, (id) => find(caller.orgId, id));
      if (input.url !== undefined) checkUrl(input.url, policy);
      const patch: Partial<WebhooksTable> = {};
      if (input.url !== undefined) patch.url = input.url;
      if (input.events !== undefined) patch.event_types = input.events.join(' ');
      if (input.description !== undefined) patch.description = input.description || null;
      if (input.disabled === true && !current.disabled_date) Object.assign(patch, { disabled_date: now(), disabled_reason: 'Disabled by PUT' });
      if (input.disabled === false && current.disabled_date)
        Object.assign(patch, { disabled_date: null, disabled_reason: null, failing_since: null });
      if (Object.keys(patch).length === 0) return;
      await db
        .updateTable('webhooks')
        .set({ ...patch, updated_date: now() })
        .where('org_id', '=', caller.orgId)
        .where('id', '=', id)
        .execute();
    },

    async delete(caller: Caller, id: string): Promise<void> {
      if (!isId(id)) throw errors.notFound();
      const result = await db.deleteFrom('webhooks').where('org_id', '=', caller.orgId).where('id', '=', id).executeTakeFirst();
      if (result.numDeletedRows === 0n) throw errors.notFound();
    },

    /** Queues a `webhook.ping` for the webhook, delivered (signed, retried) like any event. */
    async test(caller: Caller, id: string): Promise<Delivery> {
      const webhook = await enabled(caller.orgId, id);
      const ping = { id: newId(), type: 'webhook.ping', createdDate: now(), organizationId: caller.orgId, data: { webhookId: webhook.id } };
      const delivery = newDelivery(caller.orgId, webhook.id, ping, JSON.stringify(ping));
      return db.transaction().execute(async (trx) => {
        // Locked, so that a concurrent deletion of the webhook cannot turn the insert into a foreign-key error.
        if (!(await lockRow(trx, 'webhooks', caller.orgId, webhook.id))) throw errors.notFound();
        await trx.insertInto('webhook_deliveries').values(delivery).execute();
        const queued = await findDelivery(caller.orgId, webhook.id, delivery.id, trx);
        await caller.idempotentWrite?.settle(trx, queued);
        return queued;
      });
    },

    /** Newest first, each with its attempts. */
    async deliveries(caller: Caller, id: string, _query: DeliveryQuery, paging: Paging): Promise<Delivery[]> {
      await findById(id, (id) => find(caller.orgId, id));
      const rows = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('org_id', '=', caller.orgId)
        .where('webhook_id', '=', id)
        .orderBy('id', 'desc')
        .$call((q) => pageWindow(q, paging))
        .execute();
      return deliveriesWithAttempts(caller.orgId, rows);
    },

    /** Sends the delivery again (same webhook-id, so receivers can tell it is a repeat), with a new day of retries. */
    async resend(caller: Caller, id: string, deliveryId: string): Promise<Delivery> {
      await enabled(caller.orgId, id);
      await findDelivery(caller.orgId, id, deliveryId);
      const at = Date.now();
      return db.transaction().execute(async (trx) => {
        if (!(await lockRow(trx, 'webhooks', caller.orgId, id))) throw errors.notFound();
        await trx
          .updateTable('webhook_deliveries')
          .set({ status: 'pending', next_attempt_at: instant(at), give_up_at: instant(at + RETRY_PERIOD_MS), updated_date: now() })
          .where('org_id', '=', caller.orgId)
          .where('id', '=', deliveryId)
          .execute();
        const resent = await findDelivery(caller.orgId, id, deliveryId, trx);
        await caller.idempotentWrite?.settle(trx, resent);
        return resent;
      });
    },
  };
}

export type WebhooksService = ReturnType<typeof webhooksService>;
