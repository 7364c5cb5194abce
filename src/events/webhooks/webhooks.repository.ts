import { sql, type ExpressionBuilder, type Insertable, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { compiledOnce } from '../../db/compiled.js';
import { pageWindow } from '../../db/filters.js';
import { isPostgres, lockRow } from '../../db/locking.js';
import type { Database, EventsTable, WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from '../../db/schema.js';
import { inTransaction, type UnitOfWork } from '../../db/unit-of-work.js';
import { SERVER_ACTOR } from '../../lib/actors.js';
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
/** How many endpoints one claim serves. */
const ENDPOINTS_PER_CLAIM = 100;

/** A moment with milliseconds, as `next_attempt_at`, `give_up_at` and `failing_since` hold them. */
export const instant = (ms: number): string => new Date(ms).toISOString();

/** `(a, b) in ((?, ?), ...)`: rows named by the values of several columns. */
function keyIn(columns: RawBuilder<unknown>, keys: readonly (readonly string[])[]) {
  return sql<boolean>`${columns} in (${sql.join(keys.map((key) => sql`(${sql.join(key)})`))})`;
}

/**
 * `(org_id, id) in (...)`: the rows named by the keys that each of `members` selects, looked up by the
 * primary key. The union is a subquery of its own: SQLite plans `(a, b) in (x union all y)` as a scan of
 * the whole table checked against the union's keys (every delivery, sent ones included), and
 * `in (select * from (x union all y))` as one search of the key per member.
 */
function keyInUnion(table: string, members: readonly RawBuilder<unknown>[]) {
  return sql<boolean>`(${sql.ref(`${table}.org_id`)}, ${sql.ref(`${table}.id`)}) in (select * from (${sql.join(members, sql` union all `)}) as members)`;
}

/** Every write looks its organization's webhooks up, so the query is compiled once. */
const enabledWebhooks = compiledOnce(1, (db, orgId) =>
  db.selectFrom('webhooks').select(['id', 'event_types']).where('org_id', '=', orgId).where('disabled_date', 'is', null),
);

/**
 * The first pending delivery of the delivery's webhook and resource, as a select of its key: one step
 * down the index of the resource's order, however many deliveries wait behind it.
 */
function firstPending(delivery: DeliveryRow) {
  // A subquery of its own: SQLite allows no LIMIT on a member of a UNION.
  return sql`select head.org_id, head.id from (select d.org_id, d.id from webhook_deliveries d
    where d.org_id = ${delivery.org_id} and d.webhook_id = ${delivery.webhook_id} and d.ordering_key = ${delivery.ordering_key}
    and d.status = 'pending' order by d.seq limit 1) head`;
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
   * Makes the new deliveries `rows` (numbered `seq`) wait while an earlier delivery of their webhook
   * and resource is pending. Each resource is one probe down its order (`ORDER BY seq DESC LIMIT 1`
   * below the first new one): an `EXISTS` per delivery could be planned as a join scanning every
   * pending delivery of the webhook, and slowed every write as the backlog grew (decision 0014). On
   * PostgreSQL the delivery found is share-locked, so that it cannot end unseen: the worker's release
   * of the next delivery (`recordAll`) would not see these rows before they commit, so this decision
   * must see that one's end, or hold it back until after the commit: a delivery that ended while the
   * lock waited is checked again as it now is (its status), and is then no longer one to wait for.
   * (An earlier one than the last is not in flight: the last waits behind it.) Behind the first new
   * delivery of a resource, the others of the chunk wait in any case.
   */
  async function waitBehindEarlier(orgId: string, rows: readonly (NewDelivery & { seq: number })[]): Promise<void> {
    const firstOfResource = new Map<string, NewDelivery & { seq: number }>();
    const waiting: string[] = [];
    for (const row of rows) {
      const resource = `${row.webhook_id}/${row.ordering_key}`;
      if (firstOfResource.has(resource)) waiting.push(row.id);
      else firstOfResource.set(resource, row);
    }
    const firsts = [...firstOfResource.values()];
    // A subquery of its own per resource: SQLite allows no LIMIT on a member of a UNION.
    const lastEarlier = (row: NewDelivery & { seq: number }) =>
      sql`select last.org_id, last.id from (select d.org_id, d.id from webhook_deliveries d
        where d.org_id = ${orgId} and d.webhook_id = ${row.webhook_id} and d.ordering_key = ${row.ordering_key}
        and d.status = 'pending' and d.seq < ${row.seq} order by d.seq desc limit 1) last`;
    // On PostgreSQL the resources are arrays joined to the probe (LATERAL): one plan whatever their number, where
    // a union of hundreds of members took PostgreSQL seconds to plan.
    const behind = isPostgres(db)
      ? sql<{ webhook_id: string; ordering_key: string }>`select d.webhook_id, d.ordering_key
        from unnest(${firsts.map((row) => row.webhook_id)}::varchar[], ${firsts.map((row) => row.ordering_key)}::varchar[],
          ${firsts.map((row) => row.seq)}::bigint[]) as r(webhook_id, ordering_key, seq)
        cross join lateral (select e.org_id, e.id from webhook_deliveries e
          where e.org_id = ${orgId} and e.webhook_id = r.webhook_id and e.ordering_key = r.ordering_key
          and e.status = 'pending' and e.seq < r.seq order by e.seq desc limit 1) last
        join webhook_deliveries d on d.org_id = last.org_id and d.id = last.id
        where d.status = 'pending' for share of d`
      : sql<{ webhook_id: string; ordering_key: string }>`select d.webhook_id, d.ordering_key from webhook_deliveries d
        where ${keyInUnion('d', firsts.map(lastEarlier))} and d.status = 'pending'`;
    const found = await behind.execute(db);
    const resourcesBehind = new Set(found.rows.map((row) => `${row.webhook_id}/${row.ordering_key}`));
    for (const [resource, row] of firstOfResource) if (resourcesBehind.has(resource)) waiting.push(row.id);
    if (waiting.length === 0) return;
    await db.updateTable('webhook_deliveries').set({ next_attempt_at: null }).where('org_id', '=', orgId).where('id', 'in', waiting).execute();
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
        const numbered = await db
          .insertInto('webhook_deliveries')
          .values(isPostgres(db) ? chunk : chunk.map((row) => ({ ...row, seq: next++ })))
          .returning(['id', 'seq'])
          .execute();
        const seqOf = new Map(numbered.map((row) => [row.id, Number(row.seq)])); // PostgreSQL reads bigint as a string
        const keyed = chunk.map((row) => ({ ...row, seq: seqOf.get(row.id)! })).filter((row) => row.ordering_key !== null);
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

    /**
     * Makes a delivery pending again, retried until `giveUpAt`: due at `at`, or waiting while another
     * delivery of its resource is ahead of it (one being sent or due, or an earlier one), to be
     * released when that one ends, as the worker picks only deliveries that wait for nothing.
     */
    async resend(orgId: string, id: string, at: string, giveUpAt: string): Promise<void> {
      await db
        .updateTable('webhook_deliveries as d')
        .set((eb) => ({
          status: 'pending',
          next_attempt_at: eb
            .case()
            .when(
              eb.exists(
                eb
                  .selectFrom('webhook_deliveries as other')
                  .select('other.id')
                  .whereRef('other.org_id', '=', 'd.org_id')
                  .whereRef('other.webhook_id', '=', 'd.webhook_id')
                  .whereRef('other.ordering_key', '=', 'd.ordering_key')
                  .where('other.status', '=', 'pending')
                  .whereRef('other.id', '!=', 'd.id')
                  .where((other) => other.or([other('other.next_attempt_at', 'is not', null), other('other.seq', '<', other.ref('d.seq'))])),
              ),
            )
            .then(null)
            .else(at)
            .end(),
          give_up_at: giveUpAt,
          updated_date: now(),
        }))
        .where('d.org_id', '=', orgId)
        .where('d.id', '=', id)
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
        .select(['e.seq', 'e.id', 'e.type', 'e.created_date', 'e.data', 'e.previous_attributes', 'e.actor_type', 'e.actor_id', 'e.actor_name'])
        .where('e.seq', '>', afterSeq)
        .orderBy('e.seq')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ...row, seq: Number(row.seq) })); // PostgreSQL reads bigint as a string
    },
  };
}

