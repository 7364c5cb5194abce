import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../locking.js';

// PostgreSQL: ANALYZE keeps 1,000 names (most common values and histogram bounds) of each trigram index of migration
// 0030 rather than the default 100. A name filter chooses the fragments it asks of the index from that sample
// (src/resources/users/name-search.ts), and the planner estimates the filters from it: with 100, a fragment found in
// one sampled name stood for 1 % of the people (10,000 of 1,000,000), however rare; with 1,000 it stands for 0.1 %.
// ANALYZE of `users` then reads 300,000 rows rather than 30,000 (its sample follows the largest target of the table
// and its indexes); the new target applies from the next ANALYZE, autovacuum's or one run by hand. SQLite: nothing.
const INDEXES = ['users_first_name_trigrams', 'users_last_name_trigrams', 'users_username_trigrams'];

export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const index of INDEXES) await sql`alter index ${sql.raw(index)} alter column 1 set statistics 1000`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  for (const index of INDEXES) await sql`alter index ${sql.raw(index)} alter column 1 set statistics -1`.execute(db);
}
