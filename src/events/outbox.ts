import type { Kysely } from 'kysely';
import { stringify } from 'safe-stable-stringify';
import { compiledOnce } from '../db/compiled.js';
import { isPostgres } from '../db/locking.js';
import type { ShiftedRow } from '../db/dense-order.js';
import type { Database } from '../db/schema.js';
import { unnestedInsertReading } from '../db/unnested-inserts.js';
import { actorOf, beforeCommit, inSavepoint, onRollback, type UnitOfWork } from '../db/unit-of-work.js';
import { newId } from '../lib/ids.js';
import { now } from '../lib/time.js';
import { resourceIdOf, type EventDataOf, type EventPayload, type EventType } from './event-types.js';
import { queueDeliveries } from './webhooks/deliveries.js';

/** Events recorded in a unit of work, written when it is about to commit. */
const pending = new WeakMap<Kysely<Database>, EventPayload[]>();

/**
 * Records an event of the change made in the unit of work `trx`, with who made it (the unit's actor),
 * and queues it for every webhook of the organization that subscribes to its type: the event exists
 * exactly when the change committed, whatever crashes in between. It takes a unit of work only: a
 * change made on another handle would skip its event, so it does not compile.
 *
 * The rows are written last, just before the commit (see `writeEvents`), unless the unit writes
 * them earlier (`writeRecordedEvents`).
 */
export function recordEvent<T extends EventType>(
  trx: UnitOfWork,
  orgId: string,
  type: T,
  data: EventDataOf<T>,
  previousAttributes?: Record<string, unknown>,
): EventPayload<T> {
  let events = pending.get(trx);
  if (!events) {
    beforeCommit(trx, writeEvents);
    pending.set(trx, (events = []));
  }
  const event: EventPayload<T> = { id: newId(), type, createdDate: now(), organizationId: orgId, actor: actorOf(trx), data };
  if (previousAttributes) event.previousAttributes = previousAttributes;
  events.push(event);
  // A nested unit of work that fails rolls its change back: its event goes with it.
  const recorded = events;
  onRollback(trx, () => {
    const index = recorded.indexOf(event);
    if (index >= 0) recorded.splice(index, 1);
  });
  return event;
}

/** The events recorded so far in the unit of work `trx` and not written yet, in the order they were recorded. */
export function recordedEvents(trx: UnitOfWork): readonly EventPayload[] {
  return pending.get(trx) ?? [];
}

/** Properties whose change alone is no change: they move only because something else did. */
const CONSEQUENTIAL = new Set(['updatedDate']);

/**
 * The previous values of the properties that differ between two representations of a resource (as
 * Stripe's `previous_attributes`); undefined when nothing but consequential properties differ, that
 * is when there is no change to report. A property absent before is given as null.
 */
export function previousAttributes(before: object, after: object): Record<string, unknown> | undefined {
  const old = before as Record<string, unknown>;
  const current = after as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  let real = false;
  for (const key of new Set([...Object.keys(old), ...Object.keys(current)])) {
    if (stringify(old[key]) === stringify(current[key])) continue;
    changed[key] = old[key] ?? null;
    if (!CONSEQUENTIAL.has(key)) real = true;
  }
  return real ? changed : undefined;
}

/**
 * Records an update event for a resource that went from `before` to `after`, with the previous
 * values of what changed; records nothing when nothing did. Whether it recorded one.
 */
export function recordUpdate<T extends EventType>(
  trx: UnitOfWork,
  orgId: string,
  type: T,
  before: Partial<EventDataOf<T>>,
  after: EventDataOf<T>,
): boolean {
  const previous = previousAttributes(before, after);
  if (previous) recordEvent(trx, orgId, type, after, previous);
  return previous !== undefined;
}

/**
 * Records an update event for each item that a change of its list shifted (`shifted`: each one's id
 * with its former orderIndex and updatedDate), as `read` gives the items now.
 */
export async function recordShifts<T extends EventType>(
  trx: UnitOfWork,
  orgId: string,
  type: T,
  shifted: readonly ShiftedRow[],
  read: (ids: string[]) => Promise<(EventDataOf<T> & { id: string })[]>,
): Promise<void> {
  if (shifted.length === 0) return;
  const items = new Map((await read(shifted.map((row) => row.id))).map((item) => [item.id, item]));
  for (const { id, orderIndex, updatedDate } of shifted) {
    const item = items.get(id)!;
    recordUpdate(trx, orgId, type, { ...item, orderIndex, updatedDate }, item);
  }
}

/** The event row's columns, in the order of the parameters of the two compiled inserts below. */
const EVENT_COLUMNS = [
  'org_id',
  'id',
  'type',
  'created_date',
  'data',
  'previous_attributes',
  'resource_id',
  'actor_type',
  'actor_id',
  'actor_name',
] as const;

