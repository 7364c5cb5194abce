import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ALL_ENGINES, engineSkip } from '../helpers/database.js';
import { absolute, openApiSnapshots, sqlSnapshot, sqlSnapshotPath, type Snapshots } from './contract-snapshots.js';

// `npm run snapshots`: writes the snapshots of the contract. PostgreSQL's SQL needs TEST_POSTGRES_URL; without it,
// its file is left as it is, and this says so.
const snapshots: Snapshots = await openApiSnapshots();
for (const engine of ALL_ENGINES) {
  const skip = engineSkip(engine);
  if (skip) console.warn(`${sqlSnapshotPath(engine)} left as it is: ${skip}`);
  else snapshots[sqlSnapshotPath(engine)] = await sqlSnapshot(engine);
}
for (const [path, content] of Object.entries(snapshots)) {
  mkdirSync(dirname(absolute(path)), { recursive: true });
  writeFileSync(absolute(path), content);
  console.log(`wrote ${path}`);
}
console.log('Review the diff (git diff) and commit it with the change that caused it.');
