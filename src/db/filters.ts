import { sql, type Expression, type SqlBool } from 'kysely';
import type { DateRange } from '../lib/date-filter.js';

/** `!` escapes LIKE's wildcards the same way on both engines. */
function escapeLike(value: string): string {
  return value.replace(/[!%_]/g, '!$&');
}

/** Case-insensitive substring match. */
export function containsText(column: string, value: string): Expression<SqlBool> {
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${`%${escapeLike(value.toLowerCase())}%`} escape '!'`;
}

/** The column, a list of words joined by single spaces, holds `word` (case-insensitive). */
export function hasWord(column: string, word: string): Expression<SqlBool> {
  return sql<SqlBool>`(' ' || lower(${sql.ref(column)}) || ' ') like ${`% ${escapeLike(word.toLowerCase())} %`} escape '!'`;
}

/** A timestamp column within a parsed date filter (from inclusive, to exclusive). */
export function withinRange(column: string, range: DateRange): Expression<SqlBool> {
  const from = range.from === undefined ? sql`1 = 1` : sql`${sql.ref(column)} >= ${range.from}`;
  const to = range.to === undefined ? sql`1 = 1` : sql`${sql.ref(column)} < ${range.to}`;
  return sql<SqlBool>`(${from} and ${to})`;
}