/**
 * PostgreSQL's claim: the endpoints are arrays joined to the pick (LATERAL), each with its webhook by
 * the primary key: one plan whatever their number, where PostgreSQL planned a union member by member.
 * The deliveries picked are then joined by their primary key: as `(org_id, id) in (...)` alongside the
 * webhooks, PostgreSQL could read every delivery of each webhook to find them. Its text is the same
 * for any number of endpoints: built and compiled once, and a named statement (run every round).
 */
const claimDuePostgres = compiledOnce(5, (db, orgIds, webhookIds, counts, at, leaseEnd) => {
  const picked = sql<{ org_id: string; id: string; url: string; secret: string }>`(select due.org_id, due.id, w.url, w.secret
    from unnest(${orgIds}::varchar[], ${webhookIds}::varchar[], ${counts}::integer[]) as e(org_id, webhook_id, count)
    join webhooks w on w.org_id = e.org_id and w.id = e.webhook_id and w.disabled_date is null
    cross join lateral (select d.org_id, d.id from webhook_deliveries d
      where d.org_id = e.org_id and d.webhook_id = e.webhook_id and d.next_attempt_at <= ${at}
      order by d.next_attempt_at, d.seq limit e.count for update skip locked) due)`;
  return db
    .updateTable('webhook_deliveries')
    .from(picked.as('picked'))
    .set({ next_attempt_at: leaseEnd })
    .whereRef('picked.org_id', '=', 'webhook_deliveries.org_id')
    .whereRef('picked.id', '=', 'webhook_deliveries.id')
    .returningAll('webhook_deliveries')
    .returning(['picked.url', 'picked.secret']);
});

