import { sql, type RawBuilder } from 'kysely';

/**
 * A resource whose JSON the database writes (a user's, on both engines; an event's, in the feed) is
 * described once, as a list of properties each read from one column. From that list come the object
 * the service answers, its JSON text written in JavaScript, SQLite's expression (for a statement, or
 * kept in a generated column and an index), and PostgreSQL's (written in the statement), so that
 * they cannot drift apart.
 */

/** How a column's value becomes a property's. */
export type JsonKind =
  /** Text the server writes, which never needs escaping: ids, timestamps, codes of a fixed list. */
  | 'verbatim'
  /** Any text: quoted, and escaped exactly as JSON.stringify escapes it. */
  | 'text'
  /** Any text or null (not left out, unlike an optional property): written as `text` is, or as null. */
  | 'nullableText'
  /** Words joined by single spaces (tags): an array of strings. */
  | 'words'
  | 'boolean'
  /** JSON text the server wrote with JSON.stringify (an event's data), written as it is. */
  | 'json';

export interface JsonProperty {
  readonly property: string;
  readonly column: string;
  readonly kind: JsonKind;
  /**
   * Left out of the object when its column is null or empty (a `json` column: null, JSON text being
   * never empty); the first property may not be.
   */
  readonly optional?: boolean;
}

/**
 * A property whose value is an object of its own (an event's actor), read from columns of the same
 * row. When optional, it is left out when the column of its first property is null or empty.
 */
export interface JsonObjectProperty {
  readonly property: string;
  readonly object: readonly JsonProperty[];
  readonly optional?: boolean;
}

/** A property of an object written by the database: one column's, or an object of several. */
export type JsonMember = JsonProperty | JsonObjectProperty;

/** The column an optional member's presence is read from: its own, or its object's first property's. */
function presenceColumn(member: JsonMember): string {
  return 'object' in member ? member.object[0]!.column : member.column;
}

/** A row of columns, with those the list reads from beside it (`given`) in the order they were named. */
type RowReader<T> = (row: Readonly<Record<string, unknown>>, ...given: unknown[]) => T;

/**
 * A function of the list, generated once as JavaScript source: a row is read by one function with a
 * property access for each column, as a hand-written one would, not by a loop over the list, which
 * made an event's text 3.3 times as slow. Columns named in `given` are read from the arguments after
 * the row (an event's organization, which its row does not hold). Property and column names are
 * quoted by JSON.stringify.
 */
function generated<T>(properties: readonly JsonMember[], given: readonly string[], body: (read: (column: string) => string) => string): RowReader<T> {
  checkFirst(properties);
  const read = (column: string) => (given.includes(column) ? `given${given.indexOf(column)}` : `row[${JSON.stringify(column)}]`);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated on purpose; names quoted by JSON.stringify
  return new Function('row', ...given.map((_, index) => `given${index}`), body(read)) as RowReader<T>;
}

/** Whether an optional member is left out only when its column is null: JSON text, which is never empty. */
const onlyNull = (member: JsonMember) => !('object' in member) && member.kind === 'json';

/** JavaScript's test that an optional member's column leaves it out: null, absent or empty. */
const absent = (member: JsonMember, read: (column: string) => string) => {
  const value = read(presenceColumn(member));
  return onlyNull(member) ? `(${value} == null)` : `(${value} == null || ${value} === '')`;
};

/** JavaScript's expression of a column's value in the object (`text` false) or as JSON text. */
function jsValue(kind: JsonKind, value: string, text: boolean): string {
  switch (kind) {
    case 'json':
      return text ? value : `JSON.parse(${value})`;
    case 'words':
      return text ? `JSON.stringify(${value}.split(' '))` : `${value}.split(' ')`;
    case 'boolean':
      return text ? `(${value} ? 'true' : 'false')` : `Boolean(${value})`;
    case 'nullableText':
      return text ? `JSON.stringify(${value} ?? null)` : `(${value} ?? null)`;
    default:
      return text ? `JSON.stringify(${value})` : value;
  }
}

/** The object of a row, its properties in the list's order (the order the database writes them in). */
export function jsonObjectReader(properties: readonly JsonMember[], given: readonly string[] = []): RowReader<Record<string, unknown>> {
  let objects = 0;
  const statements = (members: readonly JsonMember[], read: (column: string) => string): { name: string; code: string } => {
    checkFirst(members);
    const name = `object${objects++}`;
    let code = `const ${name} = {};\n`;
    for (const member of members) {
      let assign: string;
      if ('object' in member) {
        const inner = statements(member.object, read);
        assign = `${inner.code}${name}[${JSON.stringify(member.property)}] = ${inner.name};\n`;
      } else assign = `${name}[${JSON.stringify(member.property)}] = ${jsValue(member.kind, read(member.column), false)};\n`;
      code += member.optional ? `if (!${absent(member, read)}) {\n${assign}}\n` : assign;
    }
    return { name, code };
  };
  return generated(properties, given, (read) => {
    const { name, code } = statements(properties, read);
    return `${code}return ${name};`;
  });
}

/**
 * The JSON text of `jsonObjectReader`'s object, written around the JSON text a `json` column holds as
 * it is (not parsed and written again): equal to JSON.stringify of the object.
 */
export function jsonTextWriter(properties: readonly JsonMember[], given: readonly string[] = []): RowReader<string> {
  const expression = (members: readonly JsonMember[], read: (column: string) => string): string => {
    checkFirst(members);
    const pieces = members.map((member, index) => {
      const name = JSON.stringify(`${index === 0 ? '' : ','}${JSON.stringify(member.property)}:`);
      const piece = `${name} + ${'object' in member ? expression(member.object, read) : jsValue(member.kind, read(member.column), true)}`;
      return member.optional ? `(${absent(member, read)} ? '' : ${piece})` : piece;
    });
    return `('{' + ${pieces.join(' + ')} + '}')`;
  };
  return generated(properties, given, (read) => `return ${expression(properties, read)};`);
}

