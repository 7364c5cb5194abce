import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const POSTGRES = process.env.TEST_POSTGRES_URL;
const skip = !POSTGRES
  ? 'needs TEST_POSTGRES_URL'
  : spawnSync('pg_dump', ['--version']).status !== 0
    ? 'needs pg_dump (apt-get install postgresql-client)'
    : false;

/** The first shell block of `markdown` after the heading `heading`. */
function blockAfter(markdown: string, heading: string): string {
  const section = markdown.slice(markdown.indexOf(`\n${heading}\n`));
  const block = /\n```sh\n([\s\S]*?)\n```/.exec(section);
  assert.ok(block, `a shell block after ${heading}`);
  return block[1]!;
}

it('docs/operations.md dumps PostgreSQL into a file readable by its owner only, under the usual umask', { skip }, async () => {
  const command = blockAfter(await readFile(join(ROOT, 'docs/operations.md'), 'utf8'), '## Backing up PostgreSQL: pg_dump');
  const dir = await mkdtemp(join(tmpdir(), 'training-api-pg-dump-'));
  try {
    const run = spawnSync('bash', ['-e', '-c', `umask 022\n${command}`], {
      cwd: dir,
      env: { ...process.env, DATABASE_URL: POSTGRES },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    const [dump, ...others] = await readdir(dir);
    assert.match(dump ?? '', /^training-api-\d{4}-\d{2}-\d{2}\.dump$/);
    assert.deepEqual(others, []);
    assert.equal(((await stat(join(dir, dump!))).mode & 0o777).toString(8), '600');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