/** SQLite's claims, by their number of endpoints: each text built and compiled once. */
const sqliteClaims = new Map<number, (db: Kysely<Database>, ...values: unknown[]) => Promise<ClaimedDelivery[]>>();

/**
 * SQLite's claim for `endpoints` endpoints, run with the lease's end and then, for each endpoint, its
 * organization, webhook, the moment due and the count. A subquery of its own per endpoint: SQLite
 * allows no LIMIT on a member of a UNION. The text differs with the number of endpoints (SQLite binds
 * no arrays): one compiled once for each number.
 */
function claimDueSqlite(endpoints: number) {
  let claim = sqliteClaims.get(endpoints);
  if (!claim) {
    claim = compiledOnce(1 + 4 * endpoints, (db, leaseEnd, ...members) => {
      const picked = keyInUnion(
        'webhook_deliveries',
        Array.from(
          { length: endpoints },
          (_, n) => sql`select due.org_id, due.id from (select d.org_id, d.id from webhook_deliveries d
          where d.org_id = ${members[4 * n]} and d.webhook_id = ${members[4 * n + 1]} and d.next_attempt_at <= ${members[4 * n + 2]}
          order by d.next_attempt_at, d.seq limit ${members[4 * n + 3]}) due`,
        ),
      );
      // SQLite's RETURNING names the updated table alone: the webhook by subqueries on its primary key.
      const webhook = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
        eb.selectFrom('webhooks as w').whereRef('w.org_id', '=', 'webhook_deliveries.org_id').whereRef('w.id', '=', 'webhook_deliveries.webhook_id');
      return db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: leaseEnd })
        .where(picked)
        .where((eb) => eb.exists(webhook(eb).select('w.id').where('w.disabled_date', 'is', null)))
        .returningAll()
        .returning((eb) => [webhook(eb).select('w.url').as('url'), webhook(eb).select('w.secret').as('secret')])
        .$narrowType<{ url: string; secret: string }>(); // the webhook exists: the condition above
    });
    sqliteClaims.set(endpoints, claim);
  }
  return claim;
}

/**
 * Claims, for each endpoint asked, up to its `count` of due deliveries, oldest first, with where and
 * how to post them (none once the webhook is disabled or deleted), in one statement: each is pushed
 * to `leaseEnd`, so that no other worker takes it while its attempt runs, and it is due again if the
 * process dies. A delivery waiting behind an earlier one of its resource has no `next_attempt_at`,
 * so each endpoint's pick is one range of the index of ready deliveries, read in its order, with a
 * limit of its own (decision 0014). On PostgreSQL, FOR UPDATE SKIP LOCKED lets several instances
 * claim side by side; on SQLite the statement runs alone.
 */
