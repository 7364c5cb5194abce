import type { Kysely } from 'kysely';
import { lockUser } from '../../db/locking.js';
import { inTransaction } from '../../db/unit-of-work.js';
import type { Database } from '../../db/schema.js';
import { Conflict, Invalid, Malformed, NotFound } from '../../lib/domain-errors.js';
import { isId } from '../../lib/ids.js';
import type { PasswordPolicy } from '../../lib/password-policy.js';
import { bodyValidator } from '../../plugins/validation.js';
import type { Caller } from '../../auth/caller.js';
import { userfieldValuesService } from '../../resources/userfield-values/userfield-values.service.js';
import { checkValue } from '../../resources/userfield-values/value-checks.js';
import type { VisibleUserRow } from '../../resources/users/users.repository.js';
import { CreateUser, UpdateUser } from '../../resources/users/users.schemas.js';
import { usersService, type UserCreation, type UserChanges } from '../../resources/users/users.service.js';
import { canonicalDocument, projectDocument, type ResourceSchema, type ScimDocument } from '../documents.js';
import { parseFilter, TRUE } from '../filter.js';
import { scimGroupsRepository } from '../groups/scim-groups.repository.js';
import { listResponse, type ListQuery, type ListResponse } from '../list.js';
import { attributeMappingsService, type MappedUserfield } from '../../resources/attribute-mappings/attribute-mappings.service.js';
import { applyPatch, readPatchRequest } from '../patch.js';
import { isEmailAddress, readUser, renderUser, storedEmails, type EmailEntry, type UserInput, type UserRecord } from './user-document.js';
import { checkVersion } from '../versions.js';
import { groupIdsIn, userCondition } from './user-filter.js';
import { userSchemaFor } from './user-schema.js';
import { scimUsersRepository } from './scim-users.repository.js';

/** What one request needs to read and write users: the caller, where /scim/v2 is, and the organization's mappings. */
interface Context {
  caller: Caller;
  base: string;
  mappings: MappedUserfield[];
  schema: ResourceSchema;
}

