import { sql, type ExpressionBuilder, type Insertable, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { compiledOnce } from '../../db/compiled.js';
import { pageWindow } from '../../db/filters.js';
import { isPostgres, lockRow } from '../../db/locking.js';
import type { Database, EventsTable, WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import type { Paging } from '../../lib/paging.js';
import { now } from '../../lib/time.js';

/**
 * Every statement on the webhooks' tables (webhooks, their deliveries and the attempts of each):
 * what the API reads and writes, what the outbox queues, and what the delivery worker claims and
 * records.
 */

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
/** A delivery claimed for an attempt, with its webhook's URL and signing secret. */
export type ClaimedDelivery = DeliveryRow & { url: string; secret: string };
export type NewDelivery = Insertable<WebhookDeliveriesTable>;
export type WebhookPatch = Partial<Omit<WebhooksTable, 'org_id' | 'id' | 'created_date'>>;
/** An event of the outbox as a recovery reads it. */
type EventRow = Pick<EventsTable, 'id' | 'type' | 'created_date' | 'data' | 'previous_attributes'> & { seq: number };

/** A webhook of some organization that has deliveries due. */
export interface Endpoint {
  orgId: string;
  webhookId: string;
}

/** How an attempt ended, as recorded. */
export interface AttemptRecord {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
}

/** An attempt made, and what follows from it. */
export interface FinishedAttempt {
  delivery: DeliveryRow;
  attempt: AttemptRecord;
  succeeded: boolean;
  /** When the delivery is due again after a failure; null when it is not (it succeeded, or failed for good). */
  retryAt: number | null;
  /** Why its webhook is disabled, should this failure end a day of failures. */
  disabledReason: string;
}

/** How many rows one insert statement carries (PostgreSQL binds at most 65,535 parameters). */
const ROWS_PER_INSERT = 500;

/** A moment with milliseconds, as `next_attempt_at`, `give_up_at` and `failing_since` hold them. */
export const instant = (ms: number): string => new Date(ms).toISOString();

/** `(a, b) in ((?, ?), ...)`: rows named by the values of several columns. */
function keyIn(columns: RawBuilder<unknown>, keys: readonly (readonly string[])[]) {
  return sql<boolean>`${columns} in (${sql.join(keys.map((key) => sql`(${sql.join(key)})`))})`;
}

/** Every write looks its organization's webhooks up, so the query is compiled once. */
const enabledWebhooks = compiledOnce(1, (db, orgId) =>
  db.selectFrom('webhooks').select(['id', 'event_types']).where('org_id', '=', orgId).where('disabled_date', 'is', null),
);

/**
 * Whether a pending delivery of the same webhook and resource comes before delivery `d`: `d` waits
 * for it. Pings and deliveries without a key never wait (null equals nothing).
 */
function earlierPending(eb: ExpressionBuilder<Database & { d: WebhookDeliveriesTable }, 'd'>) {
  return eb.exists(
    eb
      .selectFrom('webhook_deliveries as earlier')
      .select('earlier.id')
      .whereRef('earlier.org_id', '=', 'd.org_id')
      .whereRef('earlier.webhook_id', '=', 'd.webhook_id')
      .whereRef('earlier.ordering_key', '=', 'd.ordering_key')
      .where('earlier.status', '=', 'pending')
      .whereRef('earlier.seq', '<', 'd.seq'),
  );
}

/** Events of the organization since `since` of the given types, that the webhook has no pending or successful delivery of. */
function undeliveredEvents(db: Kysely<Database>, orgId: string, webhookId: string, types: readonly string[], since: string) {
  return db
    .selectFrom('events as e')
    .where('e.org_id', '=', orgId)
    .where('e.created_date', '>=', since)
    .where('e.type', 'in', types)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as d')
            .select('d.id')
            .where('d.org_id', '=', orgId)
            .where('d.webhook_id', '=', webhookId)
            .whereRef('d.event_id', '=', 'e.id')
            .where('d.status', 'in', ['pending', 'succeeded']),
        ),
      ),
    );
}

