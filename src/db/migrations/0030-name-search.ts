import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../locking.js';

// The name filters of the people lists (firstName, lastName, username: a part of the name, case aside) by an index
// of three-letter fragments, where they read every person of the organization before (1 to 2 s at 1,000,000).
//
// PostgreSQL: a GIN index of pg_trgm's trigrams over each lower-cased name, which serves the filters' own
// `lower(name) like '%...%'` (and `like '...%'`), so the filters are unchanged. The extension is used where it is
// installed; else it is created here, which needs a superuser, or from PostgreSQL 13 the database's owner. When it
// cannot be created the migration stops with a message that says what to run, and nothing of it is applied.
//
// SQLite: an FTS5 table with the trigram tokenizer over the same lower-cased names (our `lower`, so that it folds
// as the filters do), each after two marks (U+0001) that make the first one or two letters of a name a trigram of
// their own: the console searches the start of a name for a query that short. It holds no copy of the names
// (contentless), and is kept in step with `users` by triggers, whatever writes there; its rowid is the user's,
// which VACUUM keeps (the table has indexes). The filters keep their LIKE, so the index only narrows the rows read.
const NAME_COLUMNS = ['first_name', 'last_name', 'username'] as const;

/** The text the SQLite index holds for a name of `row` (`new` or a table). */
const indexed = (row: string) => sql.join(NAME_COLUMNS.map((column) => sql.raw(`char(1, 1) || lower(${row}.${column})`)));

async function trigramSchema(db: Kysely<any>): Promise<string | undefined> {
  const { rows } = await sql<{
    schema: string;
  }>`select extnamespace::regnamespace::text as schema from pg_extension where extname = 'pg_trgm'`.execute(db);
  return rows[0]?.schema;
}

/** The schema of pg_trgm's operator classes: where it is installed, else the current schema, where it is created. */
async function installedTrigrams(db: Kysely<any>): Promise<string> {
  const installed = await trigramSchema(db);
  if (installed) return installed;
  try {
    await sql`create extension pg_trgm`.execute(db);
  } catch (error) {
    throw new Error(
      `migration 0030 indexes the name searches with PostgreSQL's pg_trgm extension, which this role cannot create ` +
        `(${(error as Error).message}): have a superuser run CREATE EXTENSION pg_trgm; in the database of DATABASE_URL ` +
        `(PostgreSQL's contrib package provides it), then migrate again`,
      { cause: error },
    );
  }
  return (await trigramSchema(db))!;
}

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    const schema = await installedTrigrams(db);
    for (const column of NAME_COLUMNS) {
      await sql`create index ${sql.raw(`users_${column}_trigrams`)} on users using gin (lower(${sql.ref(column)}) ${sql.raw(`${schema}.gin_trgm_ops`)})`.execute(
        db,
      );
    }
    return;
  }
  await sql`create virtual table users_names using fts5(first_name, last_name, username, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1')`.execute(
    db,
  );
  await sql`insert into users_names (rowid, first_name, last_name, username) select rowid, ${indexed('users')} from users`.execute(db);
  // One b-tree rather than the segments of the fill: a search reads every segment.
  await sql`insert into users_names (users_names) values ('optimize')`.execute(db);
  await sql`create trigger users_names_insert after insert on users begin
    insert into users_names (rowid, first_name, last_name, username) values (new.rowid, ${indexed('new')}); end`.execute(db);
  await sql`create trigger users_names_update after update of first_name, last_name, username on users begin
    update users_names set (first_name, last_name, username) = (${indexed('new')}) where rowid = new.rowid; end`.execute(db);
  await sql`create trigger users_names_delete after delete on users begin delete from users_names where rowid = old.rowid; end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    // The extension stays: it may have been there before, and other schemas may use it.
    for (const column of NAME_COLUMNS) await sql`drop index ${sql.raw(`users_${column}_trigrams`)}`.execute(db);
    return;
  }
  for (const trigger of ['insert', 'update', 'delete']) await sql`drop trigger ${sql.raw(`users_names_${trigger}`)}`.execute(db);
  await sql`drop table users_names`.execute(db);
}
