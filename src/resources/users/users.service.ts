import type { Kysely } from 'kysely';
import { changeTime, inTransaction, type ChangeTime, type UnitOfWork } from '../../db/unit-of-work.js';
import { uniqueViolation } from '../../db/database.js';
import { changedColumns } from '../../db/rows.js';
import type { Database } from '../../db/schema.js';
import { dateRangeOf } from '../../lib/date-filter.js';
import { Conflict, Invalid, NotFound, RefusedItem } from '../../lib/domain-errors.js';
import { isId, newId } from '../../lib/ids.js';
import { findById } from '../../lib/find-by-id.js';
import type { JsonItems, Paging } from '../../lib/paging.js';
import { isAcceptablePassword, passwordMessage, type PasswordPolicy } from '../../lib/password-policy.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { parseTagFilter } from '../../lib/tags.js';
import { jsonObjectReader } from '../../db/json-objects.js';
import { blankToNull, USER_JSON, USER_WRITES } from './user-properties.js';
import { preciseNow } from '../../lib/time.js';
import type { Caller } from '../../auth/caller.js';
import { previousAttributes, recordEvent, writeRecordedEvents } from '../../events/outbox.js';
import {
  usersRepository,
  visibleUser,
  type KeysetPaging,
  type NewUser,
  type UniqueProperty,
  type UserFilters,
  type UserPatch,
  type VisibleUserRow,
} from './users.repository.js';
import type { CreateUser, UpdateUser, User, UserQuery } from './users.schemas.js';

/** What the SCIM surface sets beside the v5 properties. */
interface ProvisionedProperties {
  /** The identity provider's id for the user; null clears it. */
  externalId?: string | null;
}
/** A password hashed beforehand: an import hashes many at once, in parallel, before its transactions. */
interface PrehashedPassword {
  passwordHash?: string;
}
export type UserCreation = CreateUser & ProvisionedProperties & PrehashedPassword;
export type UserChanges = UpdateUser & ProvisionedProperties & PrehashedPassword;

/** A user as the API answers it, made from USER_JSON. */
const userOfColumns = jsonObjectReader(USER_JSON);

export function toResponse(row: VisibleUserRow): User {
  return userOfColumns(row) as User;
}

/** The repository's filters from a list's query. */
function filtersOf(query: UserQuery): UserFilters {
  return {
    email: query.email,
    firstName: query.firstName,
    lastName: query.lastName,
    username: query.username,
    tags: query.tags === undefined ? undefined : parseTagFilter('tags', query.tags),
    active: query.active,
    createdDate: dateRangeOf(query.createdDate),
    updatedDate: dateRangeOf(query.updatedDate),
    lastLoginDate: dateRangeOf(query.lastLoginDate),
    accountType: query.accountType,
  };
}

/** A new user's row, as `create` and `createMany` store it (its dates set in the transaction). */
async function newRow(orgId: string, input: UserCreation): Promise<Omit<NewUser, 'created_date' | 'updated_date'>> {
  const passwordHash = input.passwordHash ?? (input.password ? await hashPassword(input.password) : null);
  const named: Record<string, unknown> = { ...input, passwordHash };
  const columns = Object.fromEntries([...USER_WRITES].map(([property, { column, write }]) => [column, write(named[property])]));
  return { org_id: orgId, id: newId(), last_login_date: null, sessions_valid_after: null, ...columns } as Omit<
    NewUser,
    'created_date' | 'updated_date'
  >;
}

/** The columns a change names, as `update` compares them with the stored user. */
function patchOf(input: UserChanges): UserPatch {
  const requested: Record<string, unknown> = {};
  for (const [property, value] of Object.entries(input)) {
    const written = USER_WRITES.get(property);
    if (value !== undefined && written) requested[written.column] = written.write(value);
  }
  return requested;
}

/**
 * The properties of `input` that would change the stored user, compared as `update` compares them
 * (an import leaves the rest out, and writes nothing for a user it would not change).
 */
