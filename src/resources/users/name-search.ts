import { sql, type Expression, type Kysely, type SqlBool, type Transaction } from 'kysely';
import { containsText, lowerCase, startsWithText } from '../../db/filters.js';
import { compiledOnce } from '../../db/compiled.js';
import { isPostgres } from '../../db/locking.js';
import type { Database } from '../../db/schema.js';

/**
 * The name filters (firstName, lastName, username) through the index of three-letter fragments of
 * migration 0030. A filter keeps its own LIKE on both engines, so results are what they were; the
 * index narrows the rows read, asked here for the rarest fragments of the filter's text only: an
 * index reads the whole list of people of each fragment it is asked for, and a fragment such as
 * `fam` of `family123` may be in every name. SQLite counts its fragments' people in its FTS5 table;
 * PostgreSQL estimates them from the sample of names its ANALYZE keeps for the trigram index.
 */

/** The fewest letters a trigram index finds anywhere in a name. */
export const TRIGRAM_LETTERS = 3;

const NAME_COLUMNS = ['first_name', 'last_name', 'username'] as const;
export type NameColumn = (typeof NAME_COLUMNS)[number];

/** A name filter: its text anywhere in the name, or at its start. */
export interface NameFilter {
  column: NameColumn;
  text: string;
  atStart: boolean;
}

/** The filter's own condition (which PostgreSQL's trigram index can serve, `like '%text%'` or `like 'text%'`). */
export const nameMatches = ({ column, text, atStart }: NameFilter): Expression<SqlBool> =>
  atStart ? startsWithText(column, text) : containsText(column, text);

/** How many letters a filter's text has, as the index counts them: code points, case folded. */
export const lettersOf = (text: string): number => [...lowerCase(text)].length;

/** Before each name in the SQLite index (migration 0030): a query at a name's start begins with them. */
const NAME_START = '\u0001\u0001';

/** What the index is searched for by a filter: a part of a name or, after the marks, its start. */
const needleOf = ({ text, atStart }: NameFilter) => (atStart ? NAME_START : '') + lowerCase(text);

/** The three-letter fragments of a text. */
function trigramsOf(text: string): string[] {
  const letters = [...text];
  return letters.slice(0, -2).map((_, index) => letters.slice(index, index + TRIGRAM_LETTERS).join(''));
}

/**
 * How many people the index may find for a page to be read through it: each of them is read and the
 * page sorted from them. A filter none of whose fragments is that rare is common enough that walking
 * the list's order, testing each person, meets a page soon.
 */
const INDEX_READ_LIMIT = 5000;
/**
 * The fragments asked of the index: the rarest, as either index reads the whole list of people of
 * each fragment asked (FTS5: 50 to 100 ms for one that every name of 1,000,000 holds; PostgreSQL's
 * GIN: 70 to 85 ms for the four of `family` at load 15), and two rare ones leave few people to
 * check. Counting a fragment's people in FTS5 up to the limit reads no more than that.
 */
const FRAGMENTS_ASKED = 2;
/** The most fragments of a filter counted, spread over its text: a long one would otherwise cost a count for each letter. */
const FRAGMENTS_COUNTED = 12;

/** Up to FRAGMENTS_COUNTED of the fragments, evenly spread. */
function spread(fragments: string[]): string[] {
  if (fragments.length <= FRAGMENTS_COUNTED) return fragments;
  const step = (fragments.length - 1) / (FRAGMENTS_COUNTED - 1);
  return Array.from({ length: FRAGMENTS_COUNTED }, (_, index) => fragments[Math.round(index * step)]!);
}

/** An FTS5 query of one fragment in one column. */
const fragmentQuery = (column: NameColumn, fragment: string) => `${column} : "${fragment.replaceAll('"', '""')}"`;

/**
 * The conditions of the name filters, each filter's own (nameMatches) and, where the index is to
 * be asked for only some of a filter's fragments, those. A filter whose text has no fragment rare
 * enough keeps its own condition alone: walking the list's order, testing each person, meets a
 * page soon, and PostgreSQL's planner still chooses between that and its index.
 */
export async function nameConditions(db: Kysely<Database> | Transaction<Database>, filters: readonly NameFilter[]): Promise<Expression<SqlBool>[]> {
  if (!isPostgres(db)) {
    const throughIndex = await sqliteIndexCondition(db, filters);
    return [...filters.map(nameMatches), ...(throughIndex ? [throughIndex] : [])];
  }
  return postgresNameConditions(db, filters);
}

/**
 * SQLite: the condition that reads a filtered list through the name index, when the index can serve
 * a filter (a part of a name takes three letters; a start any number) and one of its fragments is
 * rare (see INDEX_READ_LIMIT); else undefined, and the list's order is walked, testing each person.
 */
