import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../db/locking.js';
import type { Database } from '../db/schema.js';
import { inTransaction } from '../db/unit-of-work.js';
import { SERVER_ACTOR } from '../lib/actors.js';

/**
 * The order of an organization's event feed, which must never let a reader skip an event that
 * commits after the reader went past its number.
 *
 * SQLite: `seq`, numbered inside write transactions that run one after another, so in commit order.
 *
 * PostgreSQL: writers commit side by side and number their events before they commit, so `seq`
 * is not commit order; a writer takes no lock for it. Instead each event gets a `position` after it
 * committed: a reader of the feed first gives the next positions to every committed event without
 * one, in `seq` order, one reader of an organization at a time (the row of `event_feeds`). An event
 * that commits later gets a later position, so nothing ever appears behind a reader. Two changes of
 * one resource keep their order: the second waited for the first one's row lock, so it numbered
 * its event after the first committed, and no reader sees it committed without the first
 * (docs/decisions/0008).
 */

/** The column the feed is read in order of. */
export function feedColumn(db: Kysely<Database>): 'position' | 'seq' {
  return isPostgres(db) ? 'position' : 'seq';
}

/**
 * Positions given by one transaction at most: a long backlog is placed by several short ones, each
 * read of the feed placing more than its largest page (1,000). 10,000 at once took over the default
 * statement timeout (10 s) on a loaded 2-core machine, and the feed then answered 503 every time.
 */
const PLACED_AT_ONCE = 2_000;

/** PostgreSQL: gives the organization's committed events without a position the next ones, in `seq` order (up to PLACED_AT_ONCE). */
export async function placeCommittedEvents(db: Kysely<Database>, orgId: string): Promise<void> {
  if (!isPostgres(db)) return;
  // Most reads find nothing new to place: no write then.
  const unplaced = await db.selectFrom('events').select('seq').where('org_id', '=', orgId).where('position', 'is', null).limit(1).executeTakeFirst();
  if (!unplaced) return;
  await inTransaction(db, SERVER_ACTOR, async (trx) => {
    // Locks the organization's feed until the commit; the next statement then sees what a reader before placed.
    await sql`insert into event_feeds (org_id, last_position) values (${orgId}, 0)
      on conflict (org_id) do update set last_position = event_feeds.last_position`.execute(trx);
    await sql`with ranked as (
        select seq, row_number() over (order by seq) as n from events
        where org_id = ${orgId} and position is null order by seq limit ${sql.lit(PLACED_AT_ONCE)}
      ), placed as (
        update events set position = (select last_position from event_feeds where org_id = ${orgId}) + ranked.n
        from ranked where events.org_id = ${orgId} and events.seq = ranked.seq
        returning events.position
      )
      update event_feeds set last_position = (select max(position) from placed)
      where org_id = ${orgId} and exists (select 1 from placed)`.execute(trx);
  });
}
