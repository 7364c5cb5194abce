import type { Kysely } from 'kysely';
import { lookupKey } from '../db/keys.js';
import type { Database } from '../db/schema.js';
import { asRefusal, DomainError, IN_USE_MESSAGE, unrendered, type FieldErrors } from '../lib/domain-errors.js';
import { ApiError } from '../lib/errors.js';
import type { PasswordPolicy } from '../lib/password-policy.js';
import { bodyValidator } from '../plugins/validation.js';
import { checkValue } from '../resources/userfield-values/value-checks.js';
import { usersRepository } from '../resources/users/users.repository.js';
import { CreateUser } from '../resources/users/users.schemas.js';
import { columnsOf, comparable, valueFields, valueOf, type Column, type Headings, type Reading } from './columns.js';
import type { Format, OpenedFile, SheetPreview } from './file-reader.js';
import type { FileRow, Problem } from './rows.js';

export interface ImportRow {
  number: number;
  user: CreateUser;
  values: Record<string, unknown>;
  /** The user the row updates (its email is already there), else undefined: a new user. */
  existingId?: string;
}

interface CheckOptions extends Headings {
  format: Format;
  reading: Reading;
  passwordPolicy: PasswordPolicy;
}

/** A service's refusal as the problems of a row, by its kind: the properties it names, else the row as a whole (''). */
function rowProblemsOf(error: DomainError): FieldErrors {
  const refusal = asRefusal(error);
  switch (refusal.kind) {
    case 'invalid':
    case 'conflict':
      return refusal.fieldErrors;
    case 'notFound':
    case 'malformed':
    case 'refused':
    case 'preconditionFailed':
    case 'unauthenticated':
    case 'throttled':
      return { '': refusal.message };
  }
  return unrendered(refusal);
}

/** A refusal of the request validator (ApiError, field errors in the v5 shape) or of a service, as field errors of the row. */
export function fieldErrorsOf(error: unknown): FieldErrors {
  if (error instanceof DomainError) return rowProblemsOf(error);
  if (error instanceof ApiError) return error.body.fieldErrors ?? { '': error.message };
  throw error;
}

/** 30 bits of FNV-1a over the key's code units: a small integer, which V8 keeps unboxed. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 2;
}

/**
 * The first row of each email (or username) in the file, kept by a hash of it: a few bytes a row
 * rather than the text, for files of a million rows. A row whose key hashes as an earlier row's is a
 * suspect, told apart from a real repeat when the file is read again (`confirm`).
 */
class FirstRows {
  readonly #rows = new Map<number, number>();
  /** [row, the earlier row with the same hash]. */
  readonly suspects: [number, number][] = [];

  note(key: string, row: number): void {
    const hash = hashOf(key);
    const earlier = this.#rows.get(hash);
    if (earlier === undefined) this.#rows.set(hash, row);
    else this.suspects.push([row, earlier]);
  }
}

/** The API's validator of a new user, by password policy: compiled once (tens of milliseconds of the event loop). */
const userValidators = new Map<number, (data: unknown) => void>();
function userValidator(policy: PasswordPolicy): (data: unknown) => void {
  let validate = userValidators.get(policy.minLength);
  if (!validate) userValidators.set(policy.minLength, (validate = bodyValidator(CreateUser, policy)));
  return validate;
}

const quoted = (cells: readonly string[]) =>
  cells
    .filter(Boolean)
    .slice(0, 6)
    .map((cell) => JSON.stringify(cell))
    .join(', ');

/**
 * The problem of a file whose headings name nothing the import knows: what was found where the
 * headings were looked for, each sheet's first rows, and the row that looks like the headings when one does.
 */
function noEmailHeading(file: OpenedFile, headings: Headings): Problem {
  const isEmail = (cell: string) => comparable(cell) === 'email' || comparable(headings.map.get(cell) ?? '') === 'email';
  const sheetName = (sheet: SheetPreview) => (sheet.name === undefined ? 'the file' : `sheet "${sheet.name}"`);
  const where = file.sheet === undefined ? '' : ` of sheet "${file.sheet}"`;
  const found = file.headingRow === undefined ? '' : `: row ${file.headingRow}${where} holds ${quoted(file.columns) || 'nothing'}`;
  const seen = file.sheets.map(
    (sheet) => `${sheetName(sheet)}: ${sheet.rows.map((row) => `row ${row.number} ${quoted(row.cells)}`).join('; ') || 'empty'}`,
  );
  const likely = file.sheets.flatMap((sheet) => sheet.rows.filter((row) => row.cells.some(isEmail)).map((row) => ({ sheet, row })))[0];
  const hint = likely
    ? `the headings look to be on row ${likely.row.number} of ${sheetName(likely.sheet)}: ${likely.sheet.name === undefined ? '' : `--sheet "${likely.sheet.name}" `}--header-row ${likely.row.number}`
    : 'name the sheet with --sheet and the row of the headings with --header-row, or the email column with --map "<heading>=email"';
  return { message: `no heading names a user property or userfield${found}. Found ${seen.join(' | ')}. ${hint[0]!.toUpperCase()}${hint.slice(1)}` };
}

