import type { FieldErrors } from '../../lib/domain-errors.js';
import { ACCOUNT_TYPES, EMAIL_MAX_LENGTH, EMAIL_MESSAGE, EMAIL_PATTERN, type AccountType } from '../../resources/users/users.schemas.js';
import type { VisibleUserRow } from '../../resources/users/users.repository.js';
import type { UserfieldType } from '../../resources/userfields/userfield-types.js';
import type { ScimDocument } from '../documents.js';
import type { MappedUserfield } from '../../resources/attribute-mappings/attribute-mappings.service.js';
import { isStandardAttribute, type MappedAttribute } from '../../resources/attribute-mappings/mapped-attribute.js';
import { USER_SCHEMA } from '../schemas.js';
import { scimErrors } from '../scim-errors.js';
import { versionOf } from '../versions.js';

/** The type of the role that is the user's kind of account (RFC 7643 §4.1.2 `roles`); roles of another type are not read as one. */
const ROLE_TYPE = 'accountType';
const ROLE_DISPLAY: Record<AccountType, string> = {
  learner: 'Learner',
  courseAdministrator: 'Course administrator',
  organizationAdministrator: 'Organization administrator',
};

/** The kind of account a document's roles name: the primary one of type accountType (or none), else the first; [] or null is a learner. */
function accountTypeOf(errors: FieldErrors, value: unknown): AccountType | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (!Array.isArray(value) || !value.every(isObject)) {
    errors.roles = 'must be a list of {"value": kind of account}';
    return undefined;
  }
  const ours = value.filter((entry) => entry.type === undefined || entry.type === null || entry.type === ROLE_TYPE);
  if (ours.length === 0) return null;
  const chosen = ours.find((entry) => booleanOf(entry.primary) === true) ?? ours[0]!;
  if (!(ACCOUNT_TYPES as readonly unknown[]).includes(chosen.value)) {
    errors['roles.value'] = `must be one of ${ACCOUNT_TYPES.join(', ')}`;
    return undefined;
  }
  return chosen.value as AccountType;
}

/** One of a user's email addresses as SCIM gives it (RFC 7643 §4.1.2). */
export interface EmailEntry {
  value: string;
  type?: string;
  primary?: boolean;
}

/** A user as stored: its row, its values of mapped userfields and the groups whose tag it carries. */
export interface UserRecord {
  row: VisibleUserRow;
  /** Its SCIM email list when it holds more than the v5 email as the primary work address. */
  emails?: readonly EmailEntry[];
  /** Userfield id → value in its v5 representation. */
  values: ReadonlyMap<string, unknown>;
  groups: readonly { id: string; display_name: string }[];
}

