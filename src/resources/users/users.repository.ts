import { sql, type Expression, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool, type Transaction } from 'kysely';
import { batches, findInBatches } from '../../db/batches.js';
import { coalescedById } from '../../db/coalesced.js';
import { compiledOnce } from '../../db/compiled.js';
import { hasWord, pageWindow, withinRange } from '../../db/filters.js';
import { lookupKey } from '../../db/keys.js';
import { forUpdate, isPostgres } from '../../db/locking.js';
import { withBooleans, type Row } from '../../db/rows.js';
import type { ChangeTime } from '../../db/unit-of-work.js';
import type { Database, UsersTable } from '../../db/schema.js';
import type { DateRange } from '../../lib/date-filter.js';
import type { JsonItems, Paging } from '../../lib/paging.js';
import { postgresJsonObject } from '../../db/json-objects.js';
import { unnestedInsert } from '../../db/unnested-inserts.js';
import { lettersOf, nameConditions, TRIGRAM_LETTERS, type NameColumn, type NameFilter } from './name-search.js';
import { USER_JSON } from './user-properties.js';

export type UserRow = UsersTable;
/** A user as services write it; the repository derives the lookup keys. */
export type NewUser = Omit<UserRow, 'email_key' | 'username_key'>;

/** What services read of a user: what a response shows, and more, but never the password hash or the lookup keys. */
export const VISIBLE_COLUMNS = [
  ...USER_JSON.map(({ column }) => column),
  'external_id',
  'password_change_required',
] as const satisfies readonly (keyof UsersTable)[];
export type VisibleUserRow = Row<Pick<UserRow, (typeof VISIBLE_COLUMNS)[number]>>;
/** A row of VISIBLE_COLUMNS as repositories hand it on. */
export const visibleUser = (row: Pick<UserRow, (typeof VISIBLE_COLUMNS)[number]>): VisibleUserRow =>
  withBooleans(row, ['active', 'password_change_required']);
export type UserPatch = Partial<Omit<NewUser, 'org_id' | 'id' | 'created_date'>>;
/** A user's unique properties. */
export type UniqueProperty = 'email' | 'username';

export interface UserFilters {
  /** The whole email, in any case. */
  email?: string;
  firstName?: string;
  lastName?: string;
  username?: string;
  tags?: string[];
  active?: boolean;
  createdDate?: DateRange;
  updatedDate?: DateRange;
  lastLoginDate?: DateRange;
  accountType?: 'learner' | NonNullable<UserRow['account_type']>;
  /** A name filter of one or two letters matches the start of the name rather than any part: the console's search (name-search.ts). */
  shortNamesAtStart?: boolean;
}

/** A patch with the lookup keys of the email and username it changes. */
function patchWithKeys(patch: UserPatch) {
  return {
    ...patch,
    ...(patch.email === undefined ? {} : { email_key: lookupKey(patch.email) }),
    ...(patch.username === undefined ? {} : { username_key: patch.username === null ? null : lookupKey(patch.username) }),
  };
}

const findUser = compiledOnce(2, (db, orgId, id) => db.selectFrom('users').select(VISIBLE_COLUMNS).where('org_id', '=', orgId).where('id', '=', id));
/** Every column of a user's row, in the order `insertUser` binds them. */
const USER_COLUMNS = ['org_id', ...VISIBLE_COLUMNS, 'username_key', 'email_key', 'password_hash'] as const satisfies readonly (keyof UsersTable)[];

/** A new user's row: on every POST /users, so compiled once (and a named statement on PostgreSQL). */
const insertUser = compiledOnce(USER_COLUMNS.length, (db, ...values) =>
  db.insertInto('users').values(Object.fromEntries(USER_COLUMNS.map((column, index) => [column, values[index]])) as unknown as UsersTable),
);

/** New users in one statement whatever their count (PostgreSQL): an import's batch of them. */
const insertUsers = unnestedInsert(
  'users',
  USER_COLUMNS.map((column) => (column === 'active' || column === 'password_change_required' ? { name: column, type: 'boolean' } : column)),
);

/**
 * Users by pairs of organization and id, bound as one JSON array of `{ "org_id", "id" }` objects, each
 * row with its organization: the lookups of a turn, of every organization, gathered. PostgreSQL reads
 * each pair from the primary key. The pairs are JSON rather than two arrays for the plan's sake: the
 * planner sizes an `unnest` of a bound array by its length, so each run of the named statement would
 * be planned again (0.3-0.4 ms, twice the reading of a few users); a JSON set is sized alike in every
 * run, so PostgreSQL keeps one plan (0.02 ms).
 */
