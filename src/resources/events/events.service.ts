import { sql, type Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.js';
import { compiledOnce } from '../../db/compiled.js';
import { isPostgres } from '../../db/locking.js';
import type { Database } from '../../db/schema.js';
import { ACTOR_COLUMNS, eventOfRow, type EventPayload, type EventRow, type EventType } from '../../events/event-types.js';
import type { ActorType } from '../../lib/actors.js';
import { placeCommittedEvents } from '../../events/feed-positions.js';
import { Invalid } from '../../lib/domain-errors.js';
import { DEFAULT_LIMIT } from '../../lib/paging.js';
import type { EventQuery } from './events.schemas.js';

export const UNKNOWN_CURSOR =
  'names no event of the organization: it may be older than the retention period. Read the collections by updatedDate, then the events from the start';

/** What the audit trail lists: each filter given narrows it. */
export interface TrailFilters {
  actorType?: ActorType;
  /** The actor's id or name, exactly (a token's id or name, a person's user id or email). */
  actor?: string;
  type?: EventType;
  /** The resource the event is about; a user's id finds their values' and agreements' events too. */
  resourceId?: string;
  /** Timestamps: from `since` on, before `until`. */
  since?: string;
  until?: string;
}

/** The columns of an event the feed lists (`eventJson`). */
const FEED_COLUMNS = ['id', 'type', 'created_date', 'data', 'previous_attributes', ...ACTOR_COLUMNS] as const;

/** What one read of the feed finds. */
interface FeedRead {
  /** The place of the event `after` in the feed: 0 while it waits for one, null when no event has that id (or none is named). */
  afterPlace: number | null;
  /** Whether committed events wait for their place (PostgreSQL; never on SQLite). */
  unplaced: boolean;
  rows: EventRow[];
}

/**
 * PostgreSQL: the place of `after` (0 while it has none), whether events wait for theirs and the
 * page after it, in one statement and so one round trip, which is most of what a page costs a
 * consumer. The page starts after `after`'s place, or after `start` when it has none: 0 for a read
 * from the start, null for no page at all (an `after` unknown or not placed yet).
 */
const postgresFeedRead = compiledOnce(6, (db, cursorOrgId, after, unplacedOrgId, pageOrgId, start, limit) =>
  db
    .selectFrom(
      db
        .selectNoFrom((eb) => [
          eb
            .selectFrom('events')
            .select(sql<string>`coalesce(position, 0)`.as('position'))
            .where('org_id', '=', cursorOrgId)
            .where('id', '=', after)
            .as('after_place'),
          eb.exists(eb.selectFrom('events').select('seq').where('org_id', '=', unplacedOrgId).where('position', 'is', null)).as('unplaced'),
        ])
        .as('cursor'),
    )
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('events')
          .select(FEED_COLUMNS)
          .where('org_id', '=', pageOrgId)
          .where('position', '>', sql<number>`coalesce(nullif(cursor.after_place, 0), ${start})`)
          .orderBy('position')
          // The stand-ins are only compiled, never run: each call binds its own numbers.
          .limit(limit as unknown as number)
          .as('page'),
      (join) => join.onTrue(),
    )
    .select(['cursor.after_place', 'cursor.unplaced', ...FEED_COLUMNS.map((column) => `page.${column}` as const)]),
);

/** SQLite: the place of an event (its `seq`: numbered in commit order, never waiting for a place). */
const sqliteCursor = compiledOnce(2, (db, orgId, id) => db.selectFrom('events').select('seq').where('org_id', '=', orgId).where('id', '=', id));

/** SQLite: the page after a place. */
const sqlitePage = compiledOnce(3, (db, orgId, after, limit) =>
  db
    .selectFrom('events')
    .select(FEED_COLUMNS)
    .where('org_id', '=', orgId)
    .where('seq', '>', after as unknown as number)
    .orderBy('seq')
    .limit(limit as unknown as number),
);

/** Reads up to `limit` events after the event `after` (from the start without one). */
async function readFeed(db: Kysely<Database>, orgId: string, after: string | undefined, limit: number): Promise<FeedRead> {
  if (isPostgres(db)) {
    const rows = await postgresFeedRead(db, orgId, after ?? null, orgId, orgId, after === undefined ? 0 : null, limit);
    // One row at least, the cursor's: without a page its event columns are null.
    const [{ after_place: afterPlace, unplaced }] = rows as [(typeof rows)[number]];
    return {
      afterPlace: afterPlace === null ? null : Number(afterPlace),
      unplaced: Boolean(unplaced),
      rows: rows[0]!.id === null ? [] : (rows as EventRow[]),
    };
  }
  if (after === undefined) return { afterPlace: null, unplaced: false, rows: await sqlitePage(db, orgId, 0, limit) };
  const [cursor] = await sqliteCursor(db, orgId, after);
  return cursor
    ? { afterPlace: cursor.seq, unplaced: false, rows: await sqlitePage(db, orgId, cursor.seq, limit) }
    : { afterPlace: null, unplaced: false, rows: [] };
}

export function eventsService(db: Kysely<Database>) {
  return {
    /**
     * Up to `limit + 1` events in commit order after the event `after`, so the caller can tell whether
     * more follow. Events committed but not placed yet (PostgreSQL) are placed first, `after` among them.
     */
    async list(caller: Caller, query: EventQuery): Promise<EventRow[]> {
      const { orgId } = caller;
      const limit = (query.limit ?? DEFAULT_LIMIT) + 1;
      let read = await readFeed(db, orgId, query.after, limit);
      if (read.unplaced) {
        await placeCommittedEvents(db, orgId);
        read = await readFeed(db, orgId, query.after, limit);
      }
      // An `after` behind more events waiting for their place than one placing gives (its webhook came first).
      while (read.afterPlace === 0) {
        await placeCommittedEvents(db, orgId);
        read = await readFeed(db, orgId, query.after, limit);
      }
      if (query.after !== undefined && read.afterPlace === null) throw new Invalid({ after: UNKNOWN_CURSOR });
      return read.rows;
    },

    /**
     * The audit trail: up to `limit` of the organization's events that `filters` keep, newest first (their
     * ids grow with time), before the event `before` when given; still kept, within the retention period.
     */
    async trail(caller: Caller, filters: TrailFilters, page: { limit: number; before?: string }): Promise<EventPayload[]> {
      const { orgId } = caller;
      let query = db
        .selectFrom('events')
        .select(['id', 'type', 'created_date', 'data', 'previous_attributes', ...ACTOR_COLUMNS])
        .where('org_id', '=', orgId);
      if (filters.actorType !== undefined) query = query.where('actor_type', '=', filters.actorType);
      const { actor } = filters;
      if (actor !== undefined) query = query.where((eb) => eb.or([eb('actor_id', '=', actor), eb('actor_name', '=', actor)]));
      if (filters.type !== undefined) query = query.where('type', '=', filters.type);
      if (filters.resourceId !== undefined) query = query.where('resource_id', '=', filters.resourceId);
      if (filters.since !== undefined) query = query.where('created_date', '>=', filters.since);
      if (filters.until !== undefined) query = query.where('created_date', '<', filters.until);
      if (page.before !== undefined) query = query.where('id', '<', page.before);
      const rows = await query.orderBy('id', 'desc').limit(page.limit).execute();
      return rows.map((row) => eventOfRow(orgId, row));
    },
  };
}

export type EventsService = ReturnType<typeof eventsService>;
