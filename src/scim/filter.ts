import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { parse, type Filter } from 'scim2-parse-filter';
import { lowerCase } from '../db/filters.js';
import type { ApiError } from '../lib/errors.js';
import { unstorableTexts } from '../plugins/validation.js';
import { scimErrors } from './scim-errors.js';

/**
 * SCIM filters (RFC 7644 §3.4.2.2), parsed by scim2-parse-filter and translated into one SQL
 * condition, so a filtered list is read page by page from the database, never by loading every
 * resource. Each resource type says what its attributes are in SQL (an `Operand` per path); every
 * condition is written to be true or false, never NULL, so `not (...)` keeps its meaning on
 * attributes without a value.
 */
export type Condition = RawBuilder<SqlBool>;
export type Comparison = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le' | 'pr';
export type FilterValue = boolean | null | number | string;

export const TRUE: Condition = sql<SqlBool>`(1 = 1)`;
export const FALSE: Condition = sql<SqlBool>`(1 = 0)`;

/** What an attribute is in SQL, and how it compares. */
export interface Operand {
  /** The condition for `<attribute> <op> <value>`; `value` is undefined for `pr`. */
  compare(op: Comparison, value: FilterValue | undefined): Condition;
}

/** Resolves an attribute path (`userName`, `name.givenName`, `urn:...:department`); `parent` is set inside `emails[...]`. */
type Resolver = (path: string, parent?: string) => Operand | undefined;

/** Longer filters are refused: each comparison is a SQL condition, and both engines bound a statement's size. */
const MAX_FILTER_LENGTH = 2000;

/** How a filter is refused: `invalidFilter` for a query's, `invalidPath` for a PATCH path's value filter. */
type Refuse = (detail: string) => ApiError;

