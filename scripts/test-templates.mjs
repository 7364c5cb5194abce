// The migrations run once per test run, not once per test file: a migrated SQLite template is made first, and
// every test database of the run starts as a copy of it (test/helpers/database.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs `run` with the environment the test processes get, the template's path included; removes the template after. */
export async function withMigratedTemplates(run) {
  const { migratedSqliteTemplate, SQLITE_TEMPLATE_VARIABLE } = await import('../dist/test/helpers/database.js');
  const dir = mkdtempSync(join(tmpdir(), 'training-api-template-'));
  try {
    const template = join(dir, 'migrated.db');
    await migratedSqliteTemplate(template);
    return run({ ...process.env, [SQLITE_TEMPLATE_VARIABLE]: template });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
