import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it, mock } from 'node:test';
import { progressOf } from '../../src/cli/progress.js';
import { organizationsRepository } from '../../src/resources/organizations/organizations.repository.js';
import { createTestDatabase } from '../helpers/database.js';

/** The repository root, from dist/test/cli/. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

it('without a terminal, tells the rows done on stderr every five seconds, not more often', () => {
  assert.ok(!process.stderr.isTTY, 'the test runner gives no terminal');
  mock.timers.enable({ apis: ['Date'], now: 0 });
  try {
    const lines: string[] = [];
    const progress = progressOf(50_000, 'checked', { err: (line) => lines.push(line) });
    progress.increment(10_000);
    mock.timers.tick(4_999);
    progress.increment(2_500);
    assert.deepEqual(lines, []);
    mock.timers.tick(1);
    progress.increment(0);
    assert.deepEqual(lines, ['rows 12,500/50,000 checked']);
    mock.timers.tick(5_000);
    progress.increment(37_500);
    progress.stop();
    assert.deepEqual(lines, ['rows 12,500/50,000 checked', 'rows 50,000/50,000 checked']);
  } finally {
    mock.timers.reset();
  }
});

it('on a terminal, draws a bar while the rows are written, and nothing while they are checked', async (t) => {
  if (!existsSync('/usr/bin/script')) return t.skip('needs script(1) from util-linux for a pseudo-terminal');
  const database = await createTestDatabase('sqlite');
  const dir = mkdtempSync(join(tmpdir(), 'progress-'));
  try {
    const organization = await organizationsRepository(database.db).create('Progress');
    const file = join(dir, 'people.csv');
    writeFileSync(file, ['email,firstName', ...Array.from({ length: 3 }, (_, n) => `person${n}@example.com,Person`)].join('\n'));
    const command = [process.execPath, join(ROOT, 'bin/training-api.js'), 'import', 'users', '--org', organization.id, file];
    // script(1) runs the command on a pseudo-terminal of its own, as an operator's shell would.
    const run = spawnSync('/usr/bin/script', ['-qec', command.map((word) => `'${word}'`).join(' '), '/dev/null'], {
      env: { ...process.env, DATABASE_URL: database.url },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /Importing users \[[█░]+\] 100% \| 3\/3 rows/);
    assert.doesNotMatch(run.stdout, /rows \d+\/\d+ checked/);
    assert.match(run.stdout, /Imported 3 users from people\.csv: 3 created/);
  } finally {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});
