import { sql, type Kysely } from 'kysely';
import { VERSION } from '../lib/version.js';
import type { Database } from './schema.js';

/** Kysely's own record of the migrations a database has had. */
const MIGRATION_TABLE = 'kysely_migration';
/** Which version of training-api applied each migration, so an older version can name the one a database needs. */
export const VERSIONS_TABLE = 'training_api_migration_versions';

/** The database was migrated by a newer training-api than this one: printed in one line, exit code 1. */
class NewerDatabaseError extends Error {
  readonly code = 'ERR_DATABASE_NEWER';
}

async function tableExists(db: Kysely<Database>, name: string): Promise<boolean> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  return tables.some((table) => table.name === name);
}

/** `1.10.0` after `1.9.2`. */
function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((version) => version.split(/[.-]/).map((part) => Number(part) || 0));
  for (let i = 0; i < Math.max(x!.length, y!.length); i += 1) {
    const difference = (x![i] ?? 0) - (y![i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * Refuses a database that has migrations this version does not know (a downgrade): Kysely would only say that
 * a migration is missing, with a stack trace. Names them and the version that applied them.
 */
export async function refuseNewerDatabase(db: Kysely<Database>, known: readonly string[]): Promise<void> {
  if (!(await tableExists(db, MIGRATION_TABLE))) return;
  const applied = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(db);
  const unknown = applied.rows.map((row) => row.name).filter((name) => !known.includes(name));
  if (unknown.length === 0) return;
  const versions = (await tableExists(db, VERSIONS_TABLE))
    ? (
        await sql<{ version: string }>`select version from ${sql.table(VERSIONS_TABLE)} where migration in (${sql.join(unknown)})`.execute(db)
      ).rows.map((row) => row.version)
    : [];
  const needed = versions.sort(compareVersions).at(-1);
  throw new NewerDatabaseError(
    `the database was migrated by a newer training-api: it has ${unknown.length === 1 ? 'migration' : 'migrations'} ${unknown.join(', ')}, ` +
      `which version ${VERSION} does not know; run training-api ${needed ? `${needed} or later` : 'of the version that migrated it'}, ` +
      'or restore the backup taken before the upgrade',
  );
}

/** Records this version as the one that applied `migrations`. */
export async function recordMigrationVersion(db: Kysely<Database>, migrations: readonly string[]): Promise<void> {
  await sql`create table if not exists ${sql.table(VERSIONS_TABLE)} (migration varchar(255) primary key, version varchar(64) not null)`.execute(db);
  for (const migration of migrations) {
    await sql`insert into ${sql.table(VERSIONS_TABLE)} (migration, version) values (${migration}, ${VERSION})
      on conflict (migration) do update set version = excluded.version`.execute(db);
  }
}