const findUsers = compiledOnce(1, (db, pairs) =>
  db
    .selectFrom('users')
    .select(['org_id', ...VISIBLE_COLUMNS])
    .where(sql<boolean>`(org_id, id) in (select org_id, id from json_to_recordset(${pairs}::json) as wanted(org_id text, id text))`),
);
const findUserCoalesced = coalescedById(
  (db, orgId, id) => findUser(db, orgId, id).then(([row]) => row),
  (db, orgIds, ids) => findUsers(db, JSON.stringify(orgIds.map((orgId, index) => ({ org_id: orgId, id: ids[index] })))),
);

/** Where a page of the console's list begins: a user of the page beside it, by its place in the list (created_date, id). */
export interface UserKey {
  createdDate: string;
  id: string;
}

/** A page of users newest first, from a user of the page beside it: older than `after`, or newer than `before`. */
export interface KeysetPaging {
  limit: number;
  after?: UserKey;
  before?: UserKey;
}

/** The name filters among `filters`. */
function nameFiltersOf(filters: UserFilters): NameFilter[] {
  const named: [NameColumn, string | undefined][] = [
    ['first_name', filters.firstName],
    ['last_name', filters.lastName],
    ['username', filters.username],
  ];
  return named.flatMap(([column, text]) =>
    text === undefined ? [] : [{ column, text, atStart: filters.shortNamesAtStart === true && lettersOf(text) < TRIGRAM_LETTERS }],
  );
}

/**
 * The users of the organization that pass `filters`, in no order yet; `names`, the conditions of its
 * name filters as they are read through their index (name-search.ts, `nameConditions`).
 */
function filteredUsers(db: Kysely<Database> | Transaction<Database>, orgId: string, filters: UserFilters, names: readonly Expression<SqlBool>[]) {
  let query = db.selectFrom('users').where('org_id', '=', orgId);
  if (filters.email !== undefined) query = query.where('email_key', '=', lookupKey(filters.email));
  for (const name of names) query = query.where(name);
  for (const tag of filters.tags ?? []) query = query.where(hasWord('tags', tag));
  if (filters.active !== undefined) query = query.where('active', '=', filters.active);
  if (filters.createdDate) query = query.where(withinRange('created_date', filters.createdDate));
  if (filters.updatedDate) query = query.where(withinRange('updated_date', filters.updatedDate));
  if (filters.lastLoginDate) query = query.where(withinRange('last_login_date', filters.lastLoginDate));
  if (filters.accountType === 'learner') query = query.where('account_type', 'is', null);
  else if (filters.accountType !== undefined) query = query.where('account_type', '=', filters.accountType);
  return query;
}

/**
 * Up to `limit + 1` users in creation order, so the caller can tell whether a next page exists, with
 * what `select` picks. A later page takes its ids from the `(org_id, created_date, id)` index first
 * and reads only those rows: the rows skipped by the offset are never read, which keeps a page deep
 * in a large organization from reading every user before it.
 */
function pageOfUsers<O>(
  db: Kysely<Database> | Transaction<Database>,
  orgId: string,
  filters: UserFilters,
  paging: Paging,
  select: (query: SelectQueryBuilder<Database, 'users', object>) => SelectQueryBuilder<Database, 'users', O>,
  names: readonly Expression<SqlBool>[],
): SelectQueryBuilder<Database, 'users', O> {
  const query = filteredUsers(db, orgId, filters, names);
  const pageInOrder = <S>(selection: SelectQueryBuilder<Database, 'users', S>) =>
    selection
      .orderBy('created_date')
      .orderBy('id')
      .$call((q) => pageWindow(q, paging));
  if (paging.offset === 0) return pageInOrder(select(query));
  return select(db.selectFrom('users').where('org_id', '=', orgId))
    .where('id', 'in', pageInOrder(query.select('id')))
    .orderBy('created_date')
    .orderBy('id');
}

/**
 * A user as the API answers it (user-properties.ts), as JSON text PostgreSQL writes in the statement.
 * A user whose strings need no escaping (`json_verbatim`, migration 0018: almost every user) has them
 * written between quotes as they are. SQLite keeps the same text in an index (migration 0019).
 */
const postgresUserJson = () => postgresJsonObject(USER_JSON, sql<boolean>`json_verbatim`);

