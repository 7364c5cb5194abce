// Runs every compiled test file with node's test runner; PostgreSQL suites join when TEST_POSTGRES_URL is set.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.js') ? [path] : [];
  });
}

const files = testFiles('dist/test').sort();
console.log(`Engines: sqlite${process.env.TEST_POSTGRES_URL ? ' + postgres' : ' (set TEST_POSTGRES_URL to add postgres)'}`);
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...process.argv.slice(2), ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