async function claimDue(
  db: Kysely<Database>,
  wants: readonly { endpoint: Endpoint; count: number }[],
  at: string,
  leaseEnd: string,
): Promise<ClaimedDelivery[]> {
  const claimed: ClaimedDelivery[] = [];
  // SQLite allows 500 members to a UNION.
  for (let start = 0; start < wants.length; start += ENDPOINTS_PER_CLAIM) {
    const some = wants.slice(start, start + ENDPOINTS_PER_CLAIM);
    if (isPostgres(db)) {
      claimed.push(
        ...(await claimDuePostgres(
          db,
          some.map(({ endpoint }) => endpoint.orgId),
          some.map(({ endpoint }) => endpoint.webhookId),
          some.map(({ count }) => count),
          at,
          leaseEnd,
        )),
      );
      continue;
    }
    claimed.push(
      ...(await claimDueSqlite(some.length)(db, leaseEnd, ...some.flatMap(({ endpoint, count }) => [endpoint.orgId, endpoint.webhookId, at, count]))),
    );
  }
  return claimed;
}

/**
 * Records attempts and their consequences in `trx`, as of `at`: each delivery done, due again at its
 * `retryAt`, or failed for good (`retryAt` null); once one is done or failed, the next delivery of
 * its resource is released. A webhook whose attempt failed is marked failing, and disabled with the
 * attempt's `disabledReason` when it has been failing since `disableIfFailingSince` or before; one
 * whose attempt succeeded is failing no more. Attempts of webhooks deleted meanwhile are dropped.
 */
async function recordAttempts(trx: UnitOfWork, attempts: readonly FinishedAttempt[], disableIfFailingSince: string, at: number): Promise<void> {
  if (isPostgres(trx)) return recordAttemptsPostgres(trx, attempts, disableIfFailingSince, at);
  // The webhooks' rows first, in one order, as a deletion (cascading to deliveries and attempts) takes its
  // webhook's first (on SQLite the transaction is the only writer anyway).
  const webhooks = await webhooksOf(trx, attempts).orderBy('org_id').orderBy('id').execute();
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

  // The next delivery of each resource whose delivery ended: its first pending one, when that one waits.
  const resources = endedResources(live);
  if (resources.length > 0) {
    await trx
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: instant(at) })
      .where('next_attempt_at', 'is', null)
      .where(keyInUnion('webhook_deliveries', resources.map(firstPending)))
      .execute();
  }
  await recordWebhookStates(trx, live, failingSince, disableIfFailingSince, at);
}

/** The webhooks of the attempts, with how long each has been failing. */
function webhooksOf(trx: UnitOfWork, attempts: readonly FinishedAttempt[]) {
  const webhookKeys = [...new Map(attempts.map(({ delivery }) => [`${delivery.org_id}/${delivery.webhook_id}`, delivery])).values()];
  return trx
    .selectFrom('webhooks')
    .select(['org_id', 'id', 'failing_since'])
    .where(
      keyIn(
        sql`(org_id, id)`,
        webhookKeys.map((delivery) => [delivery.org_id, delivery.webhook_id]),
      ),
    );
}

/** One delivery of each resource whose delivery ended (succeeded, or failed for good). */
function endedResources(live: readonly FinishedAttempt[]): DeliveryRow[] {
  const ended = live.filter(({ succeeded, retryAt, delivery }) => (succeeded || retryAt === null) && delivery.ordering_key !== null);
  return [...new Map(ended.map(({ delivery }) => [`${delivery.org_id}/${delivery.webhook_id}/${delivery.ordering_key}`, delivery])).values()];
}

/**
 * PostgreSQL's statements of the records, their texts the same for any number of attempts (arrays):
 * built and compiled once, and named statements, where Kysely built and compiled each for every
 * transaction of records.
 */
const lockWebhooksOf = (lock: 'key share' | 'no key update') =>
  compiledOnce(2, (db, orgIds, ids) => ({
    compile: () =>
      sql<{ org_id: string; id: string; failing_since: string | null }>`select w.org_id, w.id, w.failing_since
      from webhooks w join unnest(${orgIds}::varchar[], ${ids}::varchar[]) as k(org_id, id) on w.org_id = k.org_id and w.id = k.id
      order by w.org_id, w.id for ${sql.raw(lock)} of w`.compile(db),
  }));
const webhookLocks = { 'key share': lockWebhooksOf('key share'), 'no key update': lockWebhooksOf('no key update') };

/** The webhooks of the attempts locked in key order (`lock`), with how long each has been failing. */
function lockWebhooksPostgres(trx: UnitOfWork, lock: 'key share' | 'no key update', attempts: readonly FinishedAttempt[]) {
  const keys = [...new Map(attempts.map(({ delivery }) => [`${delivery.org_id}/${delivery.webhook_id}`, delivery])).values()];
  return webhookLocks[lock](
    trx,
    keys.map((delivery) => delivery.org_id),
    keys.map((delivery) => delivery.webhook_id),
  );
}

