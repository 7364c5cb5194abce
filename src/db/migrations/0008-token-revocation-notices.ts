import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../locking.js';

// Every instance keeps the tokens it has resolved; on PostgreSQL they learn of any revocation or
// deletion, whoever makes it, from this notice (SQLite instances watch the file's data_version).
// The channel's name is written out, as a migration's text must not change after it has run; the
// watch in db/token-revocations.ts listens on the same name.
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql
    .raw(
      `create function notify_tokens_revoked() returns trigger language plpgsql as $$
       begin perform pg_notify('training_api_tokens_revoked', ''); return null; end $$`,
    )
    .execute(db);
  await sql`create trigger access_tokens_revoked after update of revoked_date or delete on access_tokens
            for each statement execute function notify_tokens_revoked()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop trigger access_tokens_revoked on access_tokens`.execute(db);
  await sql`drop function notify_tokens_revoked()`.execute(db);
}
