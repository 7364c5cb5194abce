import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, extname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import cliProgress from 'cli-progress';
import { parse } from 'csv-parse';
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
  /** As a spreadsheet numbers it: in a CSV file the header is row 1; in JSON Lines, the line. */
  number: number;
  /** Column → value: the cell's text in CSV, any JSON value in JSON Lines. */
  record: Record<string, unknown>;
}

/** A row the services refused although it passed the check: the data changed meanwhile. */
export class ImportInterrupted extends Error {}

/** A problem that stops the file being read further (a CSV quote never closed, ...). */
class UnreadableFile extends Error {}

async function* rowsOf(file: string, format: Format, problems: string[]): AsyncGenerator<FileRow> {
  if (format === 'csv') {
    const parser = createReadStream(file).pipe(parse({ columns: true, bom: true, skip_empty_lines: true, info: true }));
    try {
      for await (const { record, info } of parser) yield { number: info.lines, record };
    } catch (error) {
      const { lines, message } = error as { lines?: number; message: string };
      throw new UnreadableFile(lines === undefined ? message : `row ${lines}: ${message}`);
    }
    return;
  }
  let number = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    number++;
    if (!line.trim()) continue;
    try {
      const record: unknown = JSON.parse(line);
      if (record === null || typeof record !== 'object' || Array.isArray(record)) problems.push(`row ${number}: must be a JSON object`);
      else yield { number, record: record as Record<string, unknown> };
    } catch {
      problems.push(`row ${number}: is not valid JSON`);
    }
  }
}

type Column = { property: Property } | { field: UserfieldRow };

/** Every field that can hold a value, with the name its column has in an export: its name, or its id when the name is ambiguous. */
async function valueFields(db: Kysely<Database>, orgId: string): Promise<{ field: UserfieldRow; column: string }[]> {
  const fields = (await userfieldsRepository(db).list(orgId, {}, EVERY_FIELD)).filter((field) => field.type !== 'message');
  const named = new Map<string, number>();
  for (const field of fields) if (field.name) named.set(field.name, (named.get(field.name) ?? 0) + 1);
  return fields.map((field) => ({ field, column: field.name && named.get(field.name) === 1 ? field.name : field.id }));
}

/** What each column of the file stands for; every column that stands for nothing is a problem. */
function columnsOf(names: Iterable<string>, fields: { field: UserfieldRow; column: string }[], problems: string[]): Map<string, Column> {
  const columns = new Map<string, Column>();
  for (const name of names) {
    if ((PROPERTIES as readonly string[]).includes(name)) {
      columns.set(name, { property: name as Property });
      continue;
    }
    const byId = fields.find(({ field }) => field.id === name);
    const byName = fields.filter(({ field }) => field.name === name);
    if (byId) columns.set(name, { field: byId.field });
    else if (byName.length === 1) columns.set(name, { field: byName[0]!.field });
    else if (byName.length > 1) problems.push(`column "${name}": several userfields have this name; name the column by the field's id`);
    else problems.push(`column "${name}": neither a user property (${PROPERTIES.join(', ')}) nor the name or id of a userfield that holds values`);
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
async function checkedRows(db: Kysely<Database>, orgId: string, file: string, format: Format, problems: string[]): Promise<ImportRow[]> {
  const fields = await valueFields(db, orgId);
  const validate = bodyValidator(CreateUser);
  const read: FileRow[] = [];
  try {
    for await (const row of rowsOf(file, format, problems)) read.push(row);
  } catch (error) {
    if (!(error instanceof UnreadableFile)) throw error;
    problems.push(error.message);
    return [];
  }
  const columns = columnsOf(new Set(read.flatMap((row) => Object.keys(row.record))), fields, problems);
  if (problems.length > 0) return [];

  const holders = await usersRepository(db).identities(orgId);
  const byEmail = new Map(holders.map((holder) => [holder.email_key, holder]));
  const byUsername = new Map(holders.filter((holder) => holder.username_key).map((holder) => [holder.username_key!, holder]));
  const rowOfEmail = new Map<string, number>();
  const rowOfUsername = new Map<string, number>();
  const rows: ImportRow[] = [];
  for (const { number, record } of read) {
    const user: Record<string, unknown> = {};
    const values: Record<string, unknown> = {};
    const rowProblems: Record<string, string> = {};
    for (const [name, raw] of Object.entries(record)) {
      const column = columns.get(name)!;
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
    for (const [property, message] of Object.entries(rowProblems)) problems.push(`row ${number}: ${property ? `${property}: ` : ''}${message}`);
    rows.push({ number, user: user as CreateUser, values, ...(existing ? { existingId: existing.id } : {}) });
  }
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

function progressBar(total: number, label: string): cliProgress.SingleBar {
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} rows | ETA {eta_formatted}`, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return bar;
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

/**
 * Imports the file, or with `dryRun` only checks it and tells what it would change. Problems are
 * printed with their row numbers, and then nothing is written: the result is undefined.
 */
export async function importUsers(
  db: Kysely<Database>,
  caller: Caller,
  file: string,
  options: { format: Format; dryRun: boolean },
  io: Output,
): Promise<ImportSummary | undefined> {
  const problems: string[] = [];
  const rows = await checkedRows(db, caller.orgId, file, options.format, problems);
  if (problems.length > 0) {
    io.err(`${basename(file)}: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}; nothing was written`);
    for (const problem of problems) io.err(`  ${problem}`);
    return undefined;
  }
  const summary: ImportSummary = { rows: rows.length, created: 0, updated: 0, unchanged: 0, userfieldValues: 0, dryRun: options.dryRun };
  if (rows.length === 0) return summary;

  const bar = progressBar(rows.length, options.dryRun ? 'Comparing users' : 'Importing users');
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
      bar.increment(batch.length);
    }
  } finally {
    bar.stop();
  }
  // The planner's statistics, now that the tables may have grown many times over.
  if (!options.dryRun && summary.created + summary.updated > 0) await analyze(db, ['users', 'userfield_values']);
  return summary;
}

/** Writes every user of the organization, with its userfield values, in the format `importUsers` reads. */
export async function exportUsers(db: Kysely<Database>, caller: Caller, format: Format, outputFile: string | undefined): Promise<number> {
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
  if (format === 'csv') await write(stringify([], { header: true, columns }));
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
      await write(format === 'csv' ? stringify([cells], { columns }) : `${JSON.stringify(record)}\n`);
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
