import { Type, type SchemaOptions, type Static } from '@sinclair/typebox';
import { Body, DateFilter, Nullable, ReadOnly, SubstringFilter, Timestamp, UpdatedDateFilter } from '../../lib/schema.js';
import { ListQuery } from '../../lib/paging.js';

export const EMAIL_MESSAGE = 'Invalid email address';

/**
 * A valid email address as the WHATWG HTML standard defines it for `<input type=email>`: no quotes,
 * commas, angle brackets or spaces, and host labels of letters, digits and inner hyphens. Shared
 * with the email userfields, whose values pass the same check.
 */
export const EMAIL_PATTERN =
  "^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$";
export const EMAIL_MAX_LENGTH = 254;
/** ISO 639-1, optionally -REGION; also the keys of a userfield's localizedNames. */
export const LOCALE_PATTERN = '^[a-z]{2}(-[A-Z]{2})?$';

const Email = (description: string, options: SchemaOptions = {}) =>
  Type.String({ maxLength: EMAIL_MAX_LENGTH, pattern: EMAIL_PATTERN, errorMessage: EMAIL_MESSAGE, description, ...options });
// The example is what the docs page fills in; a filter has none, so trying a list shows everything.
const LoginEmail = Email('Login email, unique in the organization (case-insensitive)', { examples: ['jane.doe@example.com'] });
/** Checked by the `password` format against the configured policy (lib/password-policy.ts), which also words the refusal. */
const Password = Type.String({
  format: 'password',
  description: "Write-only. minLength (the server's PASSWORD_MIN_LENGTH, 6 by default) to 64 characters, with at least one letter and one number",
  writeOnly: true,
});
const Name = (description: string) => Type.String({ maxLength: 255, errorMessage: 'must be a string of at most 255 characters', description });
const Username = Type.String({
  maxLength: 255,
  pattern: '^\\S*$',
  errorMessage: 'must be a string of at most 255 characters without spaces',
  description: 'Unique in the organization (case-insensitive)',
});
const Locale = Type.String({
  pattern: LOCALE_PATTERN,
  errorMessage: 'must be an ISO 639-1 language code, optionally with a region, such as "en" or "en-US"',
  description: 'ISO 639-1 language code, optionally -REGION',
});
const Tags = Type.Array(Type.String({ maxLength: 255 }), {
  maxItems: 100,
  errorMessage: 'must be a list of at most 100 strings',
  description: 'Entries holding commas or spaces are split into several tags; duplicates are dropped',
});

/**
 * The kinds of account v5 names: learners, course administrators (offerings and registrations) and
 * organization administrators (everything of their organization). A learner's JSON leaves the
 * property out, as it does every absent value.
 */
export const ACCOUNT_TYPES = ['learner', 'courseAdministrator', 'organizationAdministrator'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
/** One of `types`, as a string enumeration (so that `Nullable` can widen it). */
const OneOf = <T extends string>(types: readonly T[], options: SchemaOptions) =>
  Type.Unsafe<T>({ type: 'string', enum: [...types], errorMessage: `must be one of ${types.join(', ')}`, ...options });
const AccountTypeInput = OneOf(ACCOUNT_TYPES, {
  description:
    'Beyond v5. `learner` (the default), `courseAdministrator` (manages offerings and registrations in the console) or ' +
    '`organizationAdministrator` (manages everything of the organization in the console)',
});
const RequirePasswordChange = Type.Boolean({
  errorMessage: 'must be true or false',
  description:
    'Beyond v5, write-only. true: the person must choose a new password at their next sign-in (for a temporary password set by an ' +
    'administrator); false withdraws the request',
});

export const User = Type.Object(
  {
    id: Type.String(),
    firstName: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    username: Type.Optional(Type.String()),
    email: Type.String(),
    tags: Type.Optional(Type.Array(Type.String())),
    locale: Type.Optional(Type.String()),
    createdDate: Timestamp('When the user was created'),
    lastLoginDate: Type.Optional(Timestamp('Last login')),
    active: Type.Boolean({
      description:
        'Beyond v5. False while the user is deactivated (by an identity provider through SCIM, or by PUT): nothing is deleted, ' +
        'but the user cannot be registered for offerings until reactivated',
    }),
    updatedDate: Timestamp('Beyond v5. When the user, its tags included, last changed'),
    accountType: Type.Optional(
      OneOf(['courseAdministrator', 'organizationAdministrator'] as const, {
        description: 'Beyond v5. What the person administers in the console; absent for a learner',
      }),
    ),
  },
  { $id: 'User', additionalProperties: false },
);
export type User = Static<typeof User>;

const readOnlyProperties = { id: ReadOnly(), createdDate: ReadOnly(), lastLoginDate: ReadOnly(), updatedDate: ReadOnly() };
const Active = Type.Boolean({
  errorMessage: 'must be true or false',
  description: 'Beyond v5. False deactivates the user, true reactivates it; nothing is lost either way',
});

export const CreateUser = Body({
  email: LoginEmail,
  password: Type.Optional(Password),
  firstName: Type.Optional(Name('First name')),
  lastName: Type.Optional(Name('Last name')),
  username: Type.Optional(Username),
  tags: Type.Optional(Tags),
  locale: Type.Optional(Locale),
  active: Type.Optional(Active),
  accountType: Type.Optional(AccountTypeInput),
  requirePasswordChange: Type.Optional(RequirePasswordChange),
  ...readOnlyProperties,
});
export type CreateUser = Static<typeof CreateUser>;

/** Partial: what is not sent keeps its value; `null` or `""` clears an optional property. */
export const UpdateUser = Body({
  email: Type.Optional(LoginEmail),
  password: Type.Optional(Password),
  firstName: Type.Optional(Nullable(Name('First name'))),
  lastName: Type.Optional(Nullable(Name('Last name'))),
  username: Type.Optional(Nullable(Username)),
  tags: Type.Optional(Nullable(Tags)),
  locale: Type.Optional(Nullable(Locale, { pattern: '^([a-z]{2}(-[A-Z]{2})?)?$' })),
  active: Type.Optional(Active),
  accountType: Type.Optional(Nullable(AccountTypeInput)),
  requirePasswordChange: Type.Optional(RequirePasswordChange),
  ...readOnlyProperties,
});
export type UpdateUser = Static<typeof UpdateUser>;

export const UserQuery = ListQuery({
  email: Type.Optional(Email('Exact match, case-insensitive')),
  firstName: SubstringFilter(),
  lastName: SubstringFilter(),
  username: SubstringFilter(),
  tags: Type.Optional(Type.String({ description: 'Tags separated by commas or spaces; a user matches when it has all of them' })),
  active: Type.Optional(
    Type.Boolean({ errorMessage: 'must be true or false', description: 'Beyond v5. true: active users only; false: deactivated users only' }),
  ),
  createdDate: DateFilter('Creation date'),
  updatedDate: UpdatedDateFilter(),
  lastLoginDate: DateFilter('Last login date'),
  accountType: Type.Optional(OneOf(ACCOUNT_TYPES, { description: 'Beyond v5. Users of this kind of account only' })),
});
export type UserQuery = Static<typeof UserQuery>;

/** The `data` of this resource's events. */
declare module '../../events/event-types.js' {
  interface EventData {
    'user.created': User;
    'user.updated': User;
    'user.deleted': User;
  }
}