async function sqliteIndexCondition(
  db: Kysely<Database> | Transaction<Database>,
  filters: readonly NameFilter[],
): Promise<Expression<SqlBool> | undefined> {
  const searchable = filters.filter(({ text, atStart }) => atStart || lettersOf(text) >= TRIGRAM_LETTERS);
  if (searchable.length === 0) return undefined;
  const queries = [
    ...new Set(searchable.flatMap((filter) => spread(trigramsOf(needleOf(filter))).map((fragment) => fragmentQuery(filter.column, fragment)))),
  ];
  // The index holds every organization's people: a fragment rare among them all is rare in this one.
  const { rows } = await sql<Record<string, number>>`select ${sql.join(
    queries.map(
      (query, index) =>
        sql`(select count(*) from (select 1 from users_names where users_names match ${query} limit ${INDEX_READ_LIMIT + 1})) as ${sql.ref(`f${index}`)}`,
    ),
  )}`.execute(db);
  const rare = queries
    .map((query, index) => ({ query, people: rows[0]![`f${index}`]! }))
    .filter(({ people }) => people <= INDEX_READ_LIMIT)
    .sort((a, b) => a.people - b.people)
    .slice(0, FRAGMENTS_ASKED);
  if (rare.length === 0) return undefined;
  return sql<SqlBool>`users.rowid in (select rowid from users_names where users_names match ${rare.map(({ query }) => query).join(' AND ')})`;
}

/**
 * PostgreSQL's sample of the names of a column: the values its ANALYZE keeps for the expression
 * `lower(name)` of the trigram index (its most common values and the bounds of its histogram), each
 * with the share of people it stands for, and how many people the table has.
 */
export interface NameSample {
  values: string[];
  shares: number[];
  people: number;
}

/** The share of people whose name holds every one of `parts`, as far as `sample` tells. */
export function shareHolding(sample: NameSample, parts: readonly string[]): number {
  let share = 0;
  sample.values.forEach((value, index) => {
    if (parts.every((part) => value.includes(part))) share += sample.shares[index]!;
  });
  return share;
}

/**
 * The fragments a trigram index can be asked for alone: three letters or digits, which pg_trgm
 * keeps as one trigram (it drops other characters, and pads the words they leave, making trigrams
 * that begin or end a word: common ones).
 */
const askable = (fragment: string) => /^[\p{L}\p{N}]{3}$/u.test(fragment);

/**
 * The fragments of a filter's text (a part of a name, of four letters or more) to ask of PostgreSQL's
 * trigram index instead of all of them: the rarest in `sample`, and with it the one that leaves the
 * fewest people with it (of several that leave as few, the rarest, then the farthest from it in the
 * text) when that one is rare too, or when the rarest alone is not. None when they may still leave
 * more than INDEX_READ_LIMIT people: the filter is common, and the list's order walked, testing each
 * person, meets a page sooner than the index. Undefined when the text has no such fragment: its own
 * condition is then used as before.
 */
export function rarestFragments(text: string, sample: NameSample): string[] | undefined {
  const all = trigramsOf(lowerCase(text));
  const fragments = spread([...new Set(all)].filter(askable)).map((fragment) => ({
    fragment,
    place: all.indexOf(fragment),
    people: shareHolding(sample, [fragment]) * sample.people,
  }));
  if (fragments.length === 0) return undefined;
  const rarest = fragments.reduce((rarer, fragment) => (fragment.people < rarer.people ? fragment : rarer));
  const [partner] = fragments
    .filter((fragment) => fragment !== rarest)
    .map((fragment) => ({
      ...fragment,
      both: shareHolding(sample, [rarest.fragment, fragment.fragment]) * sample.people,
      apart: Math.abs(fragment.place - rarest.place),
    }))
    .sort((a, b) => a.both - b.both || a.people - b.people || b.apart - a.apart);
  const rare = (people: number) => people <= INDEX_READ_LIMIT;
  if (partner && (rare(partner.people) || (!rare(rarest.people) && rare(partner.both)))) return [rarest.fragment, partner.fragment];
  return rare(rarest.people) ? [rarest.fragment] : [];
}

/** The trigram index of migration 0030 over a column. */
const trigramIndex = (column: NameColumn) => `users_${column}_trigrams`;

interface SampleRow {
  index: string;
  people: number;
  missing: number;
  common: string[] | null;
  frequencies: number[] | null;
  bounds: string[] | null;
}

/**
 * What ANALYZE keeps of the names of each trigram index (pg_stats, which shows a role the statistics
 * of the tables it owns or may read), in one statement named on PostgreSQL: the view is long to plan.
 */
