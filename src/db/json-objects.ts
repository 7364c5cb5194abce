import { sql, type RawBuilder } from 'kysely';

/**
 * A resource whose JSON the database writes (a user's, on both engines) is described once, as a
 * list of properties each read from one column. From that list come the object the service answers,
 * SQLite's expression (kept in a generated column and an index), and PostgreSQL's (written in the
 * statement), so the three cannot drift apart.
 */

/** How a column's value becomes a property's. */
export type JsonKind =
  /** Text the server writes, which never needs escaping: ids, timestamps, codes of a fixed list. */
  | 'verbatim'
  /** Any text: quoted, and escaped exactly as JSON.stringify escapes it. */
  | 'text'
  /** Words joined by single spaces (tags): an array of strings. */
  | 'words'
  | 'boolean';

export interface JsonProperty {
  readonly property: string;
  readonly column: string;
  readonly kind: JsonKind;
  /** Left out of the object when its column is null or empty; the first property may not be. */
  readonly optional?: boolean;
}

/** The object of `row`, its properties in the list's order (the order the database writes them in). */
export function jsonObjectOf(properties: readonly JsonProperty[], row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const { property, column, kind, optional } of properties) {
    const value = row[column];
    if (optional && (value === null || value === undefined || value === '')) continue;
    object[property] = kind === 'words' ? (value as string).split(' ') : kind === 'boolean' ? Boolean(value) : value;
  }
  return object;
}

function checkFirst(properties: readonly JsonProperty[]): void {
  if (!properties[0] || properties[0].optional) throw new Error('The first property of a JSON object written by the database must always be present');
}

/**
 * SQLite's expression of the object (for a generated column): one `format()` whose optional
 * properties are arguments that are NULL, written as nothing, when their column is empty. Strings
 * are quoted by `json_quote`, which escapes exactly what JSON.stringify escapes.
 */
export function sqliteJsonObject(properties: readonly JsonProperty[]): RawBuilder<string> {
  checkFirst(properties);
  let template = '{';
  const values: RawBuilder<unknown>[] = [];
  for (const [index, { property, column, kind, optional }] of properties.entries()) {
    const ref = sql.ref(column);
    const name = `${index === 0 ? '' : ','}"${property}":`;
    const value =
      kind === 'verbatim'
        ? sql`'"' || ${ref} || '"'`
        : kind === 'text'
          ? sql`json_quote(${ref})`
          : kind === 'words'
            ? sql`'[' || replace(json_quote(${ref}), ' ', '","') || ']'`
            : sql`case when ${ref} then 'true' else 'false' end`;
    if (optional) {
      template += '%s';
      values.push(sql`case when ${ref} <> '' then ${sql.lit(name)} || ${value} end`);
    } else {
      template += `${name}%s`;
      values.push(value);
    }
  }
  return sql<string>`format(${sql.lit(`${template}}`)}, ${sql.join(values)})`;
}

/** Pieces of JSON text: literal text, and SQL expressions of text. */
type JsonParts = (string | RawBuilder<unknown>)[];

/**
 * The pieces joined by `||`, adjacent literal pieces written as one literal: PostgreSQL folds no
 * constants inside a chain (it groups from the left), and each `||` copies the text so far. A chain
 * is cheaper than format(), which parses its template for every row.
 */
function concatenated(parts: JsonParts): RawBuilder<string> {
  const merged: JsonParts = [];
  for (const part of parts) {
    const last = merged.at(-1);
    if (typeof part === 'string' && typeof last === 'string') merged[merged.length - 1] = last + part;
    else merged.push(part);
  }
  return sql.join(
    merged.map((part) => (typeof part === 'string' ? sql.lit(part) : part)),
    sql` || `,
  );
}

/**
 * PostgreSQL's expression of the object, written in a statement. Its strings are written between
 * quotes as they are when `verbatim` (a boolean expression) says that none of them needs escaping,
 * and quoted by `to_json` (which escapes exactly what JSON.stringify escapes) otherwise: quoting
 * every string cost half of PostgreSQL's time a page of users.
 */
export function postgresJsonObject(properties: readonly JsonProperty[], verbatim: RawBuilder<boolean>): RawBuilder<string> {
  checkFirst(properties);
  const object = (escape: boolean) => {
    const parts: JsonParts = ['{'];
    for (const [index, { property, column, kind, optional }] of properties.entries()) {
      const ref = sql.ref(column);
      const value: JsonParts =
        kind === 'boolean'
          ? [sql`case when ${ref} then 'true' else 'false' end`]
          : kind === 'verbatim' || !escape
            ? kind === 'words'
              ? ['["', sql`replace(${ref}, ' ', '","')`, '"]']
              : ['"', ref, '"']
            : kind === 'words'
              ? ['[', sql`replace(to_json(${ref})::text, ' ', '","')`, ']']
              : [sql`to_json(${ref})::text`];
      const named = [`${index === 0 ? '' : ','}"${property}":`, ...value];
      // An empty or absent value is left out.
      if (optional) parts.push(sql`case when ${ref} <> '' then ${concatenated(named)} else '' end`);
      else parts.push(...named);
    }
    parts.push('}');
    return concatenated(parts);
  };
  return sql<string>`case when ${verbatim} then ${object(false)} else ${object(true)} end`;
}

/**
 * PostgreSQL's test of whether a row's strings can be written between JSON quotes as they are: none
 * holds a quote, a backslash or a control character (U+0001-U+001F; text cannot hold U+0000), what
 * `to_json` and JSON.stringify escape. For a stored generated column.
 */
export function postgresNeedsNoEscaping(properties: readonly JsonProperty[]): RawBuilder<boolean> {
  const strings = properties
    .filter(({ kind }) => kind === 'text' || kind === 'words')
    .map(({ column, optional }) => (optional ? sql`coalesce(${sql.ref(column)}, '')` : sql.ref(column)));
  return sql<boolean>`(${sql.join(strings, sql` || `)}) !~ '[\\x01-\\x1f"\\\\]'`;
}
