import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { userfieldsRepository, type UserfieldRow } from '../resources/userfields/userfields.repository.js';
import type { Format } from './file-reader.js';
import type { Problem } from './rows.js';

/** The user properties a file may hold, in the order an export writes them (a password is never exported). */
export const PROPERTIES = ['email', 'firstName', 'lastName', 'username', 'password', 'tags', 'locale', 'active', 'accountType'] as const;
type Property = (typeof PROPERTIES)[number];

/** An organization has tens of fields, never this many. */
const EVERY_FIELD = { limit: 100_000, offset: 0 };

export type Column = { property: Property } | { field: UserfieldRow };

/** Every field that can hold a value, with the name its column has in an export: its name, or its id when the name is ambiguous. */
export async function valueFields(db: Kysely<Database>, orgId: string): Promise<{ field: UserfieldRow; column: string }[]> {
  const fields = (await userfieldsRepository(db).list(orgId, {}, EVERY_FIELD)).filter((field) => field.type !== 'message');
  const named = new Map<string, number>();
  for (const field of fields) if (field.name) named.set(field.name, (named.get(field.name) ?? 0) + 1);
  return fields.map((field) => ({ field, column: field.name && named.get(field.name) === 1 ? field.name : field.id }));
}

/** How the file's headings are read: `--map "Employee Email=email"` and `--ignore-columns a,b`. */
export interface Headings {
  map: ReadonlyMap<string, string>;
  ignore: readonly string[];
}

/** A heading as compared: case, spaces and punctuation aside, so `E-mail` and `First Name` name `email` and `firstName`. */
export const comparable = (name: string) => name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/** The property or userfield a heading names, exactly first, then as compared; `ambiguous` when several userfields have the name. */
export function columnNamed(name: string, fields: { field: UserfieldRow }[]): Column | 'ambiguous' | undefined {
  for (const same of [(a: string, b: string) => a === b, (a: string, b: string) => comparable(a) === comparable(b)]) {
    const property = PROPERTIES.find((candidate) => same(candidate, name));
    if (property) return { property };
    const byId = fields.find(({ field }) => field.id === name);
    if (byId) return { field: byId.field };
    const byName = fields.filter(({ field }) => field.name !== null && same(field.name, name));
    if (byName.length > 1) return 'ambiguous';
    if (byName.length === 1) return { field: byName[0]!.field };
  }
  return undefined;
}

/** What each column of the file stands for; every column that stands for nothing, or for what another column does, is a problem. */
export function columnsOf(
  names: readonly string[],
  fields: { field: UserfieldRow; column: string }[],
  headings: Headings,
  problems: Problem[],
): Map<string, Column> {
  const ignored = new Set(headings.ignore.map(comparable));
  const mapped = new Map([...headings.map].map(([from, to]) => [comparable(from), to]));
  const columns = new Map<string, Column>();
  const columnOf = new Map<string, string>();
  const unknown: string[] = [];
  for (const name of names) {
    if (ignored.has(comparable(name))) continue;
    const target = mapped.get(comparable(name));
    const column = columnNamed(target ?? name, fields);
    if (column === 'ambiguous') {
      problems.push({ column: name, message: "several userfields have this name; name the column by the field's id" });
    } else if (!column) {
      if (target === undefined) unknown.push(name);
      else problems.push({ column: name, message: `--map names "${target}", neither a user property nor a userfield that holds values` });
    } else {
      const key = 'property' in column ? column.property : column.field.id;
      const earlier = columnOf.get(key);
      if (earlier !== undefined)
        problems.push({ column: name, message: `stands for what column "${earlier}" does; leave one out with --ignore-columns` });
      columnOf.set(key, name);
      columns.set(name, column);
    }
  }
  for (const name of unknown) {
    problems.push({
      column: name,
      message: `neither a user property (${PROPERTIES.join(', ')}) nor the name or id of a userfield that holds values`,
    });
  }
  if (unknown.length > 0) {
    const glued = unknown.find((name) => /[;\t]/.test(name));
    problems.push({
      message: glued
        ? `the heading "${glued}" looks like several columns glued together: the file's delimiter is not the one its header line uses most (comma, semicolon or tab)`
        : `leave columns out with --ignore-columns "${unknown.join(',')}", or name what they hold with --map "${unknown[0]}=<property or userfield>"`,
    });
  }
  return columns;
}

const NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;
const DECIMAL_COMMA_NUMBER = /^-?\d+,\d+$/;

/**
 * How a file writes numbers and dates: a decimal comma (`1,5`) and the day before the month
 * (`15/03/2024`) in much of Europe. `dd.mm.yyyy` and `yyyy-mm-dd` are read whatever the reading: no
 * file writes the month first with dots, nor the day in the middle with dashes.
 */
export interface Reading {
  decimalComma: boolean;
  dayFirst: boolean;
}

/** The API's own reading: a decimal point, and dates month first (mm/dd/yyyy). */
export const US_READING: Reading = { decimalComma: false, dayFirst: false };

