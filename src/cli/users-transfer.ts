import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, extname } from 'node:path';
import type { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import { analyze } from '../db/database.js';
import { lookupKey } from '../db/keys.js';
import { inTransaction } from '../db/unit-of-work.js';
import type { Database } from '../db/schema.js';
import { ApiError, IN_USE_MESSAGE } from '../lib/errors.js';
import { hashPassword, verifyPassword } from '../lib/passwords.js';
import { tagsColumn } from '../lib/tags.js';
import { bodyValidator } from '../plugins/validation.js';
import { checkValue } from '../resources/userfield-values/value-checks.js';
import { userfieldValuesRepository } from '../resources/userfield-values/userfield-values.repository.js';
import { userfieldValuesService } from '../resources/userfield-values/userfield-values.service.js';
import { userfieldsRepository, type UserfieldRow } from '../resources/userfields/userfields.repository.js';
import { usersRepository, VISIBLE_COLUMNS, visibleUser, type VisibleUserRow } from '../resources/users/users.repository.js';
import { CreateUser } from '../resources/users/users.schemas.js';
import { usersService, type UserChanges, type UserCreation } from '../resources/users/users.service.js';
import { textOf, UndecodableFile, type Encoding } from './file-text.js';
import { progressOf } from './progress.js';

/**
 * `import users` and `export users`: an organization's people in and out as CSV or JSON Lines, one
 * user a row. Columns are user properties and userfields (by name or id). Every row is checked with
 * the API's own validation before anything is written; the writes then go through the same services
 * as the API, a batch per transaction, so every rule the API applies holds for an import too, and
 * the same events are recorded. A row equal to what is stored writes nothing.
 */

export type Format = 'csv' | 'jsonl';
export const FORMATS: readonly Format[] = ['csv', 'jsonl'];

/** The user properties a file may hold, in the order an export writes them (a password is never exported). */
const PROPERTIES = ['email', 'firstName', 'lastName', 'username', 'password', 'tags', 'locale', 'active'] as const;
type Property = (typeof PROPERTIES)[number];

/** Rows per transaction: large enough that commits do not dominate, small enough to show progress. */
const ROWS_PER_BATCH = 500;
const USERS_PER_PAGE = 1000;
/** An organization has tens of fields, never this many. */
const EVERY_FIELD = { limit: 100_000, offset: 0 };

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** The file's format, told by its extension. */
export function formatOf(file: string): Format | undefined {
  const extension = extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  return undefined;
}

interface FileRow {
  /** As a spreadsheet numbers it: in a CSV file the header is row 1 (a cell may span lines); in JSON Lines, the line. */
  number: number;
  /** Column → value: the cell's text in CSV, any JSON value in JSON Lines. */
  record: Record<string, unknown>;
}

/** A row the services refused although it passed the check: the data changed meanwhile. */
export class ImportInterrupted extends Error {}

/**
 * What is wrong, and where: the spreadsheet row, the file's column (its heading; for bytes the
 * encoding cannot read, the character in the line) and the property or userfield it stands for.
 */
export interface Problem {
  row?: number;
  column?: string | number;
  field?: string;
  message: string;
}

/** A problem as one line of text. */
export function problemText({ row, column, field, message }: Problem): string {
  const where = typeof column === 'number' ? `row ${row}, column ${column}` : row === undefined ? undefined : `row ${row}`;
  const label = typeof column === 'string' ? (row === undefined ? `column "${column}"` : column) : field;
  return [where, label, message].filter((part) => part !== undefined && part !== '').join(': ');
}

const DELIMITERS = [',', ';', '\t'] as const;

/** The delimiter the header line uses most, outside quotes: Excel writes `;` where the decimal mark is a comma. */
function delimiterOf(text: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((delimiter) => [delimiter, 0]));
  let inQuotes = false;
  for (const char of text) {
    if (char === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (char === '\n' || char === '\r')) break;
    else if (!inQuotes && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  return DELIMITERS.reduce((best, delimiter) => (counts.get(delimiter)! > counts.get(best)! ? delimiter : best));
}

function rowsOf(text: string, format: Format, problems: Problem[]): FileRow[] {
  if (format === 'csv') {
    try {
      const parsed = parse<{ record: Record<string, string>; info: { records: number } }>(text, {
        columns: true,
        delimiter: delimiterOf(text),
        skip_empty_lines: true,
        info: true,
      });
      return parsed.map(({ record, info }) => ({ number: info.records + 1, record }));
    } catch (error) {
      const { records, message } = error as { records?: number; message: string };
      problems.push(records === undefined ? { message } : { row: records + 2, message });
      return [];
    }
  }
  const rows: FileRow[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const number = index + 1;
    if (!line.trim()) return;
    try {
      const record: unknown = JSON.parse(line);
      if (record === null || typeof record !== 'object' || Array.isArray(record)) problems.push({ row: number, message: 'must be a JSON object' });
      else rows.push({ number, record: record as Record<string, unknown> });
    } catch {
      problems.push({ row: number, message: 'is not valid JSON' });
    }
  });
  return rows;
}

type Column = { property: Property } | { field: UserfieldRow };

/** Every field that can hold a value, with the name its column has in an export: its name, or its id when the name is ambiguous. */
async function valueFields(db: Kysely<Database>, orgId: string): Promise<{ field: UserfieldRow; column: string }[]> {
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
const comparable = (name: string) => name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/** The property or userfield a heading names, exactly first, then as compared; `ambiguous` when several userfields have the name. */
function columnNamed(name: string, fields: { field: UserfieldRow }[]): Column | 'ambiguous' | undefined {
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
function columnsOf(
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

/** A CSV cell in the JSON type the API expects for the property or field; text the types cannot take stays text, to be refused. */
function fromCell(cell: string, column: Column): unknown {
  const type = 'property' in column ? column.property : column.field.type;
  switch (type) {
    case 'tags':
      return [cell];
    case 'active':
    case 'checkbox':
    case 'truefalse':
      return cell === 'true' ? true : cell === 'false' ? false : cell;
    case 'number':
    case 'decimal':
      return NUMBER.test(cell) ? Number(cell) : cell;
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

/** A value as a CSV cell: what `fromCell` reads back (tags hold no comma, so they are joined by one). */
function toCell(value: unknown, column: string): string {
  if (column === 'tags') return (value as string[]).join(',');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

interface ImportRow {
  number: number;
  user: CreateUser;
  values: Record<string, unknown>;
  /** The user the row updates (its email is already there), else undefined: a new user. */
  existingId?: string;
}

function fieldErrorsOf(error: unknown): Record<string, string> {
  if (error instanceof ApiError) return error.body.fieldErrors ?? { '': error.message };
  throw error;
}

/** Checks every row, as the API would check each request, and what only the whole file shows: an email or username twice. */
async function checkedRows(
  db: Kysely<Database>,
  orgId: string,
  read: readonly FileRow[],
  options: ImportOptions,
  problems: Problem[],
): Promise<ImportRow[]> {
  const { format } = options;
  const fields = await valueFields(db, orgId);
  const validate = bodyValidator(CreateUser);
  const columns = columnsOf([...new Set(read.flatMap((row) => Object.keys(row.record)))], fields, options, problems);
  if (problems.length > 0) return [];
  /** The file's column for a property, to name it in a problem. */
  const headingOf = new Map([...columns].map(([name, column]) => ['property' in column ? column.property : name, name]));
  const progress = progressOf(read.length, 'checked', options.io);

  const holders = await usersRepository(db).identities(orgId);
  const byEmail = new Map(holders.map((holder) => [holder.email_key, holder]));
  const byUsername = new Map(holders.filter((holder) => holder.username_key).map((holder) => [holder.username_key!, holder]));
  const rowOfEmail = new Map<string, number>();
  const rowOfUsername = new Map<string, number>();
  const rows: ImportRow[] = [];
  for (const { number, record } of read) {
    progress.increment(1);
    const user: Record<string, unknown> = {};
    const values: Record<string, unknown> = {};
    const rowProblems: Record<string, string> = {};
    for (const [name, raw] of Object.entries(record)) {
      const column = columns.get(name);
      if (!column) continue; // an ignored column
      if (raw === null || raw === undefined || (format === 'csv' && raw === '')) continue;
      const value = format === 'csv' ? fromCell(raw as string, column) : raw;
      if ('property' in column) {
        user[column.property] = value;
      } else {
        const checked = checkValue(column.field, value);
        if ('error' in checked) rowProblems[name] = checked.error;
        else values[column.field.id] = checked.value;
      }
    }
    try {
      validate(user);
    } catch (error) {
      Object.assign(rowProblems, fieldErrorsOf(error));
    }
    const email = typeof user.email === 'string' ? lookupKey(user.email) : undefined;
    const existing = email === undefined ? undefined : byEmail.get(email);
    if (email !== undefined) {
      const earlier = rowOfEmail.get(email);
      if (earlier !== undefined) rowProblems.email = `is also on row ${earlier}`;
      else rowOfEmail.set(email, number);
    }
    if (typeof user.username === 'string' && user.username !== '') {
      const username = lookupKey(user.username);
      const earlier = rowOfUsername.get(username);
      const holder = byUsername.get(username);
      if (earlier !== undefined) rowProblems.username = `is also on row ${earlier}`;
      else if (holder && holder.id !== existing?.id) rowProblems.username = IN_USE_MESSAGE;
      rowOfUsername.set(username, number);
    }
    for (const [key, message] of Object.entries(rowProblems)) {
      const column = headingOf.get(key) ?? key;
      const field = columns.get(column);
      problems.push({
        row: number,
        ...(key ? { column } : {}),
        ...(field && 'field' in field ? { field: field.field.name ?? field.field.id } : { field: key }),
        message,
      });
    }
    rows.push({ number, user: user as CreateUser, values, ...(existing ? { existingId: existing.id } : {}) });
  }
  progress.stop();
  return rows;
}

/** `work` over `items`, at most `limit` at once, results in order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export interface ImportSummary {
  rows: number;
  created: number;
  updated: number;
  /** Rows equal to what is stored: nothing written for them. */
  unchanged: number;
  /** Values set or changed (a value equal to the stored one is not counted). */
  userfieldValues: number;
  dryRun: boolean;
}

/** A user as stored, what a row is compared with. */
interface StoredUser {
  row: VisibleUserRow;
  passwordHash: string | null;
  /** Userfield id → value. */
  values: Map<string, unknown>;
}

/** The listed users as stored, with their userfield values: two statements for a batch of rows. */
async function storedUsers(db: Kysely<Database>, orgId: string, ids: readonly string[]): Promise<Map<string, StoredUser>> {
  const users = new Map<string, StoredUser>();
  if (ids.length === 0) return users;
  const rows = await db
    .selectFrom('users')
    .select([...VISIBLE_COLUMNS, 'password_hash'])
    .where('org_id', '=', orgId)
    .where('id', 'in', ids)
    .execute();
  for (const { password_hash, ...row } of rows) users.set(row.id, { row: visibleUser(row), passwordHash: password_hash, values: new Map() });
  for (const value of await userfieldValuesRepository(db).ofUsers(orgId, ids)) {
    users.get(value.user_id)?.values.set(value.userfield_id, JSON.parse(value.value));
  }
  return users;
}

type Properties = Omit<CreateUser, 'password'>;
const TEXT_COLUMNS = { firstName: 'first_name', lastName: 'last_name', username: 'username', locale: 'locale' } as const;

/** The row's properties that differ from the stored user's, compared as the users service stores them. */
function changedProperties(stored: VisibleUserRow, user: Properties): UserChanges {
  const changes: UserChanges = {};
  if (user.email !== stored.email) changes.email = user.email;
  for (const [property, column] of Object.entries(TEXT_COLUMNS) as [keyof typeof TEXT_COLUMNS, keyof typeof stored][]) {
    const value = user[property];
    if (value !== undefined && (value || null) !== stored[column]) changes[property] = value;
  }
  if (user.tags !== undefined && tagsColumn(user.tags) !== stored.tags) changes.tags = user.tags;
  if (user.active !== undefined && user.active !== stored.active) changes.active = user.active;
  return changes;
}

/** The row's values that differ from the stored ones (both canonical: as `checkValue` gives them). */
function changedValues(stored: ReadonlyMap<string, unknown>, values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([fieldId, value]) => JSON.stringify(value) !== JSON.stringify(stored.get(fieldId))));
}

/** What a row writes: all of it for a new user; for an existing one, what differs from the stored user, and nothing when nothing does. */
interface RowWrite {
  row: ImportRow;
  /** A new user's properties, or an existing user's changed ones; a changed password as its hash (none in a dry run). */
  user: UserChanges;
  values: Record<string, unknown>;
  unchanged: boolean;
}

/**
 * Compares a batch of rows with their users as stored (read in bulk) and hashes the new passwords,
 * several at once on other threads, so no transaction waits for them. A password is new unless it
 * is the one stored; a dry run only tells which are.
 */
async function plannedWrites(db: Kysely<Database>, orgId: string, batch: readonly ImportRow[], dryRun: boolean): Promise<RowWrite[]> {
  const stored = await storedUsers(
    db,
    orgId,
    batch.flatMap((row) => row.existingId ?? []),
  );
  return mapConcurrently(batch, availableParallelism(), async (row) => {
    const { password, ...properties } = row.user;
    const current = row.existingId === undefined ? undefined : stored.get(row.existingId);
    // A user deleted since the check keeps every property, and its update is refused as such.
    const user = current ? changedProperties(current.row, properties) : { ...properties };
    const values = current ? changedValues(current.values, row.values) : row.values;
    const newPassword = password !== undefined && !(current?.passwordHash && (await verifyPassword(password, current.passwordHash)));
    if (newPassword && !dryRun) user.passwordHash = await hashPassword(password);
    const unchanged = current !== undefined && !newPassword && Object.keys(user).length + Object.keys(values).length === 0;
    return { row, user, values, unchanged };
  });
}

/** Writes a batch's rows in one unit of work; a row the services refuse undoes the batch. */
async function writeBatch(db: Kysely<Database>, caller: Caller, writes: readonly RowWrite[], rowsBefore: number): Promise<void> {
  await inTransaction(db, async (trx) => {
    const users = usersService(trx);
    const values = userfieldValuesService(trx);
    for (const { row, user, values: changed, unchanged } of writes) {
      if (unchanged) continue;
      try {
        const id = row.existingId ?? (await users.create(caller, user as UserCreation));
        if (row.existingId && Object.keys(user).length > 0) await users.update(caller, id, user);
        if (Object.keys(changed).length > 0) await values.update(caller, id, changed);
      } catch (error) {
        // Changed since the check (by the API meanwhile): this batch is undone, the earlier ones stay.
        const problems = Object.entries(fieldErrorsOf(error)).map(([property, message]) => `${property}: ${message}`);
        throw new ImportInterrupted(`row ${row.number}: ${problems.join('; ')}; the ${rowsBefore} rows before its batch were imported`);
      }
    }
  });
}

export interface ImportOptions extends Headings {
  format: Format;
  dryRun: boolean;
  /** The file's encoding, else told by its bytes. */
  encoding?: Encoding;
  /** Problems and the summary as JSON lines. */
  json: boolean;
  io: Output;
}

/** The file's rows; a file that cannot be read or decoded is a problem. */
async function fileRows(file: string, options: ImportOptions, problems: Problem[]): Promise<FileRow[]> {
  try {
    const { text } = textOf(await readFile(file), options.encoding, options.format === 'csv');
    return rowsOf(text, options.format, problems);
  } catch (error) {
    if (!(error instanceof UndecodableFile)) throw error;
    problems.push({ row: error.row, column: error.column, message: error.message });
    return [];
  }
}

/**
 * Imports the file, or with `dryRun` only checks it and tells what it would change. Problems are
 * printed with their row numbers (as JSON lines with `json`), and then nothing is written: the result is undefined.
 */
export async function importUsers(db: Kysely<Database>, caller: Caller, file: string, options: ImportOptions): Promise<ImportSummary | undefined> {
  const { io } = options;
  const problems: Problem[] = [];
  const read = await fileRows(file, options, problems);
  const rows = problems.length > 0 ? [] : await checkedRows(db, caller.orgId, read, options, problems);
  if (problems.length > 0) {
    if (options.json) {
      for (const problem of problems) io.out(JSON.stringify({ row: null, column: null, field: null, ...problem }));
    } else {
      io.err(`${basename(file)}: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}; nothing was written`);
      for (const problem of problems) io.err(`  ${problemText(problem)}`);
    }
    return undefined;
  }
  const summary: ImportSummary = { rows: rows.length, created: 0, updated: 0, unchanged: 0, userfieldValues: 0, dryRun: options.dryRun };
  if (rows.length === 0) return summary;

  const progress = progressOf(rows.length, options.dryRun ? 'compared' : 'imported', io);
  try {
    for (let start = 0; start < rows.length; start += ROWS_PER_BATCH) {
      const batch = rows.slice(start, start + ROWS_PER_BATCH);
      const writes = await plannedWrites(db, caller.orgId, batch, options.dryRun);
      if (!options.dryRun && writes.some((write) => !write.unchanged)) await writeBatch(db, caller, writes, start);
      for (const write of writes) {
        if (write.unchanged) summary.unchanged++;
        else if (write.row.existingId) summary.updated++;
        else summary.created++;
        summary.userfieldValues += Object.keys(write.values).length;
      }
      progress.increment(batch.length);
    }
  } finally {
    progress.stop();
  }
  // The planner's statistics, now that the tables may have grown many times over.
  if (!options.dryRun && summary.created + summary.updated > 0) await analyze(db, ['users', 'userfield_values']);
  return summary;
}

/**
 * Writes every user of the organization, with its userfield values, in the format `importUsers` reads;
 * `excel` writes CSV as Excel reads it right: UTF-8 with a byte order mark, CRLF line ends.
 */
export async function exportUsers(
  db: Kysely<Database>,
  caller: Caller,
  format: Format,
  outputFile: string | undefined,
  excel = false,
): Promise<number> {
  const fields = await valueFields(db, caller.orgId);
  const columnOfField = new Map(fields.map(({ field, column }) => [field.id, column]));
  const columns = [...PROPERTIES.filter((property) => property !== 'password'), ...fields.map(({ column }) => column)];
  const output: Writable = outputFile ? createWriteStream(outputFile) : process.stdout;
  // A reader that stops early (`| head`) closes the pipe: the export then simply ends.
  let failure: (Error & { code?: string }) | undefined;
  output.on('error', (error) => (failure ??= error));
  const write = async (text: string) => {
    if (!failure && !output.write(text)) await once(output, 'drain').catch(() => undefined);
  };
  const lineEnds = excel ? ({ record_delimiter: 'windows' } as const) : {};
  if (excel) await write('\uFEFF');
  if (format === 'csv') await write(stringify([], { header: true, columns, ...lineEnds }));
  const users = usersService(db);
  let count = 0;
  for (let offset = 0; !failure; offset += USERS_PER_PAGE) {
    const page = (await users.list(caller, {}, { limit: USERS_PER_PAGE, offset })).slice(0, USERS_PER_PAGE);
    const values = new Map<string, { userfield_id: string; value: string }[]>();
    for (const row of await userfieldValuesRepository(db).ofUsers(
      caller.orgId,
      page.map((user) => user.id),
    )) {
      values.set(row.user_id, [...(values.get(row.user_id) ?? []), row]);
    }
    for (const user of page) {
      const record: Record<string, unknown> = {};
      for (const property of columns.slice(0, PROPERTIES.length - 1)) {
        const value = user[property as keyof typeof user];
        if (value !== undefined) record[property] = value;
      }
      for (const value of values.get(user.id) ?? []) record[columnOfField.get(value.userfield_id)!] = JSON.parse(value.value);
      const cells = Object.fromEntries(Object.entries(record).map(([column, value]) => [column, toCell(value, column)]));
      await write(format === 'csv' ? stringify([cells], { columns, ...lineEnds }) : `${JSON.stringify(record)}\n`);
      count++;
    }
    if (page.length < USERS_PER_PAGE) break;
  }
  if (outputFile && !failure) {
    output.end();
    await once(output, 'finish');
  }
  if (failure && failure.code !== 'EPIPE') throw failure;
  return count;
}
