import { sql, type Expression, type SqlBool } from 'kysely';
import type { DateRange } from '../lib/date-filter.js';
import type { Paging } from '../lib/paging.js';

/** `!` escapes LIKE's wildcards the same way on both engines. */
function escapeLike(value: string): string {
  return value.replace(/[!%_]/g, '!$&');
}

/**
 * Lower-cases one code point at a time (Unicode's simple case mapping), as PostgreSQL's lower()
 * does in a UTF-8 locale; SQLite's lower() is replaced by this one (see database.ts), so both
 * engines fold alike. JavaScript's own toLowerCase() differs for two letters only: it turns a
 * word-final Σ into ς, and İ into two code points.
 */
export function lowerCase(text: string): string {
  if (!/[\u03a3\u0130]/.test(text)) return text.toLowerCase();
  return Array.from(text, (char) => String.fromCodePoint(char.toLowerCase().codePointAt(0)!)).join('');
}

/**
 * The words `hasWord` sees in a value of its column: `hasWord(column, word)` holds exactly when they
 * include `lowerCase(word)` (a word holds no space), so rows read once can be matched here with many words.
 */
export function wordsOf(value: string): string[] {
  return lowerCase(value).split(' ');
}

/** Case-insensitive substring match. */
export function containsText(column: string, value: string): Expression<SqlBool> {
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${`%${escapeLike(lowerCase(value))}%`} escape '!'`;
}

/** Case-insensitive prefix match. */
export function startsWithText(column: string, value: string): Expression<SqlBool> {
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${`${escapeLike(lowerCase(value))}%`} escape '!'`;
}

/** The column, a list of words joined by single spaces, holds `word` (case-insensitive). */
export function hasWord(column: string, word: string): Expression<SqlBool> {
  return sql<SqlBool>`(' ' || lower(${sql.ref(column)}) || ' ') like ${`% ${escapeLike(lowerCase(word))} %`} escape '!'`;
}

/** A timestamp column (or expression) within a parsed date filter (from inclusive, to exclusive). */
export function withinRange(column: string | Expression<string>, range: DateRange): Expression<SqlBool> {
  const value = typeof column === 'string' ? sql.ref(column) : column;
  const from = range.from === undefined ? sql`1 = 1` : sql`${value} >= ${range.from}`;
  const to = range.to === undefined ? sql`1 = 1` : sql`${value} < ${range.to}`;
  return sql<SqlBool>`(${from} and ${to})`;
}

/**
 * One page of rows plus one more, which only tells whether a next page exists. LIMIT is written
 * into the SQL rather than bound: SQLite re-plans a statement whose LIMIT is a parameter on every
 * run (measured 7x slower for a small page), and with at most 101 values the cached statements
 * stay few. OFFSET stays a parameter.
 */
export function pageWindow<Q extends { limit(limit: Expression<number>): Q; offset(offset: number): Q }>(query: Q, paging: Paging): Q {
  return query.limit(sql.lit(paging.limit + 1)).offset(paging.offset);
}