export function changedProperties(stored: VisibleUserRow, input: UserChanges): UserChanges {
  const changed = changedColumns(stored, patchOf(input));
  const changes = (property: string) => {
    const column = USER_WRITES.get(property)?.column;
    return column !== undefined && column in changed;
  };
  return Object.fromEntries(Object.entries(input).filter(([property]) => changes(property)));
}

/** A patch without the columns services never read. */
function withoutSecrets({
  password_hash: _hash,
  sessions_valid_after: _cutoff,
  ...patch
}: UserPatch): Omit<UserPatch, 'password_hash' | 'sessions_valid_after'> {
  return patch;
}

/** A patch written at `at`: a new password also ends every session and sign-in token issued before it. */
function stamped(patch: UserPatch, at: ChangeTime): UserPatch {
  return { ...patch, updated_date: at, ...(patch.password_hash === undefined ? {} : { sessions_valid_after: preciseNow() }) };
}

/** The user.updated event of a user changed from `current` to `after`. */
function recordUpdate(trx: UnitOfWork, orgId: string, current: VisibleUserRow, after: VisibleUserRow): void {
  const before = toResponse(current);
  const updated = toResponse(after);
  // A new password is a change the representation does not show: its event names only the updatedDate it moved.
  const previous = previousAttributes(before, updated) ?? { updatedDate: before.updatedDate };
  recordEvent(trx, orgId, 'user.updated', updated, previous);
}

/**
 * The users of an organization. `passwordPolicy` is the server's (config.ts): a password sent in clear
 * is checked here, whoever calls (the API, SCIM, the imports, the console, the command line), and not
 * only by the routes' validation. One hashed beforehand (an import's) was checked before it was hashed.
 */
