import { sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type Transaction } from 'kysely';
import { batches, findInBatches } from '../../db/batches.js';
import { coalescedById } from '../../db/coalesced.js';
import { compiledOnce } from '../../db/compiled.js';
import { containsText, hasWord, pageWindow, withinRange } from '../../db/filters.js';
import { lookupKey } from '../../db/keys.js';
import { forUpdate, isPostgres } from '../../db/locking.js';
import { withBooleans, type Row } from '../../db/rows.js';
import type { Database, UsersTable } from '../../db/schema.js';
import type { DateRange } from '../../lib/date-filter.js';
import type { JsonItems, Paging } from '../../lib/paging.js';

export type UserRow = UsersTable;
/** A user as services write it; the repository derives the lookup keys. */
export type NewUser = Omit<UserRow, 'email_key' | 'username_key'>;

/** What a response shows; the password hash and lookup keys never leave the database on a read. */
export const VISIBLE_COLUMNS = [
  'id',
  'first_name',
  'last_name',
  'username',
  'email',
  'locale',
  'tags',
  'created_date',
  'updated_date',
  'last_login_date',
  'active',
  'external_id',
] as const;
export type VisibleUserRow = Row<Pick<UserRow, (typeof VISIBLE_COLUMNS)[number]>>;
/** A row of VISIBLE_COLUMNS as repositories hand it on. */
export const visibleUser = (row: Pick<UserRow, (typeof VISIBLE_COLUMNS)[number]>): VisibleUserRow => withBooleans(row, ['active']);
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