/** An event row of the compiled statements' stand-ins, each column bound once, in EVENT_COLUMNS' order. */
const eventValues = (parameters: string[]) =>
  Object.fromEntries(EVENT_COLUMNS.map((column, index) => [column, parameters[index]])) as Record<(typeof EVENT_COLUMNS)[number], string>;

/** Most units of work record one event, so its insert is compiled once. */
const insertEvent = compiledOnce(EVENT_COLUMNS.length, (db, ...parameters) => db.insertInto('events').values(eventValues(parameters)));

/**
 * PostgreSQL: `insertEvent`, and in the same statement the enabled webhooks of the event's
 * organization (as webhooksRepository.enabled reads them).
 */
const insertEventReadingWebhooks = compiledOnce(EVENT_COLUMNS.length, (db, ...parameters) =>
  db
    .with('event', (db) => db.insertInto('events').values(eventValues(parameters)).returning('org_id'))
    .selectFrom('webhooks')
    .select(['webhooks.id', 'webhooks.event_types'])
    .where('webhooks.org_id', '=', (eb) => eb.selectFrom('event').select('event.org_id'))
    .where('webhooks.disabled_date', 'is', null),
);

/** The event's row. */
function eventRow(event: EventPayload) {
  return {
    org_id: event.organizationId,
    id: event.id,
    type: event.type,
    created_date: event.createdDate,
    data: JSON.stringify(event.data),
    previous_attributes: event.previousAttributes ? JSON.stringify(event.previousAttributes) : null,
    resource_id: resourceIdOf(event),
    actor_type: event.actor?.type ?? null,
    actor_id: event.actor?.id ?? null,
    actor_name: event.actor?.name ?? null,
  };
}

/** How many event rows one insert statement carries on SQLite. */
const ROWS_PER_INSERT = 1000;

/**
 * PostgreSQL: a unit's events in one statement whatever their count (an import's batch records two a
 * person), and in the same statement the enabled webhooks of their organizations (as
 * webhooksRepository.enabled reads them), with the organization of each.
 */
const insertEventsReadingWebhooks = unnestedInsertReading<(typeof EVENT_COLUMNS)[number], { id: string; event_types: string; org_id: string }>(
  'events',
  EVENT_COLUMNS,
  '"org_id"',
  'select "id", "event_types", "org_id" from "webhooks" where "org_id" in (select "org_id" from "inserted") and "disabled_date" is null',
);

/**
 * Writes the events recorded so far in the unit of work `trx` now instead of just before its commit,
 * and forgets them (a later event is still written before the commit). For a unit whose change is
 * one statement: its event's statement can then be sent before the change is answered, in the same
 * round trip on PostgreSQL (direct-transactions.ts); a change that fails leaves the transaction
 * aborted, which fails the event's statement too, and the unit rolls back. Inside a nested unit it
 * writes nothing: a rollback to its savepoint would take the enclosing unit's events with it.
 */
export function writeRecordedEvents(trx: UnitOfWork): Promise<void> {
  return inSavepoint(trx) ? Promise.resolve() : writeEvents(trx);
}

/**
 * Writes the unit of work's events, in the order they were recorded, and their deliveries. Nothing
 * is locked for their order: the feed places them once they committed (events/feed-positions.ts).
 */
async function writeEvents(trx: UnitOfWork): Promise<void> {
  const events = pending.get(trx) ?? [];
  pending.delete(trx);
  if (events.length === 0) return;
  if (events.length === 1) {
    const row = eventRow(events[0]!);
    // SQL null for an event without previous attributes.
    const values = [
      row.org_id,
      row.id,
      row.type,
      row.created_date,
      row.data,
      row.previous_attributes,
      row.resource_id,
      row.actor_type,
      row.actor_id,
      row.actor_name,
    ];
    if (isPostgres(trx)) {
      // One round trip for the event's row and the webhooks that may want it.
      await queueDeliveries(trx, events, new Map([[row.org_id, await insertEventReadingWebhooks(trx, ...values)]]));
      return;
    }
    await insertEvent(trx, ...values);
  } else if (isPostgres(trx)) {
    // One round trip for the events' rows and the webhooks that may want them; an organization without any has none.
    const webhooksOf = new Map(events.map((event) => [event.organizationId, [] as { id: string; event_types: string }[]]));
    for (const { org_id, ...webhook } of await insertEventsReadingWebhooks(trx, events.map(eventRow))) webhooksOf.get(org_id)?.push(webhook);
    await queueDeliveries(trx, events, webhooksOf);
    return;
  } else {
    for (let start = 0; start < events.length; start += ROWS_PER_INSERT) {
      await trx
        .insertInto('events')
        .values(events.slice(start, start + ROWS_PER_INSERT).map(eventRow))
        .execute();
    }
  }
  await queueDeliveries(trx, events);
}
