import { setImmediate as turn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { lookupKey } from '../db/keys.js';
import type { Database } from '../db/schema.js';
import { DomainError, IN_USE_MESSAGE } from '../lib/domain-errors.js';
import { ApiError, v5Refusal } from '../lib/errors.js';
import type { PasswordPolicy } from '../lib/password-policy.js';
import { bodyValidator } from '../plugins/validation.js';
import { checkValue } from '../resources/userfield-values/value-checks.js';
import { usersRepository } from '../resources/users/users.repository.js';
import { CreateUser } from '../resources/users/users.schemas.js';
import { columnsOf, valueFields, valueOf, type Headings } from './columns.js';
import type { Format } from './file-rows.js';
import type { FileRow, Problem } from './rows.js';
import type { ProgressOf } from './progress.js';

export interface ImportRow {
  number: number;
  user: CreateUser;
  values: Record<string, unknown>;
  /** The user the row updates (its email is already there), else undefined: a new user. */
  existingId?: string;
}

/** Rows checked between two turns of the event loop. */
const ROWS_BETWEEN_TURNS = 1000;

interface CheckOptions extends Headings {
  format: Format;
  passwordPolicy: PasswordPolicy;
  progress: ProgressOf;
}

/** A refusal of the request validator (ApiError) or of a service, as field errors of the row. */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  const refusal = error instanceof DomainError ? v5Refusal(error) : error;
  if (refusal instanceof ApiError) return refusal.body.fieldErrors ?? { '': refusal.message };
  throw error;
}

/** Checks every row, as the API would check each request, and what only the whole file shows: an email or username twice. */
export async function checkedRows(
  db: Kysely<Database>,
  orgId: string,
  read: readonly FileRow[],
  options: CheckOptions,
  problems: Problem[],
): Promise<ImportRow[]> {
  const { format } = options;
  const fields = await valueFields(db, orgId);
  const validate = bodyValidator(CreateUser, options.passwordPolicy);
  const columns = columnsOf([...new Set(read.flatMap((row) => Object.keys(row.record)))], fields, options, problems);
  if (problems.length > 0) return [];
  /** The file's column for a property, to name it in a problem. */
  const headingOf = new Map([...columns].map(([name, column]) => ['property' in column ? column.property : name, name]));
  const progress = options.progress(read.length, 'checked');

  const holders = await usersRepository(db).identities(orgId);
  const byEmail = new Map(holders.map((holder) => [holder.email_key, holder]));
  const byUsername = new Map(holders.filter((holder) => holder.username_key).map((holder) => [holder.username_key!, holder]));
  const rowOfEmail = new Map<string, number>();
  const rowOfUsername = new Map<string, number>();
  const rows: ImportRow[] = [];
  for (const { number, record } of read) {
    progress.increment(1);
    // A server importing in the background keeps answering requests meanwhile.
    if (number % ROWS_BETWEEN_TURNS === 0) await turn();
    const user: Record<string, unknown> = {};
    const values: Record<string, unknown> = {};
    const rowProblems: Record<string, string> = {};
    for (const [name, raw] of Object.entries(record)) {
      const column = columns.get(name);
      if (!column) continue; // an ignored column
      if (raw === null || raw === undefined || (format === 'csv' && raw === '')) continue;
      const value = valueOf(raw, column, format);
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
