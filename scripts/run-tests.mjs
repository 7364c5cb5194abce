// Runs every compiled test file with node's test runner (scripts/run-test-files.mjs), two at a time, longest first;
// PostgreSQL suites join when TEST_POSTGRES_URL is set.
// `--skip-files=<path>[,<path>...]` leaves out files and folders under dist/test, and says so.
// The output is one line per top-level suite, each failure in full, and a summary with the skipped tests and
// suites counted by reason (scripts/test-summary.mjs); another `--test-reporter` given here replaces it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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

// Two files run at a time, longest first, as each file took on the last run (TEST_DURATIONS_FILE, written by the
// summary): a long file started last would leave one core idle while it finishes alone. A file not timed yet starts
// first, since it may be long.
process.env.TEST_DURATIONS_FILE ??= 'node_modules/.cache/training-api/test-durations.json';
const durationsFile = process.env.TEST_DURATIONS_FILE;
mkdirSync(dirname(durationsFile), { recursive: true });
const readDurations = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {});
const durations = readDurations(durationsFile);
// A clean clone has no times of its own (CI's clones): the slowest files of a full run, kept in the repository, start
// first then, and the others, short ones, after them rather than wherever their names sort.
const slowest = readDurations('test/file-durations.json');
const untimed = Object.keys(durations).length > 0 ? Number.POSITIVE_INFINITY : 0;
const lastTime = (file) => durations[file] ?? slowest[file] ?? untimed;
const files = testFiles('dist/test')
  .sort()
  .sort((a, b) => lastTime(b) - lastTime(a) || 0);
console.log(`Engines: sqlite${process.env.TEST_POSTGRES_URL ? ' + postgres' : ' (set TEST_POSTGRES_URL to add postgres)'}`);
console.log(`Node.js ${process.version}`);
if (skipped.length > 0) {
  console.log(`Skipped on this run: ${files.filter(isSkipped).join(', ') || 'nothing matched'}`);
}
// Node.js 22.1 and later keep the code they compiled for each module (NODE_COMPILE_CACHE) and reuse it in the next
// process: each test file and server process loads ~300 modules. Node.js 20 ignores the variable.
process.env.NODE_COMPILE_CACHE ??= resolve('node_modules/.cache/training-api/compile-cache');
const summary = fileURLToPath(new URL('test-summary.mjs', import.meta.url));
const reporter = runnerArgs.some((arg) => arg.startsWith('--test-reporter')) ? [] : [`--test-reporter=${summary}`];
const runFiles = fileURLToPath(new URL('run-test-files.mjs', import.meta.url));
const c8 = ['node_modules/c8/bin/c8.js', '--reporter=json-summary', '--include=src/**', '--exclude-after-remap', process.execPath];
const result = await withMigratedTemplates((env) =>
  spawnSync(process.execPath, [...(coverage ? c8 : []), runFiles, ...reporter, ...runnerArgs, ...files.filter((file) => !isSkipped(file))], {
    stdio: 'inherit',
    env,
  }),
);
// With --coverage the summary is a gate too (scripts/coverage-summary.mjs): the run fails on a file under the bar.
const gate = coverage
  ? spawnSync(process.execPath, [fileURLToPath(new URL('coverage-summary.mjs', import.meta.url))], { stdio: 'inherit' }).status
  : 0;
const status = result.status ?? 1;
process.exit(status !== 0 ? status : (gate ?? 1));