/**
 * Checks the rows of a file as the API would check each request, and what only the whole file shows:
 * an email or username twice. Made once for the file's columns (their problems, if any, instead);
 * `check` then takes each row in turn, and `rowOf` reads a row again without checking it (a later pass).
 */
export async function rowChecker(db: Kysely<Database>, orgId: string, file: OpenedFile, options: CheckOptions, problems: Problem[]) {
  const { format, reading } = options;
  const fields = await valueFields(db, orgId);
  const validate = userValidator(options.passwordPolicy);
  const columns = columnsOf(file.columns, fields, options, problems);
  // Headings of which none names anything (a title row, a cover sheet) are not where the headings are.
  const glued = file.columns.some((name) => /[;\t]/.test(name));
  if (format !== 'jsonl' && columns.size === 0 && !glued) {
    problems.splice(0, problems.length, noEmailHeading(file, options));
  } else if (problems.length === 0 && file.rows === 0) {
    problems.push({ message: `holds no rows of people${file.headingRow === undefined ? '' : ` below its headings (row ${file.headingRow})`}` });
  }
  if (problems.length > 0) return undefined;
  /** The file's column for a property, to name it in a problem. */
  const headingOf = new Map([...columns].map(([name, column]) => ['property' in column ? column.property : name, name]));

  const holders = await usersRepository(db).identities(orgId);
  const byEmail = new Map(holders.map((holder) => [holder.email_key, holder]));
  const byUsername = new Map(holders.filter((holder) => holder.username_key).map((holder) => [holder.username_key!, holder]));
  const emails = new FirstRows();
  const usernames = new FirstRows();
  const keysOf = (user: CreateUser) => ({
    email: typeof user.email === 'string' ? lookupKey(user.email) : undefined,
    username: typeof user.username === 'string' && user.username !== '' ? lookupKey(user.username) : undefined,
  });

  const problemOf = (row: number, key: string, message: string) => {
    const column = headingOf.get(key) ?? key;
    const field = columns.get(column);
    problems.push({
      row,
      ...(key ? { column } : {}),
      ...(field && 'field' in field ? { field: field.field.name ?? field.field.id } : { field: key }),
      message,
    });
  };

  /** The row's user and values, converted by each column's type, with the problems of its values. */
  function converted({ number, record }: FileRow, rowProblems?: Record<string, string>): ImportRow {
    const user: Record<string, unknown> = {};
    const values: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries(record)) {
      const column: Column | undefined = columns.get(name);
      if (!column) continue; // an ignored column
      if (raw === null || raw === undefined || (format === 'csv' && raw === '')) continue;
      const value = valueOf(raw, column, format, reading);
      if ('property' in column) {
        user[column.property] = value;
      } else {
        const checked = checkValue(column.field, value);
        if ('error' in checked) {
          if (rowProblems) rowProblems[name] = checked.error;
        } else values[column.field.id] = checked.value;
      }
    }
    const existing = typeof user.email === 'string' ? byEmail.get(lookupKey(user.email)) : undefined;
    return { number, user: user as CreateUser, values, ...(existing ? { existingId: existing.id } : {}) };
  }

  return {
    /** The row as the import writes it; its problems are added to `problems`. */
    check(fileRow: FileRow): ImportRow {
      const rowProblems: Record<string, string> = {};
      const row = converted(fileRow, rowProblems);
      const { number, user } = row;
      try {
        validate(user);
      } catch (error) {
        Object.assign(rowProblems, fieldErrorsOf(error));
      }
      const { email, username } = keysOf(user);
      if (email !== undefined) emails.note(email, number);
      if (username !== undefined) {
        usernames.note(username, number);
        const holder = byUsername.get(username);
        if (holder && holder.id !== row.existingId) rowProblems.username = IN_USE_MESSAGE;
      }
      for (const [key, message] of Object.entries(rowProblems)) problemOf(number, key, message);
      return row;
    },
    /** Whether some rows may repeat an email or username: `confirm` then tells, over the rows read again. */
    get suspects(): boolean {
      return emails.suspects.length + usernames.suspects.length > 0;
    },
    /** Reads the suspects' rows again (every row of the file, in order), and adds the repeats to `problems`, in row order. */
    async confirm(rows: AsyncIterable<ImportRow[]>): Promise<void> {
      const wanted = new Set([...emails.suspects, ...usernames.suspects].flat());
      const keys = new Map<number, ReturnType<typeof keysOf>>();
      for await (const batch of rows) for (const row of batch) if (wanted.has(row.number)) keys.set(row.number, keysOf(row.user));
      for (const [property, first] of [['email', emails] as const, ['username', usernames] as const]) {
        for (const [row, earlier] of first.suspects) {
          if (keys.get(row)?.[property] === keys.get(earlier)?.[property]) problemOf(row, property, `is also on row ${earlier}`);
        }
      }
      problems.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
    },
    rowOf: (fileRow: FileRow): ImportRow => converted(fileRow),
  };
}

export type RowChecker = NonNullable<Awaited<ReturnType<typeof rowChecker>>>;
