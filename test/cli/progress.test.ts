import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it, mock } from 'node:test';
import { progressOf } from '../../src/cli/progress.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { createTestDatabase } from '../helpers/database.js';

/** The repository root, from dist/test/cli/. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

it('without a terminal, tells the stage and its rows on stderr a second after the start and every five seconds after, reading included', () => {
  assert.ok(!process.stderr.isTTY, 'the test runner gives no terminal');
  mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  try {
    const lines: string[] = [];
    const progress = progressOf({ err: (line) => lines.push(line) });
    progress.stage('read');
    progress.advance(10_000);
    mock.timers.tick(999);
    assert.deepEqual(lines, []);
    mock.timers.tick(1);
    assert.deepEqual(lines, ['rows 10,000 read']);
    progress.stage('checked', 50_000);
    progress.advance(12_500);
    mock.timers.tick(4_999);
    assert.equal(lines.length, 1, 'not more often than every five seconds');
    mock.timers.tick(1);
    progress.advance(37_500);
    mock.timers.tick(5_000);
    progress.stop();
    mock.timers.tick(60_000);
    assert.deepEqual(lines, ['rows 10,000 read', 'rows 12,500/50,000 checked', 'rows 50,000/50,000 checked']);
  } finally {
    mock.timers.reset();
  }
});

it('with --json, tells its progress as JSON lines', () => {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  try {
    const lines: string[] = [];
    const progress = progressOf({ err: (line) => lines.push(line) }, true);
    progress.stage('imported', 3);
    progress.advance(2);
    mock.timers.tick(1_000);
    progress.stop();
    assert.deepEqual(
      lines.map((line) => JSON.parse(line)),
      [{ progress: { stage: 'imported', rows: 2, total: 3 } }],
    );
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
