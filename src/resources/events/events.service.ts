import type { Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.js';
import type { Database } from '../../db/schema.js';
import { eventOfRow } from '../../events/event-types.js';
import { feedColumn, placeCommittedEvents } from '../../events/feed-positions.js';
import { Invalid } from '../../lib/domain-errors.js';
import { DEFAULT_LIMIT } from '../../lib/paging.js';
import type { Event, EventQuery } from './events.schemas.js';

export const UNKNOWN_CURSOR =
  'names no event of the organization: it may be older than the retention period. Read the collections by updatedDate, then the events from the start';

export function eventsService(db: Kysely<Database>) {
  const order = feedColumn(db);

  /** The place in the feed of the event `id`; an event committed but not placed yet (its webhook came first) is placed first. */
  async function placeOf(orgId: string, id: string): Promise<number> {
    for (;;) {
      const cursor = await db.selectFrom('events').select(order).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      if (!cursor) throw new Invalid({ after: UNKNOWN_CURSOR });
      const place = cursor[order];
      if (place !== null) return Number(place); // PostgreSQL reads bigint as a string
      await placeCommittedEvents(db, orgId);
    }
  }

  return {
    /** Up to `limit + 1` events in commit order after the event `after`, so the caller can tell whether more follow. */
    async list(caller: Caller, query: EventQuery): Promise<Event[]> {
      const { orgId } = caller;
      await placeCommittedEvents(db, orgId);
      const after = query.after === undefined ? 0 : await placeOf(orgId, query.after);
      const rows = await db
        .selectFrom('events')
        .select(['id', 'type', 'created_date', 'data', 'previous_attributes'])
        .where('org_id', '=', orgId)
        .where(order, '>', after)
        .orderBy(order)
        .limit((query.limit ?? DEFAULT_LIMIT) + 1)
        .execute();
      return rows.map((row) => eventOfRow(orgId, row));
    },
  };
}

export type EventsService = ReturnType<typeof eventsService>;