/** A quoted value: what scim2-parse-filter's tokenizer takes as one. */
const QUOTED = /"(?:[^"\\]|\\.)*"/g;
/** A JSON escape, or a backslash that starts none. */
const ESCAPE = /\\(u[0-9a-fA-F]{4}|["\\/bfnrt]|)/g;

/**
 * A quoted value as the JSON string it is (RFC 7644 §3.4.2.2): `"DOMAIN\\user"` is `DOMAIN\user`. A
 * backslash that starts no JSON escape is kept as it is, since some identity providers send
 * `DOMAIN\user` unescaped.
 */
function stringValue(quoted: string, refuse: Refuse): string {
  let value: unknown;
  try {
    value = JSON.parse(quoted.replace(ESCAPE, (escape, sequence: string) => (sequence ? escape : '\\\\')));
  } catch {
    throw refuse(`The value ${quoted} is not a JSON string (control characters must be escaped)`);
  }
  const [problem] = unstorableTexts(value);
  if (problem) throw refuse(`The value ${quoted} ${problem.message}`);
  return value as string;
}

/** The filter with each placeholder `"<n>"` given back its value, `values[n]`. */
function withValues(node: Filter, values: readonly string[]): Filter {
  switch (node.op) {
    case 'and':
    case 'or':
      return { ...node, filters: node.filters.map((child) => withValues(child, values)) };
    case 'not':
      return { ...node, filter: withValues(node.filter, values) };
    case '[]':
      return { ...node, valFilter: withValues(node.valFilter, values) };
    case 'pr':
      return node;
    default:
      return typeof node.compValue === 'string' ? { ...node, compValue: values[Number(node.compValue)]! } : node;
  }
}

/**
 * Parses a filter with scim2-parse-filter, whose tokenizer doubles the backslashes of quoted values
 * (`"back\\slash"` would be `back\\slash`, and `"back\\"` no string at all): each quoted value is
 * read here as a JSON string, and the parser sees a numbered placeholder in its place.
 */
export function parseFilter(text: string, refuse: Refuse = scimErrors.invalidFilter): Filter {
  if (text.length > MAX_FILTER_LENGTH) throw refuse(`The filter is longer than ${MAX_FILTER_LENGTH} characters`);
  const values: string[] = [];
  const placeheld = text.replace(QUOTED, (quoted) => `"${values.push(stringValue(quoted, refuse)) - 1}"`);
  let filter: Filter;
  try {
    filter = parse(placeheld);
  } catch {
    throw refuse(`The filter "${text}" is not valid SCIM filter syntax (RFC 7644 §3.4.2.2)`);
  }
  return withValues(filter, values);
}

/** `!` escapes LIKE's wildcards the same way on both engines. */
export function likePattern(value: string, prefix: string, suffix: string): string {
  return `${prefix}${value.replace(/[!%_]/g, '!$&')}${suffix}`;
}

function requireText(op: Comparison, value: FilterValue | undefined): string {
  if (typeof value !== 'string') throw scimErrors.invalidFilter(`"${op}" compares text here; the value must be a quoted string`);
  return value;
}

/**
 * A text column: caseExact columns compare as stored, the others case-insensitively (lower() on
 * both engines folds alike, see db/filters.ts).
 */
export function textOperand(column: RawBuilder<unknown>, caseExact: boolean): Operand {
  const subject = caseExact ? column : sql`lower(${column})`;
  const fold = (value: string) => (caseExact ? value : lowerCase(value));
  return {
    compare(op, value) {
      if (op === 'pr') return sql<SqlBool>`(${column} is not null and ${column} <> '')`;
      const text = fold(requireText(op, value));
      switch (op) {
        case 'eq':
          return sql<SqlBool>`(${column} is not null and ${subject} = ${text})`;
        case 'ne':
          return sql<SqlBool>`(${column} is null or ${subject} <> ${text})`;
        case 'co':
          return sql<SqlBool>`(${column} is not null and ${subject} like ${likePattern(text, '%', '%')} escape '!')`;
        case 'sw':
          return sql<SqlBool>`(${column} is not null and ${subject} like ${likePattern(text, '', '%')} escape '!')`;
        case 'ew':
          return sql<SqlBool>`(${column} is not null and ${subject} like ${likePattern(text, '%', '')} escape '!')`;
        case 'gt':
          return sql<SqlBool>`(${column} is not null and ${subject} > ${text})`;
        case 'ge':
          return sql<SqlBool>`(${column} is not null and ${subject} >= ${text})`;
        case 'lt':
          return sql<SqlBool>`(${column} is not null and ${subject} < ${text})`;
        case 'le':
          return sql<SqlBool>`(${column} is not null and ${subject} <= ${text})`;
      }
    },
  };
}

/** A timestamp column (`yyyy-mm-ddThh:mm:ssZ` text): the value may be any ISO 8601 date-time. */
export function dateTimeOperand(column: RawBuilder<unknown>): Operand {
  const text = textOperand(column, true);
  return {
    compare(op, value) {
      if (op === 'pr') return text.compare(op, value);
      const time = typeof value === 'string' ? Date.parse(value) : NaN;
      if (Number.isNaN(time) || ['co', 'sw', 'ew'].includes(op)) {
        throw scimErrors.invalidFilter(`Dates compare with eq, ne, gt, ge, lt, le and an ISO 8601 date-time such as "2024-05-13T04:42:34Z"`);
      }
      return text.compare(op, new Date(time).toISOString().slice(0, 19) + 'Z');
    },
  };
}

/** A boolean column (0/1 on SQLite). Identity providers may send "True"/"False" as strings. */
export function booleanOperand(column: RawBuilder<unknown>): Operand {
  return {
    compare(op, value) {
      if (op === 'pr') return TRUE;
      const flag = typeof value === 'string' && /^(true|false)$/i.test(value) ? value.toLowerCase() === 'true' : value;
      if (typeof flag !== 'boolean' || (op !== 'eq' && op !== 'ne'))
        throw scimErrors.invalidFilter('A boolean compares with eq or ne and true or false');
      return op === 'eq' ? sql<SqlBool>`(${column} = ${flag})` : sql<SqlBool>`(${column} <> ${flag})`;
    },
  };
}

/** An attribute that always holds the same value (an email's type is always "work"). */
export function constantOperand(constant: string | boolean): Operand {
  return {
    compare(op, value) {
      if (op === 'pr') return TRUE;
      const same = typeof constant === 'string' ? typeof value === 'string' && value.toLowerCase() === constant.toLowerCase() : value === constant;
      if (op === 'eq') return same ? TRUE : FALSE;
      if (op === 'ne') return same ? FALSE : TRUE;
      throw scimErrors.invalidFilter(`"${op}" does not apply here`);
    },
  };
}

/**
 * The operand of an attribute, or the refusal of an unknown one. A resolver that looks names up in
 * an object finds what every object inherits (`constructor`, `__proto__`) too: that is no operand.
 */
function operandOf(resolve: Resolver, path: string, parent: string | undefined): Operand {
  const operand = resolve(path, parent);
  if (typeof operand?.compare !== 'function') throw scimErrors.invalidFilter(`The attribute "${path}" cannot be filtered on`);
  return operand;
}

function translateNode(node: Filter, resolve: Resolver, parent?: string): Condition {
  switch (node.op) {
    case 'and':
    case 'or': {
      const parts = node.filters.map((filter) => translateNode(filter, resolve, parent));
      return sql<SqlBool>`(${sql.join(parts, sql` ${sql.raw(node.op)} `)})`;
    }
    case 'not':
      return sql<SqlBool>`(not ${translateNode(node.filter, resolve, parent)})`;
    case '[]': {
      if (parent !== undefined) throw scimErrors.invalidFilter('Value filters cannot nest');
      return translateNode(node.valFilter, resolve, node.attrPath);
    }
    case 'pr':
      return operandOf(resolve, node.attrPath, parent).compare('pr', undefined);
    default:
      return operandOf(resolve, node.attrPath, parent).compare(node.op, node.compValue);
  }
}

/** The SQL condition of a parsed filter. */
export function translateFilter(filter: Filter, resolve: Resolver): Condition {
  return translateNode(filter, resolve);
}

/** Every comparison value given for attributes matching `matches` (e.g. the group ids of `groups eq "..."`), to look up before translating. */
export function valuesFor(filter: Filter, matches: (path: string, parent?: string) => boolean, parent?: string): string[] {
  switch (filter.op) {
    case 'and':
    case 'or':
      return filter.filters.flatMap((child) => valuesFor(child, matches, parent));
    case 'not':
      return valuesFor(filter.filter, matches, parent);
    case '[]':
      return valuesFor(filter.valFilter, matches, filter.attrPath);
    case 'pr':
      return [];
    default:
      return matches(filter.attrPath, parent) && typeof filter.compValue === 'string' ? [filter.compValue] : [];
  }
}