/**
 * SQLite's first JSON page: each user's JSON read from the index that keeps it (migration 0019). The
 * index is partial on `user_json is not null` (true of every row), which the statement states so that
 * the index may serve it.
 */
function sqliteFirstJsonPage(orgId: string, limit: string, offset: string): RawBuilder<{ user_json: string }> {
  return sql`select user_json from users indexed by users_created_json where org_id = ${orgId} and user_json is not null order by created_date, id limit ${limit} offset ${offset}`;
}

/**
 * The first JSON page of an unfiltered list (the common one), up to `limit` users (the page and
 * one more), compiled once: its statement is long, and building and compiling it cost a tenth of
 * the request. Its limit is bound like its offset, so one statement serves every limit, named on
 * PostgreSQL, which then neither parses nor plans it again (80 µs of PostgreSQL's 550 a page).
 * SQLite reads the users' JSON from the index that keeps it, named: after an ANALYZE its planner
 * would take the smaller index of the same order and write every user's JSON again.
 */
const firstJsonPage = compiledOnce(3, (db, orgId, limit, offset) =>
  isPostgres(db)
    ? db
        .selectFrom('users')
        .where('org_id', '=', orgId)
        .select(postgresUserJson().as('user_json'))
        .orderBy('created_date')
        .orderBy('id')
        // The stand-ins are only compiled, never run: each call binds its own numbers.
        .limit(limit as unknown as number)
        .offset(offset as unknown as number)
    : { compile: () => sqliteFirstJsonPage(orgId, limit, offset).compile(db) },
);

/** A user's JSON as SQLite keeps it (migration 0019), written for this one row. */
const findUserJson = compiledOnce(2, (db, orgId, id) =>
  db
    .selectFrom('users')
    .select(sql<string>`user_json`.as('user_json'))
    .where('org_id', '=', orgId)
    .where('id', '=', id),
);

/** Up to `limit` users that pass `filters` (the name filters' conditions `names`), in the list's order (`asc`, oldest first) or against it, from the one beside `key`. */
async function usersFromKey(
  db: Kysely<Database> | Transaction<Database>,
  orgId: string,
  filters: UserFilters,
  key: UserKey | undefined,
  order: 'asc' | 'desc',
  limit: number,
  names: readonly Expression<SqlBool>[],
): Promise<VisibleUserRow[]> {
  const rows = await filteredUsers(db, orgId, filters, names)
    .select(VISIBLE_COLUMNS)
    .$if(key !== undefined, (query) =>
      query.where(sql<boolean>`(created_date, id) ${sql.raw(order === 'asc' ? '>' : '<')} (${key!.createdDate}, ${key!.id})`),
    )
    .orderBy('created_date', order)
    .orderBy('id', order)
    .limit(sql.lit(limit))
    .execute();
  return rows.map(visibleUser);
}