/** The attempts' rows inserted and their deliveries updated, in one statement, from arrays. */
const recordPostgres = compiledOnce(
  11,
  (db, orgIds, ids, attempts, durations, statusCodes, errors, responseBodies, statuses, nextAttempts, attemptedDate, updatedDate) => ({
    compile: () =>
      sql`with r (org_id, id, attempt, duration_ms, status_code, error, response_body, status, next_attempt_at) as (
      select * from unnest(${orgIds}::varchar[], ${ids}::varchar[], ${attempts}::integer[], ${durations}::integer[],
        ${statusCodes}::integer[], ${errors}::text[], ${responseBodies}::text[], ${statuses}::varchar[], ${nextAttempts}::varchar[])
    ), recorded as (
      insert into webhook_attempts (org_id, delivery_id, attempt, attempted_date, duration_ms, status_code, error, response_body)
      select org_id, id, attempt, ${attemptedDate}, duration_ms, status_code, error, response_body from r
    )
    update webhook_deliveries d set attempts = d.attempts + 1, updated_date = ${updatedDate}, status = r.status, next_attempt_at = r.next_attempt_at
    from r where d.org_id = r.org_id and d.id = r.id`.compile(db),
  }),
);

/**
 * The first pending delivery of each resource (arrays of organization, webhook and key) made due at
 * `at`, when it waits: the resources joined to the step down each one's order (LATERAL), as in the
 * claim, one plan whatever their number.
 */
const releasePostgres = compiledOnce(4, (db, orgIds, webhookIds, orderingKeys, at) => {
  const heads = sql<{ org_id: string; id: string }>`(select head.org_id, head.id
      from unnest(${orgIds}::varchar[], ${webhookIds}::varchar[], ${orderingKeys}::varchar[]) as r(org_id, webhook_id, ordering_key)
      cross join lateral (select d.org_id, d.id from webhook_deliveries d
        where d.org_id = r.org_id and d.webhook_id = r.webhook_id and d.ordering_key = r.ordering_key
        and d.status = 'pending' order by d.seq limit 1) head)`;
  return db
    .updateTable('webhook_deliveries')
    .from(heads.as('head'))
    .set({ next_attempt_at: at })
    .whereRef('head.org_id', '=', 'webhook_deliveries.org_id')
    .whereRef('head.id', '=', 'webhook_deliveries.id')
    .where('webhook_deliveries.next_attempt_at', 'is', null);
});

/**
 * The attempts' records on PostgreSQL: the webhooks' rows share-locked, one statement for every attempt
 * (their rows inserted and their deliveries updated, with arrays), one releasing the next delivery of
 * each resource whose delivery ended, then, only when an attempt failed or a failing webhook recovered,
 * the webhooks' failure state: statements per batch of attempts, not per attempt.
 */
