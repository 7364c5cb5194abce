import { sql, type Expression, type Kysely, type SqlBool, type Transaction } from 'kysely';
import { containsText, lowerCase, startsWithText } from '../../db/filters.js';
import { isPostgres } from '../../db/locking.js';
import type { Database } from '../../db/schema.js';

/**
 * The name filters (firstName, lastName, username) through the index of three-letter fragments of
 * migration 0030. A filter keeps its own LIKE on both engines, so results are what they were; the
 * index narrows the rows read. PostgreSQL's trigram index serves that LIKE itself, its planner
 * choosing between the index and the list's order. SQLite's FTS5 table is asked here.
 */

/** The fewest letters a trigram index finds anywhere in a name. */
export const TRIGRAM_LETTERS = 3;

export type NameColumn = 'first_name' | 'last_name' | 'username';

/** A name filter: its text anywhere in the name, or at its start. */
export interface NameFilter {
  column: NameColumn;
  text: string;
  atStart: boolean;
}

/** The filter's own condition (served by PostgreSQL's trigram index, `like '%text%'` or `like 'text%'`). */
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
 * The fragments asked of the index: the rarest, as FTS5 reads the whole list of people of each
 * fragment asked (50 to 100 ms for one that every name of 1,000,000 holds), and two rare ones leave
 * few people to check. Counting a fragment's people up to the limit reads no more than that.
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
 * SQLite: the condition that reads a filtered list through the name index, when the index can serve
 * a filter (a part of a name takes three letters; a start any number) and one of its fragments is
 * rare (see INDEX_READ_LIMIT); else undefined, and the list's order is walked, testing each person.
 * PostgreSQL: always undefined, its planner choosing from its statistics.
 */
export async function nameIndexCondition(
  db: Kysely<Database> | Transaction<Database>,
  filters: readonly NameFilter[],
): Promise<Expression<SqlBool> | undefined> {
  const searchable = filters.filter(({ text, atStart }) => atStart || lettersOf(text) >= TRIGRAM_LETTERS);
  if (isPostgres(db) || searchable.length === 0) return undefined;
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