export function usersService(db: Kysely<Database>, passwordPolicy: PasswordPolicy) {
  const users = usersRepository(db);

  /** The policy's refusal of `password`, if it breaks the policy. */
  function passwordRefusal(password: string | undefined): Invalid | undefined {
    if (password === undefined || isAcceptablePassword(passwordPolicy, password)) return undefined;
    return new Invalid({ password: passwordMessage(passwordPolicy) });
  }

  /** Refuses the first of `passwords` the policy refuses, as a RefusedItem naming it. */
  function checkPasswords(passwords: readonly (string | undefined)[]): void {
    for (const [index, password] of passwords.entries()) {
      const refusal = passwordRefusal(password);
      if (refusal) throw new RefusedItem(index, refusal);
    }
  }

  /** The conflict naming every one of `properties` as already in use. */
  function inUse(properties: Iterable<UniqueProperty>): Conflict {
    return new Conflict([...properties]);
  }

  /**
   * Runs a write that may meet the unique constraints on email and username. A violation becomes the
   * 400 naming every one of `values` already in use (both, when both are), as a check before the
   * write would, without costing each write that succeeds a statement more. (Inside a caller's
   * transaction, as SCIM's, the write is a savepoint: rolled back to it, the transaction can still
   * look the values up.)
   */
  async function uniquely(
    orgId: string,
    values: { email?: string; username?: string | null },
    exceptId: string | undefined,
    write: () => Promise<void>,
  ) {
    const lookup = { email: values.email, username: values.username ?? undefined };
    try {
      await write();
    } catch (error) {
      const constraint = uniqueViolation(error);
      if (constraint === undefined) throw error;
      const failed: UniqueProperty = constraint.includes('username') ? 'username' : 'email';
      const taken = await users.taken(orgId, lookup, exceptId);
      // Its holder may be gone already (deleted meanwhile), or a twin won a race: the constraint still names what failed.
      throw inUse(taken.size > 0 ? taken : [failed]);
    }
  }

  /** The refusal of the first of `changes` giving an email or username another user holds (else of the first giving either). */
  async function conflictAmong(orgId: string, changes: readonly { id: string; input: UserChanges }[], constraint: string): Promise<never> {
    const failed: UniqueProperty = constraint.includes('username') ? 'username' : 'email';
    let first: number | undefined;
    for (const [index, { id, input }] of changes.entries()) {
      const lookup = { email: input.email, username: blankToNull(input.username) ?? undefined };
      if (lookup.email === undefined && lookup.username === undefined) continue;
      first ??= index;
      const taken = await users.taken(orgId, lookup, id);
      if (taken.size > 0) throw new RefusedItem(index, inUse(taken));
    }
    throw new RefusedItem(first ?? 0, inUse([failed]));
  }

  return {
    async list(caller: Caller, query: UserQuery, paging: Paging): Promise<User[]> {
      const rows = await users.list(caller.orgId, filtersOf(query), paging);
      return rows.map(toResponse);
    },

    /**
     * A page of `list`'s users newest first, from a user of the page beside it (the console's list: as fast on its last page as
     * on its first). A name filter of one or two letters finds names starting with them, which an index serves.
     */
    async listByKey(caller: Caller, query: UserQuery, paging: KeysetPaging): Promise<{ users: User[]; more: boolean }> {
      const { users: rows, more } = await users.listByKey(caller.orgId, { ...filtersOf(query), shortNamesAtStart: true }, paging);
      return { users: rows.map(toResponse), more };
    },

    /** The page `list` answers, as the JSON text of its users written by the database, for the pages the repository writes so. */
    listJson(caller: Caller, query: UserQuery, paging: Paging): Promise<JsonItems | undefined> {
      return users.listJson(caller.orgId, filtersOf(query), paging);
    },

    async get(caller: Caller, id: string): Promise<User> {
      return toResponse(await findById(id, (id) => users.find(caller.orgId, id)));
    },

    /** The user `get` answers, as JSON text written by the database, where it writes it so (SQLite). */
    getJson(caller: Caller, id: string): Promise<string | undefined> {
      return users.writesJson ? findById(id, (id) => users.findJson(caller.orgId, id)) : Promise.resolve(undefined);
    },

    async create(caller: Caller, input: UserCreation): Promise<string> {
      const refusal = passwordRefusal(input.password);
      if (refusal) throw refusal;
      const row = await newRow(caller.orgId, input);
      await uniquely(caller.orgId, row, undefined, () =>
        inTransaction(db, caller.actor, async (trx) => {
          const at = changeTime(trx);
          const created = { ...row, created_date: at, updated_date: at };
          const inserted = usersRepository(trx).insert(created);
          recordEvent(trx, caller.orgId, 'user.created', toResponse(visibleUser(created)));
          // Sent behind the insert without waiting for its answer; the insert's failure is the one that tells why.
          const written = writeRecordedEvents(trx);
          written.catch(() => undefined);
          await inserted;
          await written;
          await caller.idempotentWrite?.settle(trx, row.id);
        }),
      );
      return row.id;
    },

    /**
     * Creates the users as `create` would one by one, each with its user.created event, in a few
     * multi-row statements (the import's new users, already checked). Any email or username in
     * use refuses them all, as a 400 naming the property.
     */
    async createMany(caller: Caller, inputs: readonly UserCreation[]): Promise<string[]> {
      checkPasswords(inputs.map((input) => input.password));
      const rows = await Promise.all(inputs.map((input) => newRow(caller.orgId, input)));
      try {
        await inTransaction(db, caller.actor, async (trx) => {
          const at = changeTime(trx);
          const created = rows.map((row) => ({ ...row, created_date: at, updated_date: at }));
          await usersRepository(trx).insertMany(created);
          for (const row of created) recordEvent(trx, caller.orgId, 'user.created', toResponse(visibleUser(row)));
        });
      } catch (error) {
        const constraint = uniqueViolation(error);
        if (constraint === undefined) throw error;
        throw inUse([constraint.includes('username') ? 'username' : 'email']);
      }
      return rows.map((row) => row.id);
    },

    async update(caller: Caller, id: string, input: UserChanges): Promise<void> {
      if (!isId(id)) throw new NotFound();
      const refusal = passwordRefusal(input.password);
      if (refusal) throw refusal;
      const requested = patchOf(input);
      if (requested.password_hash === undefined && input.password !== undefined) {
        // The password stored already is no change. Checked, and a new one hashed, before the transaction: no lock waits for argon2.
        const stored = await users.passwordHash(caller.orgId, id);
        if (stored === undefined) throw new NotFound();
        const same = stored !== null && (await verifyPassword(input.password, stored));
        if (!same) requested.password_hash = await hashPassword(input.password);
      }
      await uniquely(caller.orgId, requested, id, () =>
        inTransaction(db, caller.actor, async (trx) => {
          const repository = usersRepository(trx);
          // Compared with the user as it is, locked: the event names what this write changed.
          const current = await findById(id, (id) => repository.lock(caller.orgId, id));
          const patch = changedColumns(current, requested);
          if (Object.keys(patch).length === 0) return;
          const written = stamped(patch, changeTime(trx));
          await repository.update(caller.orgId, id, written);
          recordUpdate(trx, caller.orgId, current, visibleUser({ ...current, ...withoutSecrets(written) }));
        }),
      );
    },

    /**
     * Updates the users as `update` would one by one (the import's changed users, their passwords
     * already hashed), each with its user.updated event, in a few statements: the users are locked
     * and read together, and only those whose columns change are written, at one updatedDate. A
     * refusal (a user gone, an email or username taken meanwhile) undoes them all, as a RefusedItem
     * naming the change refused.
     */
    async updateMany(caller: Caller, changes: readonly { id: string; input: UserChanges }[]): Promise<void> {
      const { orgId } = caller;
      if (changes.length === 0) return;
      checkPasswords(changes.map((change) => change.input.password));
      await inTransaction(db, caller.actor, async (trx) => {
        const repository = usersRepository(trx);
        const locked = await repository.lockMany(
          orgId,
          changes.map((change) => change.id),
        );
        const at = changeTime(trx);
        const written: { current: VisibleUserRow; patch: UserPatch }[] = [];
        for (const [index, { id, input }] of changes.entries()) {
          const current = locked.get(id);
          if (current === undefined) throw new RefusedItem(index, new NotFound());
          const patch = changedColumns(current, patchOf(input));
          if (Object.keys(patch).length > 0) written.push({ current, patch: stamped(patch, at) });
        }
        try {
          await repository.updateEach(
            orgId,
            written.map(({ current, patch }) => ({ id: current.id, patch })),
          );
        } catch (error) {
          const constraint = uniqueViolation(error);
          if (constraint === undefined) throw error;
          throw new RefusedItem(-1, constraint);
        }
        for (const { current, patch } of written) recordUpdate(trx, orgId, current, visibleUser({ ...current, ...withoutSecrets(patch) }));
      }).catch(async (error: unknown) => {
        if (!(error instanceof RefusedItem) || error.index !== -1) throw error;
        // The writes are undone: the user whose email or username another holds now is named as update would name it.
        return conflictAmong(orgId, changes, String(error.refusal));
      });
    },

    /** Whether the person must choose a new password at their next sign-in (requirePasswordChange). */
    async passwordChangeRequired(caller: Caller, id: string): Promise<boolean> {
      return (await findById(id, (id) => users.find(caller.orgId, id))).password_change_required;
    },

    /**
     * The person signed in: lastLoginDate becomes now, as any change of the user does (updatedDate moves
     * and user.updated names it), so that a mirror of the users learns of it.
     */
    async signedIn(caller: Caller, id: string): Promise<void> {
      await inTransaction(db, caller.actor, async (trx) => {
        const repository = usersRepository(trx);
        const current = await findById(id, (id) => repository.lock(caller.orgId, id));
        const at = changeTime(trx);
        if (current.last_login_date === at) return;
        const written = { last_login_date: at, updated_date: at };
        await repository.update(caller.orgId, id, written);
        recordUpdate(trx, caller.orgId, current, visibleUser({ ...current, ...written }));
      });
    },

    async delete(caller: Caller, id: string): Promise<void> {
      if (!isId(id)) throw new NotFound();
      await inTransaction(db, caller.actor, async (trx) => {
        const repository = usersRepository(trx);
        // The tombstone carries the user as it was, for a sync job to know whom it deletes.
        const user = await repository.find(caller.orgId, id);
        if (!user || !(await repository.delete(caller.orgId, id))) throw new NotFound();
        recordEvent(trx, caller.orgId, 'user.deleted', toResponse(user));
      });
    },
  };
}

export type UsersService = ReturnType<typeof usersService>;