async function recordAttemptsPostgres(
  trx: UnitOfWork,
  attempts: readonly FinishedAttempt[],
  disableIfFailingSince: string,
  at: number,
): Promise<void> {
  // The webhooks' rows first, in one order, as a deletion (cascading to deliveries and attempts) takes its
  // webhook's first: they then wait for each other instead of deadlocking. FOR KEY SHARE conflicts with the
  // deletion alone: the worker's transactions recording attempts of the same webhooks run side by side (a stronger
  // lock made them take turns, one transaction at a time for every webhook a round touched), as do the writes
  // queueing deliveries to them (their foreign key's lock is the same).
  const webhooks = await lockWebhooksPostgres(trx, 'key share', attempts);
  const failingSince = new Map(webhooks.map((row) => [`${row.org_id}/${row.id}`, row.failing_since]));
  const live = attempts.filter(({ delivery }) => failingSince.has(`${delivery.org_id}/${delivery.webhook_id}`));
  if (live.length === 0) return;

  const column = <T>(of: (finished: FinishedAttempt) => T) => live.map(of);
  await recordPostgres(
    trx,
    column(({ delivery }) => delivery.org_id),
    column(({ delivery }) => delivery.id),
    column(({ delivery }) => delivery.attempts + 1),
    column(({ attempt }) => attempt.durationMs),
    column(({ attempt }) => attempt.statusCode),
    column(({ attempt }) => attempt.error),
    column(({ attempt }) => attempt.responseBody),
    column(({ succeeded, retryAt }) => (succeeded ? 'succeeded' : retryAt === null ? 'failed' : 'pending')),
    column(({ retryAt }) => (retryAt === null ? null : instant(retryAt))),
    now(),
    now(),
  );

  // The next delivery of each resource whose delivery ended: its first pending one, when that one waits. A statement
  // of its own, after the update: a write queueing a delivery behind one that ends here share-locks that one, the
  // update waits for its commit, and only a statement begun after that wait sees the delivery it queued. The
  // resources are arrays joined to the step down each one's order (LATERAL), as in the claim: one plan whatever
  // their number.
  const resources = endedResources(live);
  if (resources.length > 0) {
    await releasePostgres(
      trx,
      resources.map((d) => d.org_id),
      resources.map((d) => d.webhook_id),
      resources.map((d) => d.ordering_key),
      instant(at),
    );
  }

  const changing = live.filter(({ succeeded, delivery }) => !succeeded || failingSince.get(`${delivery.org_id}/${delivery.webhook_id}`) !== null);
  if (changing.length === 0) return;
  // The webhooks whose failure state may change, locked in order, and their state read again: another transaction
  // may have changed it since the share lock was taken.
  for (const row of await lockWebhooksPostgres(trx, 'no key update', changing)) {
    failingSince.set(`${row.org_id}/${row.id}`, row.failing_since);
  }
  await recordWebhookStates(trx, live, failingSince, disableIfFailingSince, at);
}

/** The webhooks' failure state after the attempts: failing no more, failing from `at`, or disabled after a day of it. */
async function recordWebhookStates(
  trx: UnitOfWork,
  live: readonly FinishedAttempt[],
  failingSince: ReadonlyMap<string, string | null>,
  disableIfFailingSince: string,
  at: number,
): Promise<void> {
  const succeeded = live.filter((finished) => finished.succeeded);
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
}

/** The statements of the delivery worker, across organizations. */
export function deliveryQueue(db: Kysely<Database>) {
  return {
    /** The enabled webhooks that have a delivery due at `at`. */
    async endpointsDue(at: string): Promise<Endpoint[]> {
      // Each webhook's earliest ready delivery, as the first entry of its range of the index of ready ones: a
      // subquery with a limit stays one step down that index per webhook, where an EXISTS could be planned as
      // a scan of every delivery of the webhook, the sent ones included.
      const rows = await db
        .selectFrom('webhooks as w')
        .select(['w.org_id', 'w.id'])
        .where('w.disabled_date', 'is', null)
        .where(
          (eb) =>
            eb
              .selectFrom('webhook_deliveries as d')
              .select('d.next_attempt_at')
              .whereRef('d.org_id', '=', 'w.org_id')
              .whereRef('d.webhook_id', '=', 'w.id')
              .where('d.next_attempt_at', 'is not', null)
              .orderBy('d.next_attempt_at')
              .limit(1),
          '<=',
          at,
        )
        .execute();
      return rows.map((row) => ({ orgId: row.org_id, webhookId: row.id }));
    },

    /**
     * Records the attempts that ended and then claims for the endpoints asked, in one transaction: one
     * commit for both (on SQLite an fsync that holds the event loop). A delivery released by a record
     * is due at once and may be claimed by the same transaction. The claimed deliveries are returned
     * once the transaction has committed: no attempt starts on a lease not yet durable.
     */
    recordAndClaim(
      attempts: readonly FinishedAttempt[],
      disableIfFailingSince: string,
      wants: readonly { endpoint: Endpoint; count: number }[],
      leaseMs: number,
    ): Promise<ClaimedDelivery[]> {
      const at = Date.now();
      return inTransaction(db, SERVER_ACTOR, async (trx) => {
        if (attempts.length > 0) await recordAttempts(trx, attempts, disableIfFailingSince, at);
        return claimDue(trx, wants, instant(at), instant(at + leaseMs));
      });
    },

    /** Deletes the deliveries finished (succeeded or failed for good) before `cutoff`, with their attempts; pending ones stay. */
    async pruneFinished(cutoff: string): Promise<void> {
      await db.deleteFrom('webhook_deliveries').where('status', '!=', 'pending').where('updated_date', '<', cutoff).execute();
    },
  };
}
