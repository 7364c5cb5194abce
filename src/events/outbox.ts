import { sql, type Kysely } from 'kysely';
import { compiledOnce } from '../db/compiled.js';
import { isPostgres } from '../db/locking.js';
import type { Database } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import { now } from '../lib/time.js';
import type { EventPayload, EventType } from './event-types.js';
import { queueDeliveries } from './deliveries.js';

/** The first key of the advisory locks that order one organization's events (the second is the organization's hash). */
const EVENT_ORDER_LOCK = 0x65766e74; // "evnt"

/** Every write records an event, so its insert is compiled once. */
const insertEvent = compiledOnce(5, (db, orgId, id, type, createdDate, data) =>
  db.insertInto('events').values({ org_id: orgId, id, type, created_date: createdDate, data }),
);

/**
 * Records an event in the transaction `trx` of the change it describes, and queues it for every
 * webhook of the organization that subscribes to its type: the event exists exactly when the
 * change committed, whatever crashes in between.
 *
 * The feed pages by `seq` and must never skip an event that commits late with a smaller number.
 * SQLite numbers inside exclusive transactions, so in commit order already. On PostgreSQL the
 * transaction first takes an advisory lock of the organization that it holds until it ends: the
 * organization's events are then numbered one transaction after another, in commit order. Called
 * last in a change, it holds the lock only for the commit.
 */
export async function recordEvent(trx: Kysely<Database>, orgId: string, type: EventType, data: object): Promise<EventPayload> {
  if (!trx.isTransaction) throw new Error(`The ${type} event must be recorded in the transaction of its change`);
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(${EVENT_ORDER_LOCK}, hashtext(${orgId}))`.execute(trx);
  const event: EventPayload = { id: newId(), type, createdDate: now(), organizationId: orgId, data };
  await insertEvent(trx, orgId, event.id, type, event.createdDate, JSON.stringify(data));
  await queueDeliveries(trx, event);
  return event;
}