export function webhooksRepository(db: Kysely<Database>) {
  const webhook = (orgId: string, id: string) => db.updateTable('webhooks').where('org_id', '=', orgId).where('id', '=', id);

  /**
   * Makes the new deliveries `rows` wait while an earlier delivery of their webhook and resource is
   * pending. On PostgreSQL the last pending one of each is share-locked first, so that it cannot end
   * unseen: the worker's release of the next delivery (`recordAll`) would not see these rows before
   * they commit, so this decision must see that one's end, or hold it back until after the commit.
   * (An earlier one than the last is not in flight: it waits behind the last's predecessors.)
   */
  async function waitBehindEarlier(orgId: string, rows: readonly NewDelivery[]): Promise<void> {
    const ids = rows.map((row) => row.id);
    if (isPostgres(db)) {
      await db
        .selectFrom('webhook_deliveries as d')
        .select('d.id')
        .where('d.org_id', '=', orgId)
        .where('d.webhook_id', 'in', [...new Set(rows.map((row) => row.webhook_id))])
        .where('d.ordering_key', 'in', [...new Set(rows.map((row) => row.ordering_key!))])
        .where('d.status', '=', 'pending')
        .where('d.id', 'not in', ids)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries as later')
                .select('later.id')
                .whereRef('later.org_id', '=', 'd.org_id')
                .whereRef('later.webhook_id', '=', 'd.webhook_id')
                .whereRef('later.ordering_key', '=', 'd.ordering_key')
                .where('later.status', '=', 'pending')
                .whereRef('later.seq', '>', 'd.seq')
                .where('later.id', 'not in', ids),
            ),
          ),
        )
        .forShare()
        .execute();
    }
    await db
      .updateTable('webhook_deliveries as d')
      .set({ next_attempt_at: null })
      .where('d.org_id', '=', orgId)
      .where('d.id', 'in', ids)
      .where(earlierPending)
      .execute();
  }

  return {
    find(orgId: string, id: string): Promise<WebhooksTable | undefined> {
      return db.selectFrom('webhooks').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    },

    list(orgId: string, paging: Paging): Promise<WebhooksTable[]> {
      return db
        .selectFrom('webhooks')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_date')
        .orderBy('id')
        .$call((q) => pageWindow(q, paging))
        .execute();
    },

    /** The enabled webhooks of an organization and the event types of each (joined by spaces). */
    enabled(orgId: string): Promise<{ id: string; event_types: string }[]> {
      return enabledWebhooks(db, orgId);
    },

    /** Locks the webhook's row until the transaction ends; whether it exists. */
    lock(orgId: string, id: string): Promise<boolean> {
      return lockRow(db, 'webhooks', orgId, id);
    },

    async insert(row: WebhooksTable): Promise<void> {
      await db.insertInto('webhooks').values(row).execute();
    },

    async update(orgId: string, id: string, patch: WebhookPatch): Promise<void> {
      await webhook(orgId, id).set(patch).execute();
    },

    /** Deletes the webhook with its deliveries and their attempts; whether it existed. */
    async delete(orgId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('webhooks').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /**
     * Inserts deliveries, numbered in the order given, each waiting (no `next_attempt_at`) while an
     * earlier delivery of its webhook and resource is pending. The number is PostgreSQL's identity;
     * SQLite's writers take turns, so there it is the largest so far plus one.
     */
    async insertDeliveries(rows: readonly NewDelivery[]): Promise<void> {
      if (rows.length === 0) return;
      let next = 0;
      if (!isPostgres(db)) {
        const { last } = await db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.max('seq').as('last'))
          .executeTakeFirstOrThrow();
        next = Number(last ?? 0) + 1;
      }
      for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
        const chunk = rows.slice(start, start + ROWS_PER_INSERT);
        await db
          .insertInto('webhook_deliveries')
          .values(isPostgres(db) ? chunk : chunk.map((row) => ({ ...row, seq: next++ })))
          .execute();
        const keyed = chunk.filter((row) => row.ordering_key !== null);
        for (const orgId of new Set(keyed.map((row) => row.org_id))) {
          await waitBehindEarlier(
            orgId,
            keyed.filter((row) => row.org_id === orgId),
          );
        }
      }
    },

    findDelivery(orgId: string, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
      return db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('webhook_id', '=', webhookId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** Newest first. */
    deliveries(orgId: string, webhookId: string, paging: Paging): Promise<DeliveryRow[]> {
      return db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('webhook_id', '=', webhookId)
        .orderBy('id', 'desc')
        .$call((q) => pageWindow(q, paging))
        .execute();
    },

    /** The attempts of the deliveries, in order. */
    attemptsOf(orgId: string, deliveryIds: readonly string[]): Promise<WebhookAttemptsTable[]> {
      if (deliveryIds.length === 0) return Promise.resolve([]);
      return db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('delivery_id', 'in', deliveryIds)
        .orderBy('attempt')
        .execute();
    },

    /** Makes a delivery pending again, due at `at`, retried until `giveUpAt`. */
    async resend(orgId: string, id: string, at: string, giveUpAt: string): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: at, give_up_at: giveUpAt, updated_date: now() })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .execute();
    },

    /** How many events since `since` of the given types the webhook has no pending or successful delivery of. */
    async countUndelivered(orgId: string, webhookId: string, types: readonly string[], since: string): Promise<number> {
      const { count } = await undeliveredEvents(db, orgId, webhookId, types, since)
        .select((eb) => eb.fn.countAll().as('count'))
        .executeTakeFirstOrThrow();
      return Number(count);
    },

    /** Up to `limit` of those events after the event numbered `afterSeq`, in the order of the feed. */
    async undelivered(
      orgId: string,
      webhookId: string,
      types: readonly string[],
      since: string,
      afterSeq: number,
      limit: number,
    ): Promise<EventRow[]> {
      const rows = await undeliveredEvents(db, orgId, webhookId, types, since)
        .select(['e.seq', 'e.id', 'e.type', 'e.created_date', 'e.data', 'e.previous_attributes'])
        .where('e.seq', '>', afterSeq)
        .orderBy('e.seq')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ...row, seq: Number(row.seq) })); // PostgreSQL reads bigint as a string
    },
  };
}

