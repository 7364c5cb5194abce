import type { Kysely } from 'kysely';
import { uniqueViolation } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { parseDateFilter } from '../../lib/date-filter.js';
import { errors, IN_USE_MESSAGE } from '../../lib/errors.js';
import { isId, newId } from '../../lib/ids.js';
import { findById } from '../../lib/not-found.js';
import type { Paging } from '../../lib/paging.js';
import { hashPassword } from '../../lib/passwords.js';
import { parseTagFilter, tagsColumn, tagsOf } from '../../lib/tags.js';
import { now } from '../../lib/time.js';
import type { Caller } from '../../auth/caller.js';
import { usersRepository, type NewUser, type UserPatch, type VisibleUserRow } from './users.repository.js';
import type { CreateUser, UpdateUser, User, UserQuery } from './users.schemas.js';

function toResponse(row: VisibleUserRow): User {
  const user: User = { id: row.id, email: row.email, createdDate: row.created_date };
  if (row.first_name) user.firstName = row.first_name;
  if (row.last_name) user.lastName = row.last_name;
  if (row.username) user.username = row.username;
  if (row.tags) user.tags = tagsOf(row.tags);
  if (row.locale) user.locale = row.locale;
  if (row.last_login_date) user.lastLoginDate = row.last_login_date;
  return user;
}

/** `""` and `null` both mean "no value". */
function blankToNull(value: string | null | undefined): string | null {
  return value ? value : null;
}

export function usersService(db: Kysely<Database>) {
  const users = usersRepository(db);

  /** Both uniqueness conflicts at once; the constraint still decides a race (see `conflictsAsFieldErrors`). */
  async function checkUnique(orgId: string, values: { email?: string; username?: string | null }, exceptId?: string) {
    const taken = await users.taken(orgId, { email: values.email, username: values.username ?? undefined }, exceptId);
    if (taken.size > 0) throw errors.fieldErrors(Object.fromEntries([...taken].map((property) => [property, IN_USE_MESSAGE])));
  }

  /** Runs a write; a unique-constraint violation (a concurrent twin won) becomes the same 400. */
  async function conflictsAsFieldErrors<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const constraint = uniqueViolation(error);
      if (constraint === undefined) throw error;
      throw errors.fieldErrors(constraint.includes('username') ? { username: IN_USE_MESSAGE } : { email: IN_USE_MESSAGE });
    }
  }

  return {
    async list(caller: Caller, query: UserQuery, paging: Paging): Promise<User[]> {
      const rows = await users.list(
        caller.orgId,
        {
          email: query.email,
          firstName: query.firstName,
          lastName: query.lastName,
          username: query.username,
          tags: query.tags === undefined ? undefined : parseTagFilter('tags', query.tags),
          createdDate: query.createdDate === undefined ? undefined : parseDateFilter(query.createdDate),
          lastLoginDate: query.lastLoginDate === undefined ? undefined : parseDateFilter(query.lastLoginDate),
        },
        paging,
      );
      return rows.map(toResponse);
    },

    async get(caller: Caller, id: string): Promise<User> {
      return toResponse(await findById(id, (id) => users.find(caller.orgId, id)));
    },

    async create(caller: Caller, input: CreateUser): Promise<string> {
      const row: NewUser = {
        org_id: caller.orgId,
        id: newId(),
        first_name: blankToNull(input.firstName),
        last_name: blankToNull(input.lastName),
        username: blankToNull(input.username),
        email: input.email,
        password_hash: input.password ? await hashPassword(input.password) : null,
        locale: blankToNull(input.locale),
        tags: tagsColumn(input.tags),
        created_date: now(),
        last_login_date: null,
      };
      await checkUnique(caller.orgId, row);
      await conflictsAsFieldErrors(() => users.insert(row));
      return row.id;
    },

    async update(caller: Caller, id: string, input: UpdateUser): Promise<void> {
      await findById(id, (id) => users.find(caller.orgId, id));
      const patch: UserPatch = {};
      if (input.email !== undefined) patch.email = input.email;
      if (input.username !== undefined) patch.username = blankToNull(input.username);
      if (input.firstName !== undefined) patch.first_name = blankToNull(input.firstName);
      if (input.lastName !== undefined) patch.last_name = blankToNull(input.lastName);
      if (input.locale !== undefined) patch.locale = blankToNull(input.locale);
      if (input.tags !== undefined) patch.tags = tagsColumn(input.tags);
      if (input.password !== undefined) patch.password_hash = await hashPassword(input.password);
      if (Object.keys(patch).length === 0) return;
      await checkUnique(caller.orgId, patch, id);
      const updated = await conflictsAsFieldErrors(() => users.update(caller.orgId, id, patch));
      if (!updated) throw errors.notFound(); // deleted meanwhile
    },

    async delete(caller: Caller, id: string): Promise<void> {
      if (!isId(id) || !(await users.delete(caller.orgId, id))) throw errors.notFound();
    },
  };
}

export type UsersService = ReturnType<typeof usersService>;