export function usersRepository(db: Kysely<Database> | Transaction<Database>) {
  return {
    /** Whether `findJson` can be asked: SQLite writes a user's JSON (migration 0019); PostgreSQL only a page's. */
    writesJson: !isPostgres(db),

    /** The user as the API answers it, as JSON text (see `writesJson`). */
    findJson(orgId: string, id: string): Promise<string | undefined> {
      return findUserJson(db, orgId, id).then(([row]) => row?.user_json);
    },

    /**
     * Up to `limit + 1` users in creation order, so the caller can tell whether a next page exists.
     * A later page takes its ids from the `(org_id, created_date, id)` index first and reads only
     * those rows: the rows skipped by the offset are never read, which keeps a page deep in a large
     * organization from reading every user before it.
     */
    async list(orgId: string, filters: UserFilters, paging: Paging): Promise<VisibleUserRow[]> {
      const names = await nameConditions(db, nameFiltersOf(filters));
      const rows = await pageOfUsers(db, orgId, filters, paging, (query) => query.select(VISIBLE_COLUMNS), names).execute();
      return rows.map(visibleUser);
    },

    /**
     * Up to `limit` users newest first, from a user of the page beside it (see KeysetPaging), with
     * the filters of `list`, and whether more follow in the direction read. Each page starts from its
     * key in an index of the list's order (`(org_id, created_date, id)`, or with `account_type` before
     * `created_date`), however deep it is, where an OFFSET would read every user before it. A page
     * `before` a key is read backwards, then turned.
     */
    async listByKey(orgId: string, filters: UserFilters, paging: KeysetPaging): Promise<{ users: VisibleUserRow[]; more: boolean }> {
      const backwards = paging.before !== undefined;
      const names = await nameConditions(db, nameFiltersOf(filters));
      const order = backwards ? 'asc' : 'desc';
      const rows = await usersFromKey(db, orgId, filters, paging.before ?? paging.after, order, paging.limit + 1, names);
      const users = rows.slice(0, paging.limit);
      return { users: backwards ? users.reverse() : users, more: rows.length > paging.limit };
    },

    /**
     * Up to `limit` users oldest first, from the one after `after`: every user, page after page (an
     * export), each page read from its key in the `(org_id, created_date, id)` index however deep.
     */
    inCreationOrder(orgId: string, limit: number, after?: UserKey): Promise<VisibleUserRow[]> {
      return usersFromKey(db, orgId, {}, after, 'asc', limit, []);
    },

    /**
     * The first page of an unfiltered list (the list most clients ask for first, and the largest
     * answers), as the JSON text of the API's users (`[{"id":...},...]`): each user's JSON is written
     * by the database, so no row object or string per column is made here, and the page is not
     * serialized again. `more` tells whether a next page exists. Undefined for any other page: their
     * statements would be built and compiled per request, which costs a one-row page (`?email=`) more
     * than the JSON saves (1.17x its CPU, measured), so they take `list`.
     */
    async listJson(orgId: string, filters: UserFilters, paging: Paging): Promise<JsonItems | undefined> {
      if (paging.offset !== 0 || Object.values(filters).some((value) => value !== undefined)) return undefined;
      const rows = await firstJsonPage(db, orgId, paging.limit + 1, paging.offset);
      const more = rows.length > paging.limit;
      let json = '[';
      for (let i = 0; i < rows.length && i < paging.limit; i += 1) json += i === 0 ? rows[i]!.user_json : `,${rows[i]!.user_json}`;
      return { json: `${json}]`, more };
    },

    async find(orgId: string, id: string): Promise<VisibleUserRow | undefined> {
      const row = await findUserCoalesced(db, orgId, id);
      return row && visibleUser(row);
    },

    /** What signing in by email checks: the user holding the email (any case), with the hash of its password. */
    async credentials(orgId: string, email: string): Promise<Row<Pick<UserRow, 'id' | 'password_hash' | 'active'>> | undefined> {
      const row = await db
        .selectFrom('users')
        .select(['id', 'password_hash', 'active'])
        .where('org_id', '=', orgId)
        .where('email_key', '=', lookupKey(email))
        .executeTakeFirst();
      return row && withBooleans(row, ['active']);
    },

    /** From when the user's sessions and sign-in tokens count (see `sessions_valid_after`), if ever set. */
    async sessionsValidAfter(orgId: string, id: string): Promise<string | undefined> {
      const row = await db.selectFrom('users').select('sessions_valid_after').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return row?.sessions_valid_after ?? undefined;
    },

    /** Which of `values` a user other than `exceptId` holds already, case aside. */
    async taken(orgId: string, values: Partial<Record<UniqueProperty, string>>, exceptId?: string): Promise<Set<UniqueProperty>> {
      const emailKey = values.email === undefined ? undefined : lookupKey(values.email);
      const usernameKey = values.username === undefined ? undefined : lookupKey(values.username);
      const taken = new Set<UniqueProperty>();
      if (emailKey === undefined && usernameKey === undefined) return taken;
      const holders = await db
        .selectFrom('users')
        .select(['email_key', 'username_key'])
        .where('org_id', '=', orgId)
        .where((eb) =>
          eb.or([
            ...(emailKey === undefined ? [] : [eb('email_key', '=', emailKey)]),
            ...(usernameKey === undefined ? [] : [eb('username_key', '=', usernameKey)]),
          ]),
        )
        .$if(exceptId !== undefined, (q) => q.where('id', '!=', exceptId!))
        .execute();
      for (const holder of holders) {
        if (emailKey !== undefined && holder.email_key === emailKey) taken.add('email');
        if (usernameKey !== undefined && holder.username_key === usernameKey) taken.add('username');
      }
      return taken;
    },

    /** The user's password hash: null when it has none, undefined when there is no such user. Only to check a password given. */
    async passwordHash(orgId: string, id: string): Promise<string | null | undefined> {
      const row = await db.selectFrom('users').select('password_hash').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return row?.password_hash;
    },

    /** Every user's id with the lookup keys of its email and username: what an import matches its rows against. */
    identities(orgId: string): Promise<Pick<UserRow, 'id' | 'email_key' | 'username_key'>[]> {
      return db.selectFrom('users').select(['id', 'email_key', 'username_key']).where('org_id', '=', orgId).execute();
    },

    /** The user, its row locked until the transaction ends: what an update compares and reports its change against. */
    async lock(orgId: string, id: string): Promise<VisibleUserRow | undefined> {
      const row = await forUpdate(
        db,
        db.selectFrom('users').select(VISIBLE_COLUMNS).where('org_id', '=', orgId).where('id', '=', id),
      ).executeTakeFirst();
      return row && visibleUser(row);
    },

    /** Each listed user that exists, by id, their rows locked (in id order) until the transaction ends: what `updateMany` compares with. */
    async lockMany(orgId: string, ids: readonly string[]): Promise<Map<string, VisibleUserRow>> {
      const rows = await findInBatches([...ids].sort(), (batch) =>
        forUpdate(db, db.selectFrom('users').select(VISIBLE_COLUMNS).where('org_id', '=', orgId).where('id', 'in', batch).orderBy('id')).execute(),
      );
      return new Map(rows.map((row) => [row.id, visibleUser(row)]));
    },

    /**
     * The updatedDate of each listed user that exists, their rows locked (in id order) until the
     * transaction ends: users whose values are about to change, and whose updatedDate moves with them.
     */
    async lockUpdatedDates(orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
      const rows = await findInBatches([...ids].sort(), (batch) =>
        forUpdate(
          db,
          db.selectFrom('users').select(['id', 'updated_date']).where('org_id', '=', orgId).where('id', 'in', batch).orderBy('id'),
        ).execute(),
      );
      return new Map(rows.map((row) => [row.id, row.updated_date]));
    },

    /** Sets the listed users' updatedDate. */
    async touch(orgId: string, ids: readonly string[], at: ChangeTime): Promise<void> {
      for (const batch of batches(ids)) {
        await db.updateTable('users').set({ updated_date: at }).where('org_id', '=', orgId).where('id', 'in', batch).execute();
      }
    },

    async insert(user: NewUser): Promise<void> {
      const row: UsersTable = { ...user, email_key: lookupKey(user.email), username_key: user.username === null ? null : lookupKey(user.username) };
      await insertUser(db, ...USER_COLUMNS.map((column) => row[column] ?? null));
    },

    async insertMany(users: readonly NewUser[]): Promise<void> {
      const rows = users.map((user) => ({
        ...user,
        email_key: lookupKey(user.email),
        username_key: user.username === null ? null : lookupKey(user.username),
      }));
      if (isPostgres(db)) return insertUsers(db, rows);
      for (const batch of batches(rows)) await db.insertInto('users').values(batch).execute();
    },

    async update(orgId: string, id: string, patch: UserPatch): Promise<boolean> {
      const result = await db.updateTable('users').set(patchWithKeys(patch)).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /**
     * Writes each user's patch, the users whose patches name the same columns together: one
     * `update ... from` a list of values for each such group (and each BATCH of it), not a statement a user.
     */
    async updateEach(orgId: string, changes: readonly { id: string; patch: UserPatch }[]): Promise<void> {
      const groups = new Map<string, { id: string; columns: Record<string, unknown> }[]>();
      for (const { id, patch } of changes) {
        const columns = patchWithKeys(patch) as Record<string, unknown>;
        const shape = Object.keys(columns).sort().join();
        const group = groups.get(shape);
        if (group) group.push({ id, columns });
        else groups.set(shape, [{ id, columns }]);
      }
      const postgres = isPostgres(db);
      for (const [shape, group] of groups) {
        if (shape === '') continue;
        const names = shape.split(',');
        // PostgreSQL reads the list's values as text: the boolean column is cast back.
        const valueOf = (name: string) =>
          postgres && name === 'active' ? sql`cast(changed.${sql.ref(name)} as boolean)` : sql`changed.${sql.ref(name)}`;
        for (const batch of batches(group)) {
          const rows = batch.map(({ id, columns }) => sql`(${sql.join([id, ...names.map((name) => columns[name])])})`);
          await sql`with changed (id, ${sql.join(names.map((name) => sql.ref(name)))}) as (values ${sql.join(rows)})
            update users set ${sql.join(names.map((name) => sql`${sql.ref(name)} = ${valueOf(name)}`))}
            from changed where users.org_id = ${orgId} and users.id = changed.id`.execute(db);
        }
      }
    },

    async delete(orgId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('users').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