/** The statements of the delivery worker, across organizations. */
export function deliveryQueue(db: Kysely<Database>) {
  return {
    /** The enabled webhooks that have a delivery due at `at`. */
    async endpointsDue(at: string): Promise<Endpoint[]> {
      const rows = await db
        .selectFrom('webhooks as w')
        .select(['w.org_id', 'w.id'])
        .where('w.disabled_date', 'is', null)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('webhook_deliveries as d')
              .select('d.id')
              .whereRef('d.org_id', '=', 'w.org_id')
              .whereRef('d.webhook_id', '=', 'w.id')
              .where('d.status', '=', 'pending')
              .where('d.next_attempt_at', '<=', at),
          ),
        )
        .execute();
      return rows.map((row) => ({ orgId: row.org_id, webhookId: row.id }));
    },

    /**
     * Claims up to `count` of the endpoint's due deliveries, oldest first, leaving out any that waits
     * for an earlier delivery of its resource, with where and how to post them (none once the webhook
     * is disabled or deleted): each is pushed to `leaseEnd`, so that no other worker takes it while its
     * attempt runs, and it is due again if the process dies. On PostgreSQL, FOR UPDATE SKIP LOCKED lets
     * several instances claim side by side; on SQLite the statement runs alone.
     */
    async claim(endpoint: Endpoint, count: number, at: string, leaseEnd: string): Promise<ClaimedDelivery[]> {
      let due = db
        .selectFrom('webhook_deliveries as d')
        .select(['d.org_id', 'd.id'])
        .where('d.org_id', '=', endpoint.orgId)
        .where('d.webhook_id', '=', endpoint.webhookId)
        .where('d.status', '=', 'pending')
        .where('d.next_attempt_at', '<=', at)
        .where((eb) => eb.not(earlierPending(eb)))
        .orderBy('d.next_attempt_at')
        .orderBy('d.seq')
        .limit(count);
      if (isPostgres(db)) due = due.forUpdate().skipLocked();
      const webhook = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
        eb.selectFrom('webhooks as w').whereRef('w.org_id', '=', 'webhook_deliveries.org_id').whereRef('w.id', '=', 'webhook_deliveries.webhook_id');
      return db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: leaseEnd })
        .where(sql<boolean>`(org_id, id) in (${due})`)
        .where((eb) => eb.exists(webhook(eb).select('w.id').where('w.disabled_date', 'is', null)))
        .returningAll()
        .returning((eb) => [webhook(eb).select('w.url').as('url'), webhook(eb).select('w.secret').as('secret')])
        .$narrowType<{ url: string; secret: string }>() // the webhook exists: the condition above
        .execute();
    },

    /**
     * Records attempts and their consequences, in one transaction: each delivery done, due again at its
     * `retryAt`, or failed for good (`retryAt` null); once one is done or failed, the next delivery of
     * its resource is released. A webhook whose attempt failed is marked failing, and disabled with the
     * attempt's `disabledReason` when it has been failing since `disableIfFailingSince` or before; one
     * whose attempt succeeded is failing no more. Attempts of webhooks deleted meanwhile are dropped.
     */
    async recordAll(attempts: readonly FinishedAttempt[], disableIfFailingSince: string): Promise<void> {
      const at = Date.now();
      await inTransaction(db, async (trx) => {
        // The webhooks' rows first, in one order, as a deletion (cascading to deliveries and attempts) takes its
        // webhook's first: they then wait for each other instead of deadlocking. Not FOR UPDATE, which would also
        // hold back every write queueing a delivery to these webhooks (their foreign key's lock) until the commit.
        const webhookKeys = [...new Map(attempts.map(({ delivery }) => [`${delivery.org_id}/${delivery.webhook_id}`, delivery])).values()];
        const query = trx
          .selectFrom('webhooks')
          .select(['org_id', 'id', 'failing_since'])
          .where(
            keyIn(
              sql`(org_id, id)`,
              webhookKeys.map((delivery) => [delivery.org_id, delivery.webhook_id]),
            ),
          )
          .orderBy('org_id')
          .orderBy('id');
        const webhooks = await (isPostgres(trx) ? query.forNoKeyUpdate() : query).execute();
        const failingSince = new Map(webhooks.map((row) => [`${row.org_id}/${row.id}`, row.failing_since]));
        const live = attempts.filter(({ delivery }) => failingSince.has(`${delivery.org_id}/${delivery.webhook_id}`));
        if (live.length === 0) return;
        const keysOf = (finished: readonly FinishedAttempt[]) => finished.map(({ delivery }) => [delivery.org_id, delivery.id] as const);

        await trx
          .insertInto('webhook_attempts')
          .values(
            live.map(({ delivery, attempt }) => ({
              org_id: delivery.org_id,
              delivery_id: delivery.id,
              attempt: delivery.attempts + 1,
              attempted_date: now(),
              duration_ms: attempt.durationMs,
              status_code: attempt.statusCode,
              error: attempt.error,
              response_body: attempt.responseBody,
            })),
          )
          .execute();
        const deliveries = trx.updateTable('webhook_deliveries').set((eb) => ({ attempts: eb('attempts', '+', 1), updated_date: now() }));
        const succeeded = live.filter((finished) => finished.succeeded);
        const failed = live.filter((finished) => !finished.succeeded && finished.retryAt === null);
        for (const [status, finished] of [
          ['succeeded', succeeded],
          ['failed', failed],
        ] as const) {
          if (finished.length === 0) continue;
          await deliveries
            .set({ status, next_attempt_at: null })
            .where(keyIn(sql`(org_id, id)`, keysOf(finished)))
            .execute();
        }
        for (const { delivery, retryAt } of live) {
          if (retryAt === null) continue;
          await deliveries
            .set({ next_attempt_at: instant(retryAt) })
            .where('org_id', '=', delivery.org_id)
            .where('id', '=', delivery.id)
            .execute();
        }

        // The next delivery of each resource whose delivery ended: a waiting one with no earlier pending.
        const ended = [...succeeded, ...failed].filter(({ delivery }) => delivery.ordering_key !== null);
        if (ended.length > 0) {
          await trx
            .updateTable('webhook_deliveries as d')
            .set({ next_attempt_at: instant(at) })
            .where(
              keyIn(
                sql`(d.org_id, d.webhook_id, d.ordering_key)`,
                ended.map(({ delivery }) => [delivery.org_id, delivery.webhook_id, delivery.ordering_key!]),
              ),
            )
            .where('d.status', '=', 'pending')
            .where('d.next_attempt_at', 'is', null)
            .where((eb) => eb.not(earlierPending(eb)))
            .execute();
        }

        const webhookOf = ({ delivery }: FinishedAttempt) => [delivery.org_id, delivery.webhook_id] as const;
        const recovered = succeeded.filter((finished) => failingSince.get(webhookOf(finished).join('/')) !== null);
        if (recovered.length > 0) {
          await trx
            .updateTable('webhooks')
            .set({ failing_since: null })
            .where(keyIn(sql`(org_id, id)`, recovered.map(webhookOf)))
            .execute();
        }
        const failures = live.filter((finished) => !finished.succeeded);
        const starting = failures.filter((finished) => failingSince.get(webhookOf(finished).join('/')) === null);
        if (starting.length > 0) {
          await trx
            .updateTable('webhooks')
            .set({ failing_since: instant(at) })
            .where(keyIn(sql`(org_id, id)`, starting.map(webhookOf)))
            .where('failing_since', 'is', null)
            .execute();
        }
        const disabling = new Map<string, FinishedAttempt>();
        for (const finished of failures) {
          const since = failingSince.get(webhookOf(finished).join('/'));
          if (since && since <= disableIfFailingSince) disabling.set(webhookOf(finished).join('/'), finished);
        }
        for (const finished of disabling.values()) {
          await trx
            .updateTable('webhooks')
            .set({ disabled_date: now(), disabled_reason: finished.disabledReason, updated_date: now() })
            .where('org_id', '=', finished.delivery.org_id)
            .where('id', '=', finished.delivery.webhook_id)
            .where('disabled_date', 'is', null)
            .execute();
        }
      });
    },

    /** Deletes the deliveries finished (succeeded or failed for good) before `cutoff`, with their attempts; pending ones stay. */
    async pruneFinished(cutoff: string): Promise<void> {
      await db.deleteFrom('webhook_deliveries').where('status', '!=', 'pending').where('updated_date', '<', cutoff).execute();
    },
  };
}