/** A locale's reading (`de`, `fr-CH`, `en-GB`), as its formats write a decimal and a date. */
export function readingOf(locale: string): Reading {
  const decimal = new Intl.NumberFormat(locale).formatToParts(1.5).find((part) => part.type === 'decimal')?.value;
  const order = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'numeric', year: 'numeric' })
    .formatToParts(new Date(Date.UTC(2024, 2, 15, 12)))
    .filter((part) => part.type === 'day' || part.type === 'month');
  return { decimalComma: decimal === ',', dayFirst: order[0]?.type === 'day' };
}

/** A file with semicolons between its cells is a spreadsheet's where the decimal mark is a comma, and dates are day first. */
export const readingOfDelimiter = (delimiter: string | undefined): Reading =>
  delimiter === ';' ? { decimalComma: true, dayFirst: true } : US_READING;

const pad = (part: string) => part.padStart(2, '0');

/** A date as the API writes it (mm/dd/yyyy), from the forms files use; anything else as it is, to be refused. */
function usDateOf(cell: string, reading: Reading): string {
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(cell);
  if (iso) return `${pad(iso[2]!)}/${pad(iso[3]!)}/${iso[1]}`;
  const dotted = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(cell);
  if (dotted) return `${pad(dotted[2]!)}/${pad(dotted[1]!)}/${dotted[3]}`;
  const slashed = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(cell);
  if (slashed)
    return reading.dayFirst ? `${pad(slashed[2]!)}/${pad(slashed[1]!)}/${slashed[3]}` : `${pad(slashed[1]!)}/${pad(slashed[2]!)}/${slashed[3]}`;
  return cell;
}

/** A text cell in the JSON type the API expects for the property or field; text the types cannot take stays text, to be refused. */
function fromCell(cell: string, column: Column, reading: Reading): unknown {
  switch (typeOf(column)) {
    case 'tags':
      return [cell];
    case 'active':
    case 'checkbox':
    case 'truefalse':
      return cell === 'true' ? true : cell === 'false' ? false : cell;
    case 'number':
    case 'decimal':
      if (reading.decimalComma && DECIMAL_COMMA_NUMBER.test(cell)) return Number(cell.replace(',', '.'));
      return NUMBER.test(cell) ? Number(cell) : cell;
    case 'date':
      return usDateOf(cell, reading);
    case 'checkboxes':
      try {
        return JSON.parse(cell);
      } catch {
        return cell;
      }
    default:
      return cell;
  }
}

const typeOf = (column: Column) => ('property' in column ? column.property : column.field.type);

/** A date as the API writes a date userfield's value: mm/dd/yyyy (a workbook's dates are midnight UTC). */
const usDate = (date: Date) =>
  `${String(date.getUTCMonth() + 1).padStart(2, '0')}/${String(date.getUTCDate()).padStart(2, '0')}/${String(date.getUTCFullYear()).padStart(4, '0')}`;

/** A date cell as text: the day (yyyy-mm-dd), with the time of day when it has one (yyyy-mm-dd hh:mm[:ss]). */
function dateText(date: Date): string {
  const [day, time] = date.toISOString().slice(0, 19).split('T') as [string, string];
  if (time === '00:00:00') return day;
  return `${day} ${time.endsWith(':00') ? time.slice(0, 5) : time}`;
}

/**
 * A workbook's cell in the JSON type the API expects for the property or field, by the field's type:
 * a date cell is a date field's mm/dd/yyyy and the day itself elsewhere, a number or a boolean stays
 * one where the field holds one and is text elsewhere (an employee number in a text field), and text
 * is read as in delimited text.
 */
function fromSpreadsheetCell(cell: unknown, column: Column, reading: Reading): unknown {
  if (typeof cell === 'string') return fromCell(cell, column, reading);
  const type = typeOf(column);
  if (cell instanceof Date) return type === 'date' ? usDate(cell) : fromCell(dateText(cell), column, reading);
  if (typeof cell === 'number' && (type === 'number' || type === 'decimal')) return cell;
  if (typeof cell === 'boolean' && (type === 'active' || type === 'checkbox' || type === 'truefalse')) return cell;
  return fromCell(String(cell), column, reading);
}

/** A file's value as the API takes it: text and a workbook's cells converted by the column's type, JSON Lines' values as they are. */
export function valueOf(raw: unknown, column: Column, format: Format, reading: Reading): unknown {
  if (format === 'csv') return fromCell(raw as string, column, reading);
  return format === 'xlsx' ? fromSpreadsheetCell(raw, column, reading) : raw;
}

/**
 * A value as a workbook's cell: numbers and booleans as such, a date field's value as a date, a
 * list as in CSV; `fromSpreadsheetCell` reads each back.
 */
export function toSpreadsheetCell(value: unknown, column: string, type: string | undefined): string | number | boolean | Date {
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (type === 'date' && typeof value === 'string') {
    const [month, day, year] = value.split('/').map(Number);
    return new Date(Date.UTC(year!, month! - 1, day));
  }
  return toCell(value, column);
}

/** A value as a CSV cell: what `fromCell` reads back (tags hold no comma, so they are joined by one). */
export function toCell(value: unknown, column: string): string {
  if (column === 'tags') return (value as string[]).join(',');
  return typeof value === 'string' ? value : JSON.stringify(value);
}