/** What a SCIM document says about a user: undefined when it does not say, null when it clears. */
export interface UserInput {
  userName?: string | null;
  email?: string | null;
  /** Every email the document gives, the primary one (`email`) marked: undefined when it gives none. */
  emails?: EmailEntry[] | null;
  givenName?: string | null;
  familyName?: string | null;
  locale?: string | null;
  active?: boolean;
  externalId?: string | null;
  password?: string;
  /** The kind of account its roles name; null for a learner (roles cleared). */
  accountType?: AccountType | null;
  /** Userfield id → value in its v5 representation, or null to clear; only the mapped attributes the document holds. */
  values: Map<string, unknown>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Places a mapped attribute's value where its path says, in a document being built. */
function place(document: ScimDocument, mapping: MappedAttribute, value: unknown): void {
  if (mapping.schema !== USER_SCHEMA) {
    const extension = (document[mapping.schema] ??= {}) as Record<string, unknown>;
    extension[mapping.name] = mapping.sub ? { [mapping.sub]: value } : value;
  } else if (mapping.type !== undefined) {
    const entries = (document[mapping.name] ??= []) as Record<string, unknown>[];
    let entry = entries.find((candidate) => candidate.type === mapping.type);
    if (!entry) entries.push((entry = { type: mapping.type }));
    entry[mapping.sub!] = value;
  } else if (mapping.sub !== undefined) {
    const parent = (document[mapping.name] ??= {}) as Record<string, unknown>;
    parent[mapping.sub] = value;
  } else {
    document[mapping.name] = value;
  }
}

/** The user as a SCIM resource. `base` is the absolute URL of /scim/v2. */
export function renderUser(record: UserRecord, mappings: readonly MappedUserfield[], base: string): ScimDocument {
  const { row } = record;
  const document: ScimDocument = { schemas: [USER_SCHEMA], id: row.id };
  if (row.external_id) document.externalId = row.external_id;
  document.userName = row.username ?? row.email;
  if (row.first_name || row.last_name) {
    document.name = {
      ...(row.first_name ? { givenName: row.first_name } : {}),
      ...(row.last_name ? { familyName: row.last_name } : {}),
      formatted: [row.first_name, row.last_name].filter(Boolean).join(' '),
    };
  }
  document.emails = emailsOf(row.email, record.emails);
  if (row.locale) document.locale = row.locale;
  document.active = row.active;
  if (row.account_type) document.roles = [{ value: row.account_type, display: ROLE_DISPLAY[row.account_type], type: ROLE_TYPE, primary: true }];
  for (const mapping of mappings) {
    const value = record.values.get(mapping.field.id);
    if (value === undefined) continue;
    // v5 stores the JSON types SCIM uses; a standard attribute is a string whatever the userfield's type
    place(document, mapping, isStandardAttribute(mapping) && (typeof value === 'number' || typeof value === 'boolean') ? String(value) : value);
  }
  const extensions = Object.keys(document).filter((key) => key.startsWith('urn:'));
  document.schemas = [USER_SCHEMA, ...extensions];
  document.groups = record.groups.map((group) => ({ value: group.id, display: group.display_name, $ref: `${base}/Groups/${group.id}` }));
  const meta = { resourceType: 'User', created: row.created_date, lastModified: row.updated_date, location: `${base}/Users/${row.id}` };
  document.meta = meta;
  document.meta = { ...meta, version: versionOf(document) };
  return document;
}

/** The value at a mapped attribute's path: undefined when absent, null when cleared. */
function pickMapped(document: ScimDocument, mapping: MappedAttribute): unknown {
  if (mapping.schema !== USER_SCHEMA) {
    const extension = document[mapping.schema];
    if (extension === null) return null;
    if (!isObject(extension)) return undefined;
    const value = extension[mapping.name];
    if (!mapping.sub) return value;
    // manager: {"value": id}, a bare id, or a list of one such object (sent by some providers)
    const single = Array.isArray(value) ? value[0] : value;
    return isObject(single) ? single[mapping.sub] : single;
  }
  const value = document[mapping.name];
  if (mapping.type !== undefined) {
    if (value === null) return null;
    if (!Array.isArray(value)) return undefined;
    const entry = value.find((candidate) => isObject(candidate) && String(candidate.type).toLowerCase() === mapping.type);
    return isObject(entry) ? (entry[mapping.sub!] ?? null) : null;
  }
  if (mapping.sub !== undefined) return value === null ? null : isObject(value) ? value[mapping.sub] : undefined;
  return value;
}

const NUMBER = /^-?\d+(\.\d+)?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(T.*)?$/;

function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return undefined;
}

/**
 * A SCIM value in the userfield's v5 representation, forgiving the forms identity providers send
 * (numbers and booleans as strings, ISO dates); the userfield's own checks then judge it.
 */
export function fieldValueOf(type: UserfieldType, value: unknown): unknown {
  switch (type) {
    case 'number':
    case 'decimal':
      return typeof value === 'string' && NUMBER.test(value.trim()) ? Number(value) : value;
    case 'checkbox':
    case 'truefalse':
      return booleanOf(value) ?? value;
    case 'yesno': {
      const flag = booleanOf(value);
      if (flag !== undefined) return flag ? 'yes' : 'no';
      return typeof value === 'string' ? value.toLowerCase() : value;
    }
    case 'date': {
      const iso = typeof value === 'string' ? ISO_DATE.exec(value) : null;
      return iso ? `${iso[2]}/${iso[3]}/${iso[1]}` : value;
    }
    case 'checkboxes':
      return typeof value === 'string' ? [value] : value;
    default:
      return typeof value === 'number' ? String(value) : value;
  }
}

/** `en_us`, `EN-us` → `en-US`; anything else as sent, for the v5 check to judge. */
function localeOf(value: string): string {
  const match = /^([a-z]{2})(?:[-_]([a-z]{2}))?$/i.exec(value);
  return match ? `${match[1]!.toLowerCase()}${match[2] ? `-${match[2].toUpperCase()}` : ''}` : value;
}

function text(errors: FieldErrors, name: string, value: unknown): string | null | undefined {
  if (value === undefined || value === null || typeof value === 'string') return value;
  errors[name] = 'must be a string';
  return undefined;
}

/**
 * A user's emails: the stored list with the v5 email as its primary one (v5 may have changed it since),
 * or the v5 email alone as the primary work address.
 */
function emailsOf(email: string, stored: readonly EmailEntry[] | undefined): EmailEntry[] {
  const primary = stored?.find((entry) => entry.primary);
  if (!stored || !primary) return [{ value: email, type: 'work', primary: true }];
  return stored.map((entry) => (entry === primary ? { ...entry, value: email } : entry));
}

