import type { Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.js';
import type { Database } from '../../db/schema.js';
import { eventOfRow } from '../../events/event-types.js';
import { errors } from '../../lib/errors.js';
import { DEFAULT_LIMIT } from '../../lib/paging.js';
import type { Event, EventQuery } from './events.schemas.js';

export const UNKNOWN_CURSOR =
  'names no event of the organization: it may be older than the retention period. Read the collections by updatedDate, then the events from the start';

export function eventsService(db: Kysely<Database>) {
  return {
    /** Up to `limit + 1` events in commit order after the event `after`, so the caller can tell whether more follow. */
    async list(caller: Caller, query: EventQuery): Promise<Event[]> {
      const { orgId } = caller;
      let position = 0;
      if (query.after !== undefined) {
        const cursor = await db.selectFrom('events').select('seq').where('org_id', '=', orgId).where('id', '=', query.after).executeTakeFirst();
        if (!cursor) throw errors.fieldErrors({ after: UNKNOWN_CURSOR });
        position = Number(cursor.seq); // PostgreSQL reads bigint as a string
      }
      const rows = await db
        .selectFrom('events')
        .select(['id', 'type', 'created_date', 'data', 'previous_attributes'])
        .where('org_id', '=', orgId)
        .where('seq', '>', position)
        .orderBy('seq')
        .limit((query.limit ?? DEFAULT_LIMIT) + 1)
        .execute();
      return rows.map((row) => eventOfRow(orgId, row));
    },
  };
}

export type EventsService = ReturnType<typeof eventsService>;