function checkFirst(properties: readonly JsonMember[]): void {
  if (!properties[0] || properties[0].optional) throw new Error('The first property of a JSON object written by the database must always be present');
}

/** Pieces of JSON text: literal text, and SQL expressions of text. */
type JsonParts = (string | RawBuilder<unknown>)[];

/**
 * How each engine writes a column's value as JSON. `escape` false (PostgreSQL): the row's strings are
 * known to need no escaping and are written between quotes as they are.
 */
function valueParts(postgres: boolean, kind: JsonKind, column: string, escape: boolean): JsonParts {
  const ref = sql.ref(column);
  switch (kind) {
    case 'boolean':
      return [sql`case when ${ref} then 'true' else 'false' end`];
    case 'json':
      return [ref];
    case 'verbatim':
      return ['"', ref, '"'];
    case 'words':
      if (!postgres) return ['[', sql`replace(json_quote(${ref}), ' ', '","')`, ']'];
      return escape ? ['[', sql`replace(to_json(${ref})::text, ' ', '","')`, ']'] : ['["', sql`replace(${ref}, ' ', '","')`, '"]'];
    case 'text':
      if (!postgres) return [sql`json_quote(${ref})`];
      return escape ? [sql`to_json(${ref})::text`] : ['"', ref, '"'];
    case 'nullableText':
      // SQLite's json_quote writes NULL as null; PostgreSQL's to_json gives NULL, which would make the whole text NULL.
      if (!postgres) return [sql`json_quote(${ref})`];
      return [escape ? sql`coalesce(to_json(${ref})::text, 'null')` : sql`coalesce('"' || ${ref} || '"', 'null')`];
  }
}

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
 * The object's text as pieces: an optional member is a `case` that writes nothing when its column is
 * empty or NULL; a `json` one, never empty, is its pieces, NULL when its column is, or nothing
 * (`coalesce`, cheaper than a comparison).
 */
function objectParts(properties: readonly JsonMember[], postgres: boolean, escape: boolean): JsonParts {
  checkFirst(properties);
  const parts: JsonParts = ['{'];
  for (const [index, member] of properties.entries()) {
    const named: JsonParts = [
      `${index === 0 ? '' : ','}"${member.property}":`,
      ...('object' in member ? objectParts(member.object, postgres, escape) : valueParts(postgres, member.kind, member.column, escape)),
    ];
    if (member.optional && onlyNull(member)) parts.push(sql`coalesce(${concatenated(named)}, '')`);
    else if (member.optional) parts.push(sql`case when ${sql.ref(presenceColumn(member))} <> '' then ${concatenated(named)} else '' end`);
    else parts.push(...named);
  }
  parts.push('}');
  return parts;
}

/**
 * The object's JSON text as one `||` chain, for a statement of either engine: strings quoted by
 * `json_quote` (SQLite) or `to_json` (PostgreSQL), which escape exactly what JSON.stringify escapes.
 */
export function jsonObjectSql(properties: readonly JsonMember[], postgres: boolean): RawBuilder<string> {
  return concatenated(objectParts(properties, postgres, true));
}

/**
 * SQLite's expression of the object for a generated column (the user's, migrations 0017 and 0019,
 * whose text must not change): one `format()` whose optional properties are arguments that are NULL,
 * written as nothing, when their column is empty.
 */
export function sqliteJsonObject(properties: readonly JsonProperty[]): RawBuilder<string> {
  checkFirst(properties);
  let template = '{';
  const values: RawBuilder<unknown>[] = [];
  for (const [index, { property, column, kind, optional }] of properties.entries()) {
    const name = `${index === 0 ? '' : ','}"${property}":`;
    const value = concatenated(valueParts(false, kind, column, true));
    if (optional) {
      template += '%s';
      values.push(sql`case when ${sql.ref(column)} <> '' then ${sql.lit(name)} || ${value} end`);
    } else {
      template += `${name}%s`;
      values.push(value);
    }
  }
  return sql<string>`format(${sql.lit(`${template}}`)}, ${sql.join(values)})`;
}

/**
 * PostgreSQL's expression of the object, written in a statement. Its strings are written between
 * quotes as they are when `verbatim` (a boolean expression) says that none of them needs escaping,
 * and quoted by `to_json` (which escapes exactly what JSON.stringify escapes) otherwise: quoting
 * every string cost half of PostgreSQL's time a page of users.
 */
export function postgresJsonObject(properties: readonly JsonProperty[], verbatim: RawBuilder<boolean>): RawBuilder<string> {
  const object = (escape: boolean) => concatenated(objectParts(properties, true, escape));
  return sql<string>`case when ${verbatim} then ${object(false)} else ${object(true)} end`;
}

/**
 * PostgreSQL's test of whether a row's strings can be written between JSON quotes as they are: none
 * holds a quote, a backslash or a control character (U+0001-U+001F; text cannot hold U+0000), what
 * `to_json` and JSON.stringify escape. For a stored generated column.
 */
export function postgresNeedsNoEscaping(properties: readonly JsonProperty[]): RawBuilder<boolean> {
  const strings = properties
    .filter(({ kind }) => kind === 'text' || kind === 'nullableText' || kind === 'words')
    .map(({ column, kind, optional }) => (optional || kind === 'nullableText' ? sql`coalesce(${sql.ref(column)}, '')` : sql.ref(column)));
  return sql<boolean>`(${sql.join(strings, sql` || `)}) !~ '[\\x01-\\x1f"\\\\]'`;
}
