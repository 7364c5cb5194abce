import type { JsonProperty } from '../../db/json-objects.js';
import type { UsersTable } from '../../db/schema.js';
import { tagsColumn } from '../../lib/tags.js';
import type { AccountType, User } from './users.schemas.js';

/** `""` and `null` both mean "no value". */
export function blankToNull(value: string | null | undefined): string | null {
  return value ? value : null;
}

/** A learner is the absence of another kind. */
function accountTypeColumn(type: AccountType | null | undefined): UsersTable['account_type'] {
  return type === undefined || type === null || type === 'learner' ? null : type;
}

/** How a written property's value is stored in its column; given undefined, the column's value for a new user. */
type Stored = (value: any) => unknown;

/**
 * Each property of a user as the API answers it, the column it is read from, in the order of the
 * answer's properties, and, for one a request may write, how its value is stored (`write`). The
 * service's `toResponse`, its writes and new rows, SQLite's JSON column (kept in an index) and
 * PostgreSQL's JSON in the list's statement are all made from this list; adding a property is a row
 * here and a migration that adds its column and writes SQLite's column again from the new list.
 */
export const USER_JSON = [
  { property: 'id', column: 'id', kind: 'verbatim' },
  { property: 'email', column: 'email', kind: 'text', write: (email: string) => email },
  { property: 'createdDate', column: 'created_date', kind: 'verbatim' },
  { property: 'active', column: 'active', kind: 'boolean', write: (active?: boolean) => active ?? true },
  { property: 'updatedDate', column: 'updated_date', kind: 'verbatim' },
  { property: 'firstName', column: 'first_name', kind: 'text', optional: true, write: blankToNull },
  { property: 'lastName', column: 'last_name', kind: 'text', optional: true, write: blankToNull },
  { property: 'username', column: 'username', kind: 'text', optional: true, write: blankToNull },
  { property: 'tags', column: 'tags', kind: 'words', optional: true, write: tagsColumn },
  { property: 'locale', column: 'locale', kind: 'text', optional: true, write: blankToNull },
  { property: 'lastLoginDate', column: 'last_login_date', kind: 'verbatim', optional: true },
  { property: 'accountType', column: 'account_type', kind: 'verbatim', optional: true, write: accountTypeColumn },
] as const satisfies readonly (JsonProperty & { property: keyof User; column: keyof UsersTable; write?: Stored })[];

/**
 * The properties a write may name that no answer shows: a password (as the hash `update` or an import
 * makes of it), the identity provider's id, and a password change asked at the next sign-in.
 */
const WRITE_ONLY = [
  { property: 'passwordHash', column: 'password_hash', write: (hash?: string | null) => hash ?? null },
  { property: 'externalId', column: 'external_id', write: blankToNull },
  { property: 'requirePasswordChange', column: 'password_change_required', write: (required?: boolean) => required ?? false },
] as const satisfies readonly { property: string; column: keyof UsersTable; write: Stored }[];

/** Each property a change may name, with its column and how its value is stored there. */
export const USER_WRITES: ReadonlyMap<string, { column: keyof UsersTable; write: Stored }> = new Map(
  [...USER_JSON, ...WRITE_ONLY].flatMap((row) =>
    'write' in row ? [[row.property, { column: row.column, write: row.write as Stored }] as const] : [],
  ),
);

/** The columns the user's JSON is read from. */
export type UserJsonColumn = (typeof USER_JSON)[number]['column'];

// Every property of the schema has its row, and no row names a property the schema lacks.
type Missing = Exclude<keyof User, (typeof USER_JSON)[number]['property']>;
const everyPropertyListed: [Missing] extends [never] ? true : Missing = true;
void everyPropertyListed;
