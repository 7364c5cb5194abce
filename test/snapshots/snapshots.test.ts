import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { ALL_ENGINES, engineSkip } from '../helpers/database.js';
import { absolute, openApiSnapshots, sqlSnapshot, sqlSnapshotPath } from './contract-snapshots.js';

/** Fails, naming the first line that differs, when the committed file is not what the code makes now. */
function assertCurrent(path: string, current: string): void {
  const committed = readFileSync(absolute(path), 'utf8');
  if (committed === current) return;
  const committedLines = committed.split('\n');
  const currentLines = current.split('\n');
  const line = currentLines.findIndex((text, i) => text !== committedLines[i]);
  assert.fail(
    `${path} is stale: run \`npm run snapshots\` (with TEST_POSTGRES_URL set, for PostgreSQL's SQL), review the diff and commit it.\n` +
      `First difference, line ${line + 1}:\n  committed: ${committedLines[line] ?? '(end of file)'}\n  now:       ${currentLines[line] ?? '(end of file)'}`,
  );
}

it('the OpenAPI document and the typed client match their committed snapshots', async () => {
  for (const [path, content] of Object.entries(await openApiSnapshots())) assertCurrent(path, content);
});

for (const engine of ALL_ENGINES) {
  it(`the SQL issued on ${engine} matches its committed snapshot`, { skip: engineSkip(engine) }, async () => {
    assertCurrent(sqlSnapshotPath(engine), await sqlSnapshot(engine));
  });
}
