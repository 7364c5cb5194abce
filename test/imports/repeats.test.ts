import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { forEachEngine } from '../helpers/harness.js';

/** The 30 bits of FNV-1a over a key's code units that the check keeps of each email (src/imports/check.ts). */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 2;
}

/** An email or username twice in a file: the later row reported, with the first row of the same email or username. */
forEachEngine('Emails and usernames repeated in an import file', (h) => {
  const dir = mkdtempSync(join(tmpdir(), 'import-repeats-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, lines: string[]) => {
    const path = join(dir, name);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  };
  /** A dry run's problems, as [row, field, message]; its exit code must be 1. */
  const problems = async (path: string) => {
    const run = await runCli(h.database.url, 'import', 'users', '--org', h.org.id, '--dry-run', '--json', path);
    assert.equal(run.code, 1, run.out + run.err);
    return run.out
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((line) => 'message' in line)
      .map((problem) => [problem.row, problem.field, problem.message]);
  };

  it('finds repeats tens of thousands of rows apart in a file of 100,000 people, each with its first row', async () => {
    const PEOPLE = 100_000;
    const lines = ['email,username,firstName'];
    for (let n = 0; n < PEOPLE; n++) lines.push(`person${n}@repeats.example,user${n},Person`);
    // Row r of the file is lines[r - 1]: the headings are row 1, person 0 row 2.
    lines[60_000] = 'PERSON0@Repeats.Example,user59999,Person'; // row 60,001: person 0's email, in other case
    lines[99_999] = 'person99998@repeats.example,USER8,Person'; // row 100,000: person 8's username (row 10)
    lines[45_000] = 'person44999@repeats.example,user8,Person'; // row 45,001: the same username
    lines[80_000] = 'person0@repeats.example,user79999,Person'; // row 80,001: person 0's email a third time
    assert.deepEqual(await problems(file('far-apart.csv', lines)), [
      [45_001, 'username', 'is also on row 10'],
      [60_001, 'email', 'is also on row 2'],
      [80_001, 'email', 'is also on row 2'],
      [100_000, 'username', 'is also on row 10'],
    ]);
  });

  it('tells a repeat from another email of the same hash, whichever comes first', async () => {
    // Two emails of one hash: the check suspects every row of either, and reads them again to tell.
    const [one, other] = ['person28684@example.com', 'person98946@example.com'];
    assert.equal(hashOf(one), hashOf(other));
    assert.deepEqual(await problems(file('same-hash.csv', ['email', one, other, 'someone@example.com', other, one])), [
      [5, 'email', 'is also on row 3'],
      [6, 'email', 'is also on row 2'],
    ]);
    // Without a repeat, the file is valid.
    const valid = await runCli(h.database.url, 'import', 'users', '--org', h.org.id, '--dry-run', file('same-hash-once.csv', ['email', one, other]));
    assert.equal(valid.code, 0, valid.err);
  });
});