/** Users of one organization by their ids (an array bound as one parameter): the lookups of a turn, gathered. */
const findUsers = compiledOnce(2, (db, orgId, ids) =>
  db
    .selectFrom('users')
    .select(VISIBLE_COLUMNS)
    .where('org_id', '=', orgId)
    .where('id', '=', sql<string>`any(${ids})`),
);
const findUserCoalesced = coalescedById(
  (db, orgId, id) => findUser(db, orgId, id).then(([row]) => row),
  (db, orgId, ids) => findUsers(db, orgId, ids),
);

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
): SelectQueryBuilder<Database, 'users', O> {
  let query = db.selectFrom('users').where('org_id', '=', orgId);
  if (filters.email !== undefined) query = query.where('email_key', '=', lookupKey(filters.email));
  if (filters.firstName !== undefined) query = query.where(containsText('first_name', filters.firstName));
  if (filters.lastName !== undefined) query = query.where(containsText('last_name', filters.lastName));
  if (filters.username !== undefined) query = query.where(containsText('username', filters.username));
  for (const tag of filters.tags ?? []) query = query.where(hasWord('tags', tag));
  if (filters.active !== undefined) query = query.where('active', '=', filters.active);
  if (filters.createdDate) query = query.where(withinRange('created_date', filters.createdDate));
  if (filters.updatedDate) query = query.where(withinRange('updated_date', filters.updatedDate));
  if (filters.lastLoginDate) query = query.where(withinRange('last_login_date', filters.lastLoginDate));
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
 * A user as the API answers it (users.service.ts `toResponse`, in its order of properties, which
 * the response serializer keeps), as JSON text PostgreSQL writes in the statement: empty optional
 * columns are left out, tags (one column of words joined by spaces) become an array, and `active` a
 * boolean. A user whose strings need no escaping (`json_verbatim`, migration 0018: almost every user)
 * has them written between quotes as they are; any other user's are quoted by `to_json`, which escapes
 * exactly what JSON.stringify escapes, and which cost half of PostgreSQL's time a page when every user
 * took it. The id and the timestamps never need escaping: the server writes them all (32 hex digits,
 * `2026-11-26T16:05:35Z`). SQLite keeps the same text in an index (migration 0017).
 */
function postgresUserJson(): RawBuilder<string> {
  const verbatim: Quoting = {
    string: (column) => ['"', sql.ref(column), '"'],
    words: (column) => ['["', sql`replace(${sql.ref(column)}, ' ', '","')`, '"]'],
  };
  const escaped: Quoting = {
    string: (column) => [sql`to_json(${sql.ref(column)})::text`],
    words: (column) => ['[', sql`replace(to_json(${sql.ref(column)})::text, ' ', '","')`, ']'],
  };
  const object = (quote: Quoting) => {
    // An empty or absent value is left out.
    const optional = (column: string, property: string, value: JsonParts = quote.string(column)) =>
      sql`case when ${sql.ref(column)} <> '' then ${concatenated([`,"${property}":`, ...value])} else '' end`;
    // prettier-ignore
    return concatenated([
      '{"id":"', sql.ref('id'), '","email":', ...quote.string('email'), ',"createdDate":"', sql.ref('created_date'), '"',
      ',"active":', sql`case when active then 'true' else 'false' end`, ',"updatedDate":"', sql.ref('updated_date'), '"',
      optional('first_name', 'firstName'), optional('last_name', 'lastName'), optional('username', 'username'),
      optional('tags', 'tags', quote.words('tags')), optional('locale', 'locale'),
      optional('last_login_date', 'lastLoginDate', verbatim.string('last_login_date')), '}',
    ]);
  };
  return sql<string>`case when json_verbatim then ${object(verbatim)} else ${object(escaped)} end`;
}

/** Pieces of JSON text: literal text, and SQL expressions of text. */
type JsonParts = (string | RawBuilder<unknown>)[];

/** How a user's strings are written in its JSON: one string, or a column of words as an array of strings. */
interface Quoting {
  string(column: string): JsonParts;
  words(column: string): JsonParts;
}

/**
 * The pieces joined by `||`, adjacent literal pieces written as one literal: PostgreSQL folds no
 * constants inside a chain (it groups from the left), and each `||` copies the text so far. A chain
 * is cheaper here than format(), which parses its template for every row.
 */
function concatenated(parts: JsonParts): RawBuilder<string> {
  const merged: JsonParts = [];
  for (const part of parts) {
    const last = merged.at(-1);
    if (typeof part === 'string' && typeof last === 'string') merged[merged.length - 1] = last + part;
    else merged.push(part);
  }
  return sql.join(
    merged.map((part) => (typeof part === 'string' ? sql.lit(part) : part)),
    sql` || `,
  );
}

/**
 * SQLite's first JSON page: each user's JSON read from the index that keeps it (migration 0017). The
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

/** A user's JSON as SQLite keeps it (migration 0017), written for this one row. */
const findUserJson = compiledOnce(2, (db, orgId, id) =>
  db
    .selectFrom('users')
    .select(sql<string>`user_json`.as('user_json'))
    .where('org_id', '=', orgId)
    .where('id', '=', id),
);

export function usersRepository(db: Kysely<Database> | Transaction<Database>) {
  return {
    /** Whether `findJson` can be asked: SQLite writes a user's JSON (migration 0017); PostgreSQL only a page's. */
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
    list(orgId: string, filters: UserFilters, paging: Paging): Promise<VisibleUserRow[]> {
      return pageOfUsers(db, orgId, filters, paging, (query) => query.select(VISIBLE_COLUMNS))
        .execute()
        .then((rows) => rows.map(visibleUser));
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
    async touch(orgId: string, ids: readonly string[], at: string): Promise<void> {
      for (const batch of batches(ids)) {
        await db.updateTable('users').set({ updated_date: at }).where('org_id', '=', orgId).where('id', 'in', batch).execute();
      }
    },

    async insert(user: NewUser): Promise<void> {
      const row: UsersTable = { ...user, email_key: lookupKey(user.email), username_key: user.username === null ? null : lookupKey(user.username) };
      await insertUser(db, ...USER_COLUMNS.map((column) => row[column] ?? null));
    },

    async insertMany(users: readonly NewUser[]): Promise<void> {
      for (const batch of batches(users)) {
        await db
          .insertInto('users')
          .values(
            batch.map((user) => ({
              ...user,
              email_key: lookupKey(user.email),
              username_key: user.username === null ? null : lookupKey(user.username),
            })),
          )
          .execute();
      }
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