/** What of a document's emails to store beside the v5 email: nothing when it is the primary work address alone. */
export function storedEmails(emails: readonly EmailEntry[]): string | null {
  const [only] = emails;
  const plain = emails.length === 1 && only!.primary === true && (only!.type === undefined || only!.type === 'work');
  return plain ? null : JSON.stringify(emails);
}

const EMAIL = new RegExp(EMAIL_PATTERN, 'u');

/** Whether v5 takes `text` as an email address. */
export function isEmailAddress(text: string): boolean {
  return text.length <= EMAIL_MAX_LENGTH && EMAIL.test(text);
}

/**
 * The document's emails, each `{value, type?}`, the primary one marked: the one marked primary, else
 * the work one, else the first. Its value is the user's v5 email, which the users service checks; the
 * others are checked here as it checks it, and kept as they are. An entry of the same type and
 * address as one before it (RFC 7643 §2.4), a provider echoing the primary one, is kept once.
 */
function emailListOf(errors: FieldErrors, value: unknown): EmailEntry[] | null | undefined {
  if (value === undefined || value === null) return value;
  if (!Array.isArray(value) || !value.every(isObject)) {
    errors.emails = 'must be a list of {"value": address}';
    return undefined;
  }
  if (value.length === 0) return null;
  const chosen =
    value.find((entry) => booleanOf(entry.primary) === true) ??
    value.find((entry) => typeof entry.type === 'string' && entry.type.toLowerCase() === 'work') ??
    value[0]!;
  const typeOf = (entry: Record<string, unknown>) => (typeof entry.type === 'string' ? entry.type.toLowerCase() : undefined);
  const keyOf = (entry: Record<string, unknown>) => JSON.stringify([typeOf(entry) ?? null, String(entry.value).toLowerCase()]);
  const entries: EmailEntry[] = [];
  const seen = new Set<string>([keyOf(chosen)]);
  for (const entry of value) {
    const address = entry.value;
    if (typeof address !== 'string' || address.length > EMAIL_MAX_LENGTH) {
      errors['emails.value'] = `must be a string of at most ${EMAIL_MAX_LENGTH} characters`;
      return undefined;
    }
    if (entry.type !== undefined && entry.type !== null && typeof entry.type !== 'string') {
      errors['emails.type'] = 'must be a string';
      return undefined;
    }
    if (entry !== chosen && !isEmailAddress(address)) {
      errors.emails = `${EMAIL_MESSAGE} (${address})`;
      return undefined;
    }
    if (entry !== chosen && seen.has(keyOf(entry))) continue;
    seen.add(keyOf(entry));
    const type = typeOf(entry);
    entries.push({ value: address, ...(type ? { type } : {}), ...(entry === chosen ? { primary: true } : {}) });
  }
  return entries;
}

/** Reads a canonical SCIM user document; every malformed attribute is reported at once (400 invalidValue). */
export function readUser(document: ScimDocument, mappings: readonly MappedUserfield[]): UserInput {
  const errors: FieldErrors = {};
  const input: UserInput = { values: new Map() };
  input.userName = text(errors, 'userName', document.userName);
  input.emails = emailListOf(errors, document.emails);
  input.email = input.emails === undefined || input.emails === null ? input.emails : input.emails.find((entry) => entry.primary)!.value;
  const name = document.name;
  if (isObject(name)) {
    input.givenName = text(errors, 'name.givenName', name.givenName);
    input.familyName = text(errors, 'name.familyName', name.familyName);
  } else if (name === null) {
    input.givenName = input.familyName = null;
  } else if (name !== undefined) {
    errors.name = 'must be an object';
  }
  const locale = text(errors, 'locale', document.locale);
  input.locale = typeof locale === 'string' ? localeOf(locale) : locale;
  if (document.active !== undefined && document.active !== null) {
    input.active = booleanOf(document.active);
    if (input.active === undefined) errors.active = 'must be true or false';
  }
  input.externalId = text(errors, 'externalId', document.externalId);
  input.accountType = accountTypeOf(errors, document.roles);
  if (document.password !== undefined && document.password !== null) {
    if (typeof document.password === 'string') input.password = document.password;
    else errors.password = 'must be a string';
  }
  for (const mapping of mappings) {
    const value = pickMapped(document, mapping);
    if (value !== undefined)
      input.values.set(mapping.field.id, value === null || value === '' ? null : fieldValueOf(mapping.field.type as UserfieldType, value));
  }
  if (Object.keys(errors).length > 0) {
    throw scimErrors.invalidValue(
      Object.entries(errors)
        .map(([attribute, message]) => `${attribute}: ${message}`)
        .join('; '),
    );
  }
  return input;
}
