import type { Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.js';
import type { Database, WebhookAttemptsTable, WebhooksTable } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { parseTimestamp } from '../../lib/date-filter.js';
import { Invalid, NotFound, Refused } from '../../lib/domain-errors.js';
import { isId, newId } from '../../lib/ids.js';
import { findById } from '../../lib/find-by-id.js';
import type { Paging } from '../../lib/paging.js';
import { TIMESTAMP_MESSAGE } from '../../lib/schema.js';
import { now, toTimestamp } from '../../lib/time.js';
import { eventOfRow } from '../../events/event-types.js';
import { urlProblem, type AddressPolicy } from '../../events/webhooks/address-policy.js';
import { newDelivery, RETRY_PERIOD_MS } from '../../events/webhooks/deliveries.js';
import { newSigningSecret } from '../../events/webhooks/signing.js';
import { instant, webhooksRepository, type DeliveryRow, type WebhookPatch } from '../../events/webhooks/webhooks.repository.js';
import type {
  CreatedWebhook,
  CreateWebhook,
  Delivery,
  DeliveryQuery,
  Recovery,
  RecoverWebhook,
  UpdateWebhook,
  Webhook,
  WebhookQuery,
} from './webhooks.schemas.js';

export interface WebhookServiceSettings extends AddressPolicy {
  /** How many days the event feed keeps events (EVENTS_RETENTION_DAYS): how far back a recovery reaches. */
  retentionDays: number;
}

/** A webhook enabled again by an update, with what it missed meanwhile. */
export interface Reenabled {
  webhook: Webhook;
  /** Events of its types made while it was disabled that it has no delivery of. */
  missedEvents: number;
  /** When it was disabled: a recovery from then queues those events. */
  disabledDate: string;
}

const DISABLED = 'The webhook is disabled; enable it with PUT {"disabled": false} first';
/** Events a recovery queues per transaction, so that a long recovery never holds the database's writes for long. */
const RECOVERY_PAGE = 500;

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

function toDelivery(row: DeliveryRow, attempts: WebhookAttemptsTable[]): Delivery {
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
}

function checkUrl(url: string, policy: AddressPolicy): void {
  const problem = urlProblem(url, policy);
  if (problem) throw new Invalid({ url: problem });
}

/** The stored form of a recovery's `since`: a real moment, not in the future, within the feed's retention. */
function recoverySince(input: string, retentionDays: number): string {
  const since = parseTimestamp(input);
  if (since === undefined) throw new Invalid({ since: TIMESTAMP_MESSAGE });
  if (since > now()) throw new Invalid({ since: 'must not be in the future' });
  const kept = toTimestamp(new Date(Date.now() - retentionDays * 86_400_000));
  if (since < kept) {
    throw new Invalid({
      since: `must be ${kept} or later: events are kept ${retentionDays} days (EVENTS_RETENTION_DAYS), and older ones are gone`,
    });
  }
  return since;
}

export function webhooksService(db: Kysely<Database>, settings: WebhookServiceSettings) {
  const repository = webhooksRepository(db);

  /** `reader` is `db`, or the transaction of a write to read what it wrote. */
  async function withAttempts(orgId: string, rows: DeliveryRow[], reader = repository): Promise<Delivery[]> {
    const attempts = await reader.attemptsOf(
      orgId,
      rows.map((row) => row.id),
    );
    return rows.map((row) => toDelivery(row, attempts));
  }

  async function findDelivery(orgId: string, webhookId: string, id: string, reader = repository): Promise<Delivery> {
    const row = await findById(id, (id) => reader.findDelivery(orgId, webhookId, id));
    return (await withAttempts(orgId, [row], reader))[0]!;
  }

  /** The webhook, enabled: tests and resends of a disabled one would wait unseen. */
  async function enabled(orgId: string, id: string): Promise<WebhooksTable> {
    const webhook = await findById(id, (id) => repository.find(orgId, id));
    if (webhook.disabled_date) throw new Refused(DISABLED);
    return webhook;
  }

  /** Runs `work` in a unit of work with the webhook's row locked, so that its deletion cannot race the writes; 404 once it is gone. */
  function whileLocked<T>(
    { orgId, actor }: Caller,
    id: string,
    work: (locked: ReturnType<typeof webhooksRepository>, trx: Kysely<Database>) => Promise<T>,
  ) {
    return inTransaction(db, actor, async (trx) => {
      const locked = webhooksRepository(trx);
      if (!(await locked.lock(orgId, id))) throw new NotFound();
      return work(locked, trx);
    });
  }

  return {
    async list(caller: Caller, _query: WebhookQuery, paging: Paging): Promise<Webhook[]> {
      return (await repository.list(caller.orgId, paging)).map(toResponse);
    },

    async get(caller: Caller, id: string): Promise<Webhook> {
      return toResponse(await findById(id, (id) => repository.find(caller.orgId, id)));
    },

    /**
     * The secret is stored as it is, not hashed as tokens are: signing each delivery needs the key
     * itself (an HMAC cannot be computed from a hash of its key). It is shown once, here, and
     * never logged; who can read the database can read it, as with any webhook sender.
     */
    async create(caller: Caller, input: CreateWebhook): Promise<CreatedWebhook> {
      checkUrl(input.url, settings);
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
      await inTransaction(db, caller.actor, async (trx) => {
        await webhooksRepository(trx).insert(row);
        await caller.idempotentWrite?.settle(trx, created);
      });
      return created;
    },

    /**
     * Partial. Enabling a disabled webhook again resumes its pending deliveries; the events made
     * while it was disabled were queued for no one, and the answer counts those it subscribes to.
     */
    async update(caller: Caller, id: string, input: UpdateWebhook): Promise<Reenabled | undefined> {
      const current = await findById(id, (id) => repository.find(caller.orgId, id));
      if (input.url !== undefined) checkUrl(input.url, settings);
      const patch: WebhookPatch = {};
      if (input.url !== undefined) patch.url = input.url;
      if (input.events !== undefined) patch.event_types = input.events.join(' ');
      if (input.description !== undefined) patch.description = input.description || null;
      if (input.disabled === true && !current.disabled_date) Object.assign(patch, { disabled_date: now(), disabled_reason: 'Disabled by PUT' });
      const disabledDate = input.disabled === false ? current.disabled_date : null;
      if (disabledDate) Object.assign(patch, { disabled_date: null, disabled_reason: null, failing_since: null });
      if (Object.keys(patch).length === 0) return undefined;
      return inTransaction(db, caller.actor, async (trx) => {
        const writer = webhooksRepository(trx);
        await writer.update(caller.orgId, id, { ...patch, updated_date: now() });
        if (!disabledDate) return undefined;
        const updated = (await writer.find(caller.orgId, id))!;
        const missedEvents = await writer.countUndelivered(caller.orgId, id, updated.event_types.split(' '), disabledDate);
        return { webhook: toResponse(updated), missedEvents, disabledDate };
      });
    },

    async delete(caller: Caller, id: string): Promise<void> {
      if (!isId(id)) throw new NotFound();
      const deleted = await inTransaction(db, caller.actor, (trx) => webhooksRepository(trx).delete(caller.orgId, id));
      if (!deleted) throw new NotFound();
    },

    /**
     * Replaces the signing secret by a new one, returned this once (the console shows it); deliveries
     * signed from now on use it, and receivers verifying with the former one refuse them.
     */
    async rotateSecret(caller: Caller, id: string): Promise<CreatedWebhook & { secret: string }> {
      if (!isId(id)) throw new NotFound();
      const secret = newSigningSecret();
      const webhook = await whileLocked(caller, id, async (locked) => {
        await locked.update(caller.orgId, id, { secret, updated_date: now() });
        return toResponse((await locked.find(caller.orgId, id))!);
      });
      return { ...webhook, secret };
    },

    /** Queues a `webhook.ping` for the webhook, delivered (signed, retried) like any event. */
    async test(caller: Caller, id: string): Promise<Delivery> {
      const webhook = await enabled(caller.orgId, id);
      const ping = { id: newId(), type: 'webhook.ping' as const, createdDate: now(), organizationId: caller.orgId, data: { webhookId: webhook.id } };
      const delivery = newDelivery(caller.orgId, webhook.id, ping);
      return whileLocked(caller, webhook.id, async (locked, trx) => {
        await locked.insertDeliveries([delivery]);
        const queued = await findDelivery(caller.orgId, webhook.id, delivery.id, locked);
        await caller.idempotentWrite?.settle(trx, queued);
        return queued;
      });
    },

    /** Newest first, each with its attempts. */
    async deliveries(caller: Caller, id: string, _query: DeliveryQuery, paging: Paging): Promise<Delivery[]> {
      await findById(id, (id) => repository.find(caller.orgId, id));
      return withAttempts(caller.orgId, await repository.deliveries(caller.orgId, id, paging));
    },

    /** Sends the delivery again (same webhook-id, so receivers can tell it is a repeat), with a new day of retries. */
    async resend(caller: Caller, id: string, deliveryId: string): Promise<Delivery> {
      await enabled(caller.orgId, id);
      await findDelivery(caller.orgId, id, deliveryId);
      const at = Date.now();
      return whileLocked(caller, id, async (locked, trx) => {
        await locked.resend(caller.orgId, deliveryId, instant(at), instant(at + RETRY_PERIOD_MS));
        const resent = await findDelivery(caller.orgId, id, deliveryId, locked);
        await caller.idempotentWrite?.settle(trx, resent);
        return resent;
      });
    },

    /**
     * Queues again every event of the feed since `since` of the types the webhook subscribes to that
     * it has no pending or successful delivery of: the events made while it was disabled, and those
     * whose delivery failed for good. Each keeps its id (the webhook-id), and they are queued in the
     * order of the feed, a page per transaction. A disabled webhook gets them once enabled again.
     */
    async recover(caller: Caller, id: string, input: RecoverWebhook): Promise<Recovery> {
      const { orgId } = caller;
      const since = recoverySince(input.since, settings.retentionDays);
      const webhook = await findById(id, (id) => repository.find(orgId, id));
      const types = webhook.event_types.split(' ');
      let queued = 0;
      let afterSeq = 0;
      for (let more = true; more;) {
        more = await whileLocked(caller, id, async (locked, trx) => {
          const events = await locked.undelivered(orgId, id, types, since, afterSeq, RECOVERY_PAGE);
          await locked.insertDeliveries(events.map((row) => newDelivery(orgId, id, eventOfRow(orgId, row))));
          queued += events.length;
          afterSeq = events.at(-1)?.seq ?? afterSeq;
          const done = events.length < RECOVERY_PAGE;
          if (done) await caller.idempotentWrite?.settle(trx, { queued, since });
          return !done;
        });
      }
      return { queued, since };
    },
  };
}

export type WebhooksService = ReturnType<typeof webhooksService>;
