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
 * The rows of the file's emails (or usernames), kept by a hash of each: 8 bytes a row in one typed
 * array (the hash in the high half, the row in the low one) rather than the text or a `Map` entry
 * (some 30 to 60 bytes a row in V8), for files of a million rows. Sorted once when the check is
 * over, rows whose key hashes as an earlier row's are suspects, told apart from real repeats when
 * the file is read again (`confirm`); the array is dropped then, so nothing of it lasts into the
 * passes that compare and write.
 */
class KeyRows {
  #entries: BigUint64Array | undefined;
  #count = 0;
  #suspects: [number, number][] | undefined;

  /** `rows`: how many rows the file holds, the room made at the first key. */
  constructor(private readonly rows: number) {}

  note(key: string, row: number): void {
    if (!this.#entries) this.#entries = new BigUint64Array(Math.max(this.rows, 16));
    if (this.#count === this.#entries.length) {
      const larger = new BigUint64Array(this.#entries.length * 2);
      larger.set(this.#entries);
      this.#entries = larger;
    }
    this.#entries[this.#count++] = (BigInt(hashOf(key)) << 32n) | BigInt(row);
  }

  /**
   * [row, the first row with the same hash] for each later row of a hash, in row order: once the
   * rows are all noted (the array is dropped when first asked).
   */
  get suspects(): [number, number][] {
    if (this.#suspects) return this.#suspects;
    const suspects: [number, number][] = [];
    const sorted = this.#entries?.subarray(0, this.#count).sort() ?? new BigUint64Array(0);
    const ROW = 0xffffffffn;
    // Sorted by hash, then row: each hash's rows together, its first row first.
    for (let i = 1, first = 0; i < sorted.length; i++) {
      if (sorted[i]! >> 32n !== sorted[first]! >> 32n) first = i;
      else suspects.push([Number(sorted[i]! & ROW), Number(sorted[first]! & ROW)]);
    }
    this.#entries = undefined;
    return (this.#suspects = suspects.sort((a, b) => a[0] - b[0]));
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
  const emails = new KeyRows(file.rows);
  const usernames = new KeyRows(file.rows);
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
        // Each key's first row. Rows sharing a hash may hold two keys (a row of one, then two of the
        // other): each later row is the repeat of its own key's first row, not of the hash's.
        const firstRows = new Map<string, number>();
        for (const [, earlier] of first.suspects) {
          const key = keys.get(earlier)?.[property];
          if (key !== undefined && !firstRows.has(key)) firstRows.set(key, earlier);
        }
        for (const [row] of first.suspects) {
          const key = keys.get(row)?.[property];
          if (key === undefined) continue;
          const earlier = firstRows.get(key);
          if (earlier === undefined) firstRows.set(key, row);
          else problemOf(row, property, `is also on row ${earlier}`);
        }
      }
      problems.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
    },
    rowOf: (fileRow: FileRow): ImportRow => converted(fileRow),
  };
}

export type RowChecker = NonNullable<Awaited<ReturnType<typeof rowChecker>>>;
