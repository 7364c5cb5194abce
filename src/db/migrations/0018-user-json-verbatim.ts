import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../locking.js';

// PostgreSQL: whether each of a user's strings can be written between JSON quotes as it is, kept in the
// row. The first page of GET /users writes each user's JSON in its statement (users.repository.ts), and
// quoting with `to_json` cost about half of PostgreSQL's time a page; with this column a user whose
// strings need no escaping (almost every user) is written by concatenation alone.
//
// A string needs escaping when it holds a quote, a backslash or a control character (U+0001-U+001F; text
// cannot hold U+0000): what `to_json` and JSON.stringify escape. The column is generated, so every
// write of a user keeps it true to the row, whichever path writes it. It takes one byte a row.
//
// SQLite keeps each user's whole JSON in an index instead (migration 0017).
const STRINGS = sql`email || coalesce(first_name, '') || coalesce(last_name, '') || coalesce(username, '') || coalesce(tags, '') || coalesce(locale, '')`;

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  // Rewrites the table and its indexes once, under its lock: about two seconds per 100,000 users, measured.
  await sql`alter table users add column json_verbatim boolean generated always as ((${STRINGS}) !~ '[\\x01-\\x1f"\\\\]') stored`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await db.schema.alterTable('users').dropColumn('json_verbatim').execute();
}
