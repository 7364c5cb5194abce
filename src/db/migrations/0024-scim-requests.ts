import type { Kysely } from 'kysely';
import { isPostgres } from '../locking.js';

// The last requests an organization's identity provider made to /scim/v2, for its administrators to see
// what it sends and what it was answered (the console's SCIM section): the method, path, status, time and
// duration, the token's id and the client's User-Agent; never a body or a query. Each organization keeps
// its latest ones only (src/scim/request-log.ts).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scim_requests')
    .$call((table) =>
      isPostgres(db)
        ? table.addColumn('seq', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
        : table.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement()),
    )
    .addColumn('org_id', 'varchar(32)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('method', 'varchar(10)', (c) => c.notNull())
    .addColumn('path', 'varchar(300)', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('token_id', 'varchar(32)')
    .addColumn('user_agent', 'varchar(200)')
    .addColumn('created_date', 'varchar(24)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('scim_requests_latest').on('scim_requests').columns(['org_id', 'seq']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scim_requests').execute();
}
