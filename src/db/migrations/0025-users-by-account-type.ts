import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../locking.js';

// The console's list of people, newest first a page at a time from a person's place in it, filtered as GET /users is.
//
// Filtered by kind of account: the index of migration 0019 found the people of a kind but not in that order, so a
// page of learners (almost every user) sorted them all first. With the list's order after the kind, a page of any
// kind is read in order from its key, as the unfiltered list is from `users_created`. It replaces the older index,
// of which it is an extension.
//
// Filtered by tag: PostgreSQL guessed that a tag matches a hundredth of a percent of the people (its default for
// LIKE), and so read and sorted them all (600 ms at 1,000,000 people) rather than walk `users_created` until a page
// is found (5 ms when a tag is on 1 %). Statistics of the filter's expression (`hasWord` in db/filters.ts, as it
// is written there) let it count the people of each common tag. Expression statistics need PostgreSQL 14.
const TAG_WORDS = sql`((' ' || lower(tags) || ' '))`;

async function hasExpressionStatistics(db: Kysely<any>): Promise<boolean> {
  if (!isPostgres(db)) return false;
  const { rows } = await sql<{ version: number }>`select current_setting('server_version_num')::int as version`.execute(db);
  return rows[0]!.version >= 140000;
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('users_account_type_created').on('users').columns(['org_id', 'account_type', 'created_date', 'id']).execute();
  await db.schema.dropIndex('users_account_type').execute();
  if (await hasExpressionStatistics(db)) await sql`create statistics users_tag_words on ${TAG_WORDS} from users`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (await hasExpressionStatistics(db)) await sql`drop statistics users_tag_words`.execute(db);
  await db.schema.createIndex('users_account_type').on('users').columns(['org_id', 'account_type']).execute();
  await db.schema.dropIndex('users_account_type_created').execute();
}
