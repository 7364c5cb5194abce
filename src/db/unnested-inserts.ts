import { CompiledQuery, type Kysely } from 'kysely';
import { prepareStatement } from './prepared-statements.js';

/** A column of an unnested insert, with the type of the array its values are bound in (`text` unless told). */
export type UnnestedColumn<C extends string> = C | { name: C; type: 'boolean' };

/**
 * PostgreSQL: rows inserted by one statement whatever their count, `insert ... select * from
 * unnest($1::text[], $2::text[], ...)`, each column's values bound as one array. Its text is the same
 * for any number of rows, so it is a named statement (prepared-statements.ts), parsed and planned
 * once a connection; a multi-row `values` list was a new text for each count of rows, built and
 * compiled by Kysely for every batch and parsed by the server with a parameter a value (an
 * import's batches spent most of their time there: docs/performance.md, "Issue 39: the import's
 * rows on PostgreSQL"). The rows go in the order given, as they would from a `values` list. `conflict`
 * follows the select as it is (an `on conflict` clause, its own parameters numbered after the columns').
 *
 * Only for PostgreSQL: SQLite binds no arrays, and its statements are prepared once per text already.
 */
export function unnestedInsert<C extends string>(table: string, columns: readonly UnnestedColumn<C>[], conflict = '') {
  const named = columns.map((column) => (typeof column === 'string' ? { name: column, type: 'text' } : column));
  const list = named.map(({ name }) => `"${name}"`).join(', ');
  const arrays = named.map(({ type }, index) => `$${index + 1}::${type}[]`).join(', ');
  const text = `insert into "${table}" (${list}) select * from unnest(${arrays})${conflict ? ` ${conflict}` : ''}`;
  prepareStatement(text);
  /** Inserts `rows` (a column absent or undefined is null), with the conflict clause's `parameters`. */
  return async (db: Kysely<any>, rows: readonly Partial<Record<C, unknown>>[], ...parameters: unknown[]): Promise<void> => {
    if (rows.length === 0) return;
    const values = named.map(({ name }) => rows.map((row) => row[name] ?? null));
    await db.executeQuery(CompiledQuery.raw(text, [...values, ...parameters]));
  };
}

/**
 * `unnestedInsert` whose statement also reads: the insert is a CTE, `with "inserted" as (insert ...
 * returning ...) <select>`, and `select` (which may name "inserted") is what it answers, one round
 * trip for both. A named statement as `unnestedInsert`'s; `select` takes no parameters.
 */
export function unnestedInsertReading<C extends string, R>(table: string, columns: readonly UnnestedColumn<C>[], returning: string, select: string) {
  const named = columns.map((column) => (typeof column === 'string' ? { name: column, type: 'text' } : column));
  const list = named.map(({ name }) => `"${name}"`).join(', ');
  const arrays = named.map(({ type }, index) => `$${index + 1}::${type}[]`).join(', ');
  const text = `with "inserted" as (insert into "${table}" (${list}) select * from unnest(${arrays}) returning ${returning}) ${select}`;
  prepareStatement(text);
  /** Inserts `rows` (a column absent or undefined is null); the select's rows. */
  return async (db: Kysely<any>, rows: readonly Partial<Record<C, unknown>>[]): Promise<R[]> => {
    const values = named.map(({ name }) => rows.map((row) => row[name] ?? null));
    return (await db.executeQuery<R>(CompiledQuery.raw(text, values))).rows;
  };
}
