// Runs every compiled test file with node's test runner; PostgreSQL suites join when TEST_POSTGRES_URL is set.
// `--skip-files=<path>[,<path>...]` leaves out files and folders under dist/test, and says so.
// The output is one line per top-level suite, each failure in full, and a summary with the skipped tests and
// suites counted by reason (scripts/test-summary.mjs); another `--test-reporter` given here replaces it.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withMigratedTemplates } from './test-templates.mjs';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.js') ? [path] : [];
  });
}

const SKIP = '--skip-files=';
// `--coverage`: every process the tests start (test files, server processes, the CLI) is measured by c8, and the
// line coverage of src/ is reported by folder, with the files under 80% (scripts/coverage-summary.mjs).
const COVERAGE = '--coverage';
const coverage = process.argv.includes(COVERAGE);
const skipped = process.argv
  .slice(2)
  .filter((arg) => arg.startsWith(SKIP))
  .flatMap((arg) => arg.slice(SKIP.length).split(','))
  .filter(Boolean)
  .map((path) => join(path));
const runnerArgs = process.argv.slice(2).filter((arg) => !arg.startsWith(SKIP) && arg !== COVERAGE);
const isSkipped = (file) => skipped.some((path) => file === path || file.startsWith(`${path}/`));

const files = testFiles('dist/test').sort();
console.log(`Engines: sqlite${process.env.TEST_POSTGRES_URL ? ' + postgres' : ' (set TEST_POSTGRES_URL to add postgres)'}`);
console.log(`Node.js ${process.version}`);
if (skipped.length > 0) {
  console.log(`Skipped on this run: ${files.filter(isSkipped).join(', ') || 'nothing matched'}`);
}
const summary = fileURLToPath(new URL('test-summary.mjs', import.meta.url));
const reporter = runnerArgs.some((arg) => arg.startsWith('--test-reporter'))
  ? []
  : [`--test-reporter=${summary}`, '--test-reporter-destination=stdout'];
const c8 = ['node_modules/c8/bin/c8.js', '--reporter=json-summary', '--include=src/**', '--exclude-after-remap', process.execPath];
const result = await withMigratedTemplates((env) =>
  spawnSync(
    process.execPath,
    [...(coverage ? c8 : []), '--test', '--test-concurrency=2', ...reporter, ...runnerArgs, ...files.filter((file) => !isSkipped(file))],
    { stdio: 'inherit', env },
  ),
);
if (coverage) spawnSync(process.execPath, [fileURLToPath(new URL('coverage-summary.mjs', import.meta.url))], { stdio: 'inherit' });
process.exit(result.status ?? 1);
