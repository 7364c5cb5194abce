import { sql, type Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.js';
import { compiledOnce } from '../../db/compiled.js';
import { jsonObjectSql } from '../../db/json-objects.js';
import { isPostgres } from '../../db/locking.js';
import type { Database } from '../../db/schema.js';
import { EVENT_JSON, EVENT_JSON_COLUMNS, eventOfRow, type EventPayload, type EventType } from '../../events/event-types.js';
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

/**
 * An event's JSON as `eventJson` writes it from the row, written by the database instead from the
 * same list (`EVENT_JSON`): the page's events then reach the server as one text (`group_concat`,
 * `string_agg`), not as eight columns a row joined into a page here. A test holds it equal to
 * `eventJson` for any stored row (test/events/feed-json.test.ts).
 */
const feedEventJson = (postgres: boolean) => jsonObjectSql(EVENT_JSON, postgres);

/**
 * A page of the feed as the database writes it: its events' JSON joined by commas in feed order, as
 * UTF-8 (empty for no event), the id of the last one (null for none), and whether more events
 * follow it.
 */
export interface FeedPage {
  json: Buffer;
  lastId: string | null;
  more: boolean;
}

/** The columns of a page (`FeedPage`) in a statement's row. */
interface FeedPageRow {
  /** Text from PostgreSQL; SQLite's bytes as they are (a blob), not made a JavaScript string and encoded again to be sent. */
  events_json: string | Buffer | null;
  last_id: string | null;
  more: boolean | number;
}

const NO_EVENTS = Buffer.alloc(0);

function feedPageOf(row: FeedPageRow): FeedPage {
  const json = row.events_json;
  return {
    json: json === null ? NO_EVENTS : typeof json === 'string' ? Buffer.from(json) : json,
    lastId: row.last_id,
    more: Boolean(row.more),
  };
}

/** What one read of the feed finds. */
interface FeedRead {
  /** The place of the event `after` in the feed: 0 while it waits for one, null when no event has that id (or none is named). */
  afterPlace: number | null;
  /** Whether committed events wait for their place (PostgreSQL; never on SQLite). */
  unplaced: boolean;
  page: FeedPage;
}

const NO_PAGE: FeedPage = { json: NO_EVENTS, lastId: null, more: false };

/**
 * PostgreSQL: the place of `after` (0 while it has none), whether events wait for theirs and the
 * page after it, in one statement and so one round trip, which is most of what a page costs a
 * consumer. The page starts after `after`'s place, or after `start` when it has none: 0 for a read
 * from the start, null for no page at all (an `after` unknown or not placed yet). The page is up to
 * `limit` events read by the `(org_id, position)` index, their JSON aggregated in one value.
 */
const postgresFeedRead = compiledOnce(8, (db, cursorOrgId, after, unplacedOrgId, lastOrgId, moreOrgId, pageOrgId, start, limit) => ({
  compile: () =>
    sql<FeedPageRow & { after_place: string | null; unplaced: boolean }>`
      select cursor.after_place, cursor.unplaced, page.events_json, page.last_id, page.more
      from (
        select
          (select coalesce(position, 0) from events where org_id = ${cursorOrgId} and id = ${after}) as after_place,
          exists (select seq from events where org_id = ${unplacedOrgId} and position is null) as unplaced
      ) as cursor
      cross join lateral (
        select
          aggregated.events_json,
          (select id from events where org_id = ${lastOrgId} and position = aggregated.last_position) as last_id,
          exists (select 1 from events where org_id = ${moreOrgId} and position > aggregated.last_position) as more
        from (
          select string_agg(event_json, ',' order by position) as events_json, max(position) as last_position
          from (
            select position, ${feedEventJson(true)} as event_json
            from events
            where org_id = ${pageOrgId} and position > coalesce(nullif(cursor.after_place, 0), ${start})
            order by position
            limit ${limit}
          ) as page_events
        ) as aggregated
      ) as page`.compile(db),
}));

/** SQLite: the place of an event (its `seq`: numbered in commit order, never waiting for a place). */
const sqliteCursor = compiledOnce(2, (db, orgId, id) => db.selectFrom('events').select('seq').where('org_id', '=', orgId).where('id', '=', id));

/**
 * SQLite: the page after a place, up to `limit` events in `seq` order, their JSON aggregated in
 * one value: its bytes (a blob; UTF-8, the encoding of every database SQLite makes unless told
 * otherwise), which the server sends as they are.
 */
const sqlitePage = compiledOnce(4, (db, moreOrgId, pageOrgId, after, limit) => ({
  compile: () =>
    sql<FeedPageRow>`
      select
        aggregated.events_json,
        (select id from events where seq = aggregated.last_seq) as last_id,
        exists (select 1 from events where org_id = ${moreOrgId} and seq > aggregated.last_seq) as more
      from (
        select cast(group_concat(event_json, ',' order by seq) as blob) as events_json, max(seq) as last_seq
        from (
          select seq, ${feedEventJson(false)} as event_json
          from events
          where org_id = ${pageOrgId} and seq > ${after}
          order by seq
          limit ${limit}
        ) as page_events
      ) as aggregated`.compile(db),
}));

/** Reads up to `limit` events after the event `after` (from the start without one). */
async function readFeed(db: Kysely<Database>, orgId: string, after: string | undefined, limit: number): Promise<FeedRead> {
  if (isPostgres(db)) {
    const [row] = await postgresFeedRead(db, orgId, after ?? null, orgId, orgId, orgId, orgId, after === undefined ? 0 : null, limit);
    // One row always, the cursor's with its page (no event: an empty page).
    const { after_place: afterPlace, unplaced } = row!;
    return { afterPlace: afterPlace === null ? null : Number(afterPlace), unplaced: Boolean(unplaced), page: feedPageOf(row!) };
  }
  if (after === undefined) return { afterPlace: null, unplaced: false, page: feedPageOf((await sqlitePage(db, orgId, orgId, 0, limit))[0]!) };
  const [cursor] = await sqliteCursor(db, orgId, after);
  return cursor
    ? { afterPlace: cursor.seq, unplaced: false, page: feedPageOf((await sqlitePage(db, orgId, orgId, cursor.seq, limit))[0]!) }
    : { afterPlace: null, unplaced: false, page: NO_PAGE };
}

export function eventsService(db: Kysely<Database>) {
  return {
    /**
     * Up to `limit` events in commit order after the event `after`, as the JSON text of each joined
     * by commas, with whether more follow. Events committed but not placed yet (PostgreSQL) are placed
     * first, `after` among them.
     */
    async list(caller: Caller, query: EventQuery): Promise<FeedPage> {
      const { orgId } = caller;
      const limit = query.limit ?? DEFAULT_LIMIT;
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
      return read.page;
    },

    /**
     * The audit trail: up to `limit` of the organization's events that `filters` keep, newest first (their
     * ids grow with time), before the event `before` when given; still kept, within the retention period.
     */
    async trail(caller: Caller, filters: TrailFilters, page: { limit: number; before?: string }): Promise<EventPayload[]> {
      const { orgId } = caller;
      let query = db.selectFrom('events').select(EVENT_JSON_COLUMNS).where('org_id', '=', orgId);
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
