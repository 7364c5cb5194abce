import { sql, type Kysely } from 'kysely';
import { compiledOnce } from './compiled.js';
import { isPostgres } from './locking.js';
import type { Database } from './schema.js';
import { currentReadRoute, onPrimary, primaryLsn, requireReplayOf } from './read-routing.js';

/**
 * The `updatedDate` up to which what a list reads next is complete: every change with an earlier
 * updatedDate has committed before this returns (or rolled back), so a list read afterwards shows
 * it, and every change not visible yet will carry this updatedDate or a later one. A sync job that
 * resumes from it (`updatedDate=<watermark>/..`) misses nothing (docs/decisions/0009).
 *
 * A change's timestamps are taken inside its transaction, never before it begins: that is what
 * both engines' answers rely on.
 */
export async function updatedDateWatermark(db: Kysely<Database>, orgId: string): Promise<string> {
  if (!isPostgres(db)) return keptNewestCommittedTimestamp(db, orgId);
  // Only the primary knows its running transactions; a replica may serve the list that follows once it
  // has replayed everything committed by now.
  const watermark = await onPrimary(() => sharedOldestTransactionStart(db));
  if (currentReadRoute()?.replica) requireReplayOf(await primaryLsn(db));
  return watermark;
}

/** The earliest moment a stored timestamp can name: where a job starts when nothing else can be said. */
const START_OF_TIME = '0001-01-01T00:00:00Z';

/**
 * PostgreSQL: when the oldest transaction of the database still running began (this statement
 * included, so now when none is), to the second below. A write running now took its timestamps
 * after it began, so no later than that; one that ended before this statement is visible to the
 * statements after it. Transactions of other roles count only where the server's role may see them
 * in pg_stat_activity (the same role, or pg_read_all_stats); none count with track_activities off,
 * and then nothing can be said. (The function under the view pg_stat_activity: the view's joins
 * cost three times as much to plan as the rest.)
 */
async function oldestTransactionStart(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ watermark: string | null }>`
    select to_char(min(xact_start) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as watermark
    from pg_stat_get_activity(null)
    where datid = (select oid from pg_database where datname = current_database()) and backend_type = 'client backend'`.execute(db);
  return rows[0]?.watermark ?? START_OF_TIME;
}

/** The reading of `oldestTransactionStart` under way on each handle. */
const readings = new WeakMap<Kysely<Database>, Promise<string>>();

/**
 * `oldestTransactionStart`, one statement for the lists that ask while it runs: it is the same for
 * every organization, and a reading taken before a list asked is as good as its own, since the list
 * is read after it either way. A write that began before the reading is either running at it (and
 * counted) or visible to the list; one that began after it took its timestamps after the reading's
 * own transaction began, so no earlier than the watermark. Under load, a statement (a write to
 * PostgreSQL's socket and a wake-up of a backend) for many lists instead of one each.
 */
function sharedOldestTransactionStart(db: Kysely<Database>): Promise<string> {
  let reading = readings.get(db);
  if (!reading) {
    reading = oldestTransactionStart(db).finally(() => readings.delete(db));
    readings.set(db, reading);
  }
  return reading;
}

/** Tables whose rows carry when they last changed, with that column. */
const CHANGED_DATES = [
  ['users', 'updated_date'],
  ['userfield_categories', 'updated_date'],
  ['userfields', 'updated_date'],
  ['offering_categories', 'updated_date'],
  ['offerings', 'updated_date'],
  ['registrations', 'updated_date'],
  ['agreements', 'created_date'],
  ['agreements', 'updated_date'],
] as const;

/**
 * SQLite: the newest timestamp already committed, of any event or of the organization's changes.
 * Write transactions run one at a time (BEGIN IMMEDIATE) and take their timestamps while they hold
 * the write lock, so one that has not committed yet, in this process or another (an import), took
 * them after the last commit: no earlier than any timestamp committed.
 */
async function newestCommittedTimestamp(db: Kysely<Database>, orgId: string): Promise<string> {
  const newest = [
    sql`select max(created_date) as t from events`,
    sql`select created_date from organizations where id = ${orgId}`,
    ...CHANGED_DATES.map(([table, column]) => sql`select max(${sql.ref(column)}) from ${sql.table(table)} where org_id = ${orgId}`),
  ];
  const { rows } = await sql<{ watermark: string | null }>`select max(t) as watermark from (${sql.join(newest, sql` union all `)})`.execute(db);
  return rows[0]?.watermark ?? START_OF_TIME;
}

/**
 * SQLite: what moves whenever something may have committed since it was read: another connection's
 * commit (`data_version`, which this connection's own commits leave alone) or a change made on this
 * connection (`total_changes()`, counted when the statement runs, so before its commit). Read while
 * a write batch is open, it waits for the batch's commit, as every read does.
 */
const commitMark = compiledOnce(0, (db) =>
  db.selectNoFrom([sql<number>`(select data_version from pragma_data_version)`.as('version'), sql<number>`total_changes()`.as('changes')]),
);

/** The organizations' newest committed timestamps, as read since the commit mark last moved. */
const kept = new WeakMap<Kysely<Database>, { mark: string; newest: Map<string, string> }>();
/** Beyond it, the organizations read since the last commit are forgotten. */
const KEPT_ORGANIZATIONS = 1000;

/**
 * `newestCommittedTimestamp`, read again only once something may have committed: until then it
 * cannot have changed, so the lists of a read-only stretch (GET /users answers the watermark on every
 * page) pay a read of the commit mark (4 µs) instead of the union of ten lookups through Kysely. The
 * mark is read before the timestamp: a commit between the two moves the mark, and the next list
 * reads again.
 */
async function keptNewestCommittedTimestamp(db: Kysely<Database>, orgId: string): Promise<string> {
  const [mark] = await commitMark(db);
  const key = `${mark!.version}:${mark!.changes}`;
  let entry = kept.get(db);
  if (entry?.mark !== key) kept.set(db, (entry = { mark: key, newest: new Map() }));
  let newest = entry.newest.get(orgId);
  if (newest === undefined) {
    newest = await newestCommittedTimestamp(db, orgId);
    if (entry.newest.size >= KEPT_ORGANIZATIONS) entry.newest.clear();
    entry.newest.set(orgId, newest);
  }
  return newest;
}