/** Drops undefined entries, which the closed v5 body schemas would otherwise see as present. */
function defined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * The mapped values that differ between `before` and `after` (absent meaning cleared), each as it
 * would be stored (checkboxes in the field's option order), so that a value sent again as it is
 * stored is no change. A value the field refuses is kept as sent, for the values service to refuse.
 */
function valueChanges(mappings: readonly MappedUserfield[], before: UserInput, after: UserInput): Map<string, unknown> {
  const changes = new Map<string, unknown>();
  for (const { field } of mappings) {
    let value: unknown = after.values.get(field.id) ?? null;
    if (value !== null) {
      const checked = checkValue(field, value);
      if ('value' in checked) value = checked.value;
    }
    if (!sameValue(value, before.values.get(field.id))) changes.set(field.id, value);
  }
  return changes;
}

/**
 * Users through SCIM: reads with the organization's mappings applied, and every write made by the
 * users and userfield values services (their validation, uniqueness rules and, later, events), user
 * and values in one transaction.
 */
export function scimUsersService(db: Kysely<Database>, passwordPolicy: PasswordPolicy) {
  const validateCreate = bodyValidator(CreateUser, passwordPolicy);
  const validateUpdate = bodyValidator(UpdateUser, passwordPolicy);
  const users = scimUsersRepository(db);
  const mappingsService = attributeMappingsService(db);

  async function context(caller: Caller, base: string): Promise<Context> {
    const mappings = await mappingsService.resolve(caller.orgId);
    return { caller, base, mappings, schema: userSchemaFor(mappings, passwordPolicy) };
  }

  /** A refusal of the shared services with the userfields it names by their ids named by the SCIM attributes mapped onto them. */
  function inScimTerms(error: unknown, { mappings }: Context): unknown {
    const named = (property: string) => mappings.find((mapping) => mapping.field.id === property)?.path ?? property;
    if (error instanceof Invalid) {
      return new Invalid(
        Object.fromEntries(Object.entries(error.fieldErrors).map(([property, problem]) => [named(property), problem])),
        error.summary,
      );
    }
    if (error instanceof Conflict) return new Conflict(error.properties.map(named), error.problem);
    return error;
  }

  /** The rows with their mapped values and groups, read through `reader` (the transaction, inside one). */
  async function records(
    orgId: string,
    rows: VisibleUserRow[],
    mappings: readonly MappedUserfield[],
    reader: Kysely<Database> = db,
  ): Promise<UserRecord[]> {
    const ids = rows.map((row) => row.id);
    const values = await scimUsersRepository(reader).values(
      orgId,
      ids,
      mappings.map((mapping) => mapping.field.id),
    );
    const byUser = new Map<string, Map<string, unknown>>();
    for (const value of values) {
      const held = byUser.get(value.user_id) ?? new Map<string, unknown>();
      held.set(value.userfield_id, JSON.parse(value.value));
      byUser.set(value.user_id, held);
    }
    const tagKeys = [...new Set(rows.flatMap((row) => (row.tags ? row.tags.toLowerCase().split(' ') : [])))];
    const groups = await scimGroupsRepository(reader).withTagKeys(orgId, tagKeys);
    const emails = new Map(
      (await scimUsersRepository(reader).emails(orgId, ids)).map((stored) => [stored.user_id, JSON.parse(stored.emails) as EmailEntry[]]),
    );
    return rows.map((row) => {
      const keys = new Set(row.tags ? row.tags.toLowerCase().split(' ') : []);
      const record: UserRecord = { row, values: byUser.get(row.id) ?? new Map(), groups: groups.filter((group) => keys.has(group.tag_key)) };
      const stored = emails.get(row.id);
      return stored ? { ...record, emails: stored } : record;
    });
  }

  async function render(ctx: Context, id: string): Promise<ScimDocument> {
    const row = isId(id) ? await users.find(ctx.caller.orgId, id) : undefined;
    if (!row) throw new NotFound(`User ${id}`);
    const [record] = await records(ctx.caller.orgId, [row], ctx.mappings);
    return renderUser(record!, ctx.mappings, ctx.base);
  }

  /** v5 refuses a user without an email; an identity provider that sends none usually uses the email as userName. */
  function emailFor(input: UserInput): string {
    if (input.email) return input.email;
    if (input.userName && isEmailAddress(input.userName)) return input.userName;
    throw new Invalid({ emails: 'required (a user needs an email address, unless its userName is one)' });
  }

  /**
   * Runs a write as one unit of work; refusals name userfields in SCIM terms. A `single` write is one call
   * of a service that is its own unit of work (its events included), so it needs no outer one.
   */
  async function write(ctx: Context, work: (trx: Kysely<Database>) => Promise<string>, single = false): Promise<ScimDocument> {
    let id: string;
    try {
      id = single ? await work(db) : await inTransaction(db, ctx.caller.actor, work);
    } catch (error) {
      throw inScimTerms(error, ctx);
    }
    return render(ctx, id);
  }

  /** Keeps the document's emails beyond the v5 email (a second one, a `home` one); undefined (not sent) keeps the stored ones. */
  async function saveEmails(trx: Kysely<Database>, caller: Caller, id: string, emails: readonly EmailEntry[] | null | undefined): Promise<void> {
    if (emails === undefined) return;
    await scimUsersRepository(trx).setEmails(caller.orgId, id, emails === null ? null : storedEmails(emails));
  }

  async function saveValues(trx: Kysely<Database>, caller: Caller, id: string, values: Map<string, unknown>): Promise<void> {
    if (values.size > 0) await userfieldValuesService(trx).update(caller, id, Object.fromEntries(values));
  }

  /** The changes that take a user from `before` to `after` (both read from documents), as v5 properties. */
  function changesBetween(before: UserInput, after: UserInput): UserChanges {
    const changes: UserChanges = {};
    if (!after.userName) throw new Invalid({ userName: 'required' });
    if (after.userName !== before.userName) changes.username = after.userName;
    if (!after.email) throw new Invalid({ emails: 'a user keeps an email address; replace it instead of removing it' });
    if (after.email !== before.email) changes.email = after.email;
    if ((after.givenName ?? null) !== (before.givenName ?? null)) changes.firstName = after.givenName ?? null;
    if ((after.familyName ?? null) !== (before.familyName ?? null)) changes.lastName = after.familyName ?? null;
    if ((after.locale ?? null) !== (before.locale ?? null)) changes.locale = after.locale ?? null;
    if (after.active !== undefined && after.active !== before.active) changes.active = after.active;
    if ((after.externalId ?? null) !== (before.externalId ?? null)) changes.externalId = after.externalId ?? null;
    // Roles left out are kept, as active is: an identity provider that does not manage them must not demote an administrator.
    if (after.accountType !== undefined && (after.accountType ?? 'learner') !== (before.accountType ?? 'learner')) {
      changes.accountType = after.accountType ?? 'learner';
    }
    if (after.password !== undefined) changes.password = after.password;
    return changes;
  }

  /**
   * Writes what really changed, and only that: a document sent again as it is stored writes nothing
   * (no updatedDate moved, no event). A password is a change only when it is not the one stored, which
   * the users service tells.
   */
  async function update(ctx: Context, trx: Kysely<Database>, id: string, changes: UserChanges, values: Map<string, unknown>): Promise<string> {
    const { externalId, ...v5 } = changes;
    validateUpdate(defined(v5));
    if (Object.keys(defined(changes)).length > 0) await usersService(trx, passwordPolicy).update(ctx.caller, id, defined(changes));
    await saveValues(trx, ctx.caller, id, values);
    return id;
  }

  /** The user as it stands, locked until the transaction ends; `ifMatch` (a request's If-Match) must name its version. */
  async function current(ctx: Context, trx: Kysely<Database>, id: string, ifMatch?: string): Promise<ScimDocument> {
    if (!isId(id) || !(await lockUser(trx, ctx.caller.orgId, id))) throw new NotFound(`User ${id}`);
    const row = (await scimUsersRepository(trx).find(ctx.caller.orgId, id))!;
    const [record] = await records(ctx.caller.orgId, [row], ctx.mappings, trx);
    const document = renderUser(record!, ctx.mappings, ctx.base);
    checkVersion(document, ifMatch);
    return document;
  }

  return {
    context,

    async list(ctx: Context, query: ListQuery): Promise<ListResponse> {
      const { orgId } = ctx.caller;
      let condition = TRUE;
      if (query.filter !== undefined) {
        const filter = parseFilter(query.filter);
        const groupTags = await scimGroupsRepository(db).tagsOf(orgId, groupIdsIn(filter).filter(isId));
        condition = userCondition(filter, ctx.mappings, groupTags);
      }
      const total = await users.count(orgId, condition);
      const rows = query.count === 0 ? [] : await users.list(orgId, condition, query.startIndex - 1, query.count);
      const resources = (await records(orgId, rows, ctx.mappings)).map((record) =>
        projectDocument(renderUser(record, ctx.mappings, ctx.base), ctx.schema, query.attributes, query.excludedAttributes),
      );
      return listResponse(resources, total, query.startIndex);
    },

    get(ctx: Context, id: string): Promise<ScimDocument> {
      return render(ctx, id);
    },

    async create(ctx: Context, body: unknown): Promise<ScimDocument> {
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Malformed('body', 'The body must be a User object');
      const input = readUser(canonicalDocument(body as Record<string, unknown>, ctx.schema), ctx.mappings);
      if (!input.userName) throw new Invalid({ userName: 'required' });
      const user: UserCreation = defined({
        email: emailFor(input),
        username: input.userName,
        firstName: input.givenName ?? undefined,
        lastName: input.familyName ?? undefined,
        locale: input.locale ?? undefined,
        password: input.password,
        active: input.active,
        accountType: input.accountType ?? undefined,
      });
      const values = new Map([...input.values].filter(([, value]) => value !== null));
      const emails = input.emails && storedEmails(input.emails) !== null ? input.emails : undefined;
      return write(
        ctx,
        async (trx) => {
          validateCreate(user);
          const id = await usersService(trx, passwordPolicy).create(ctx.caller, { ...user, externalId: input.externalId });
          await saveValues(trx, ctx.caller, id, values);
          await saveEmails(trx, ctx.caller, id, emails);
          return id;
        },
        values.size === 0 && emails === undefined,
      );
    },

    /** PUT: the document replaces the user; what it leaves out is cleared, except the email, password and active state, which stay. */
    async replace(ctx: Context, id: string, body: unknown, ifMatch?: string): Promise<ScimDocument> {
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Malformed('body', 'The body must be a User object');
      const sent = readUser(canonicalDocument(body as Record<string, unknown>, ctx.schema), ctx.mappings);
      return write(ctx, async (trx) => {
        const before = readUser(await current(ctx, trx, id, ifMatch), ctx.mappings);
        const after: UserInput = { ...sent, email: sent.email ?? before.email };
        await update(ctx, trx, id, changesBetween(before, after), valueChanges(ctx.mappings, before, after));
        await saveEmails(trx, ctx.caller, id, sent.emails ?? undefined);
        return id;
      });
    },

    async patch(ctx: Context, id: string, body: unknown, ifMatch?: string): Promise<ScimDocument> {
      const operations = readPatchRequest(body);
      return write(ctx, async (trx) => {
        const document = await current(ctx, trx, id, ifMatch);
        const before = readUser(document, ctx.mappings);
        const patched = readUser(canonicalDocument(applyPatch(document, operations, ctx.schema), ctx.schema), ctx.mappings);
        // The whole document is patched: roles it no longer holds were removed.
        const after: UserInput = { ...patched, accountType: patched.accountType ?? null };
        await update(ctx, trx, id, changesBetween(before, after), valueChanges(ctx.mappings, before, after));
        await saveEmails(trx, ctx.caller, id, after.emails ?? undefined);
        return id;
      });
    },

    async delete(ctx: Context, id: string, ifMatch?: string): Promise<void> {
      try {
        if (ifMatch === undefined) await usersService(db, passwordPolicy).delete(ctx.caller, id);
        else
          await inTransaction(db, ctx.caller.actor, async (trx) => {
            await current(ctx, trx, id, ifMatch);
            await usersService(trx, passwordPolicy).delete(ctx.caller, id);
          });
      } catch (error) {
        if (error instanceof NotFound) throw new NotFound(`User ${id}`);
        throw error;
      }
    },
  };
}

export type ScimUsersService = ReturnType<typeof scimUsersService>;
export type ScimUsersContext = Context;