const sampleRows = compiledOnce(0, (db) => ({
  compile: () =>
    sql<SampleRow>`select s.tablename as index, t.reltuples::float8 as people, s.null_frac::float8 as missing,
        s.most_common_vals::text::text[] as common, s.most_common_freqs::float8[] as frequencies, s.histogram_bounds::text::text[] as bounds
      from pg_class t join pg_namespace n on n.oid = t.relnamespace join pg_stats s on s.schemaname = n.nspname
      where t.oid = to_regclass('users') and s.tablename in (${sql.join(NAME_COLUMNS.map((column) => sql.lit(trigramIndex(column))))})`.compile(db),
}));

/**
 * Which samples the database holds now: its `users` table and when it was last analyzed. The samples
 * (a thousand names a column, migration 0031) take milliseconds to send and read, this a few
 * microseconds; they change only when `users` is analyzed.
 */
const sampleVersion = compiledOnce(0, (db) => ({
  compile: () =>
    sql<{
      version: string;
    }>`select concat_ws(' ', current_database(), t.oid, pg_stat_get_last_analyze_time(t.oid), pg_stat_get_last_autoanalyze_time(t.oid)) as version
      from pg_class t where t.oid = to_regclass('users')`.compile(db),
}));

/** Samples read, by version, with when they were read: kept for a few databases, and read again after SAMPLE_LIFE_MS (where the server counts no analyses, say). */
const samplesRead = new Map<string, { samples: Map<string, NameSample>; read: number }>();
const SAMPLES_KEPT = 8;
const SAMPLE_LIFE_MS = 10 * 60 * 1000;

/** PostgreSQL's samples of the names of each column (see NameSample) that ANALYZE has sampled, by the name of its index. */
async function nameSamples(db: Kysely<Database> | Transaction<Database>): Promise<Map<string, NameSample>> {
  const [row] = await sampleVersion(db);
  const version = row?.version ?? '';
  const known = samplesRead.get(version);
  if (known && Date.now() - known.read < SAMPLE_LIFE_MS) return known.samples;
  const samples = new Map<string, NameSample>();
  for (const { index, people, missing, common, frequencies, bounds } of await sampleRows(db)) {
    if (!(people > 0)) continue;
    const shares = frequencies ?? [];
    // The histogram's bounds share what the most common values and the people without a name leave.
    const rest = Math.max(0, 1 - missing - shares.reduce((sum, share) => sum + share, 0));
    const histogram = bounds ?? [];
    samples.set(index, {
      values: [...(common ?? []), ...histogram],
      shares: [...shares, ...histogram.map(() => rest / histogram.length)],
      people,
    });
  }
  samplesRead.delete(version);
  samplesRead.set(version, { samples, read: Date.now() });
  if (samplesRead.size > SAMPLES_KEPT) samplesRead.delete(samplesRead.keys().next().value!);
  return samples;
}

/**
 * PostgreSQL: a filter for a part of a name of four letters or more with rare fragments
 * (rarestFragments) asks the trigram index for those (one or two) only, `lower(name) like '%fragment%'`,
 * and tests its whole text on the rows found, as `(its own condition) is true`: the same condition,
 * which the planner estimates as before but cannot match to the index, so that it does not ask the
 * index for every fragment again (pg_trgm has no count of a trigram's people to leave the common
 * ones out). A filter of common fragments only has that form alone: the index would read every person
 * holding them (tens of thousands) to sort a page that walking the list's order finds in a few
 * hundred. Any other filter keeps its own condition, served by the index as the planner chooses.
 */
async function postgresNameConditions(db: Kysely<Database> | Transaction<Database>, filters: readonly NameFilter[]): Promise<Expression<SqlBool>[]> {
  const choosing = filters.filter(({ text, atStart }) => !atStart && lettersOf(text) > TRIGRAM_LETTERS);
  const samples = choosing.length === 0 ? new Map<string, NameSample>() : await nameSamples(db);
  return filters.flatMap((filter) => sampledNameConditions(filter, choosing.includes(filter) ? samples.get(trigramIndex(filter.column)) : undefined));
}

/** PostgreSQL's conditions for one filter given the sample of its column's names, if one is known (see above). */
export function sampledNameConditions(filter: NameFilter, sample: NameSample | undefined): Expression<SqlBool>[] {
  const fragments = sample && rarestFragments(filter.text, sample);
  if (!fragments) return [nameMatches(filter)];
  return [...fragments.map((fragment) => containsText(filter.column, fragment)), sql<SqlBool>`(${nameMatches(filter)}) is true`];
}
