// The migrations run once per test run, not once per test file: a migrated SQLite file, and with TEST_POSTGRES_URL
// the script that makes a migrated PostgreSQL schema, are made first; every test database of the run starts as a
// copy (test/helpers/database.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs `run` with the environment the test processes get, the template's path included; removes the template after. */
export async function withMigratedTemplates(run) {
  const templates = await import('../dist/test/helpers/database.js');
  const dir = mkdtempSync(join(tmpdir(), 'training-api-template-'));
  try {
    const env = { ...process.env, [templates.SQLITE_TEMPLATE_VARIABLE]: join(dir, 'migrated.db') };
    await templates.migratedSqliteTemplate(env[templates.SQLITE_TEMPLATE_VARIABLE]);
    const postgres = join(dir, 'migrated-postgres.sql');
    if (process.env.TEST_POSTGRES_URL && (await templates.migratedPostgresTemplate(postgres))) {
      env[templates.POSTGRES_TEMPLATE_VARIABLE] = postgres;
    }
    return run(env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
