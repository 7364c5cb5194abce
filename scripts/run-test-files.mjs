// `node scripts/run-test-files.mjs [--test-reporter=<name or path>] [--test-name-pattern=<regexp>] <file>...`: runs the
// test files in the order given, two at a time, each in a process of its own, as `node --test` does; `node --test`
// itself would run them sorted by path (scripts/run-tests.mjs orders them longest first).
import { resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { run } from 'node:test';
import * as builtInReporters from 'node:test/reporters';
import { pathToFileURL } from 'node:url';

const CONCURRENCY = 2;
const REPORTER = '--test-reporter=';
const NAME_PATTERN = '--test-name-pattern=';

const args = process.argv.slice(2);
const options = args.filter((arg) => arg.startsWith('-'));
const unknown = options.filter((arg) => !arg.startsWith(REPORTER) && !arg.startsWith(NAME_PATTERN));
if (unknown.length > 0) {
  console.error(`run-test-files: ${unknown.join(' ')} is not supported here; run \`node --test\` for it`);
  process.exit(2);
}
const value = (prefix) => options.filter((arg) => arg.startsWith(prefix)).map((arg) => arg.slice(prefix.length));
const reporterName = value(REPORTER).at(-1) ?? 'spec';
const reporter = Object.hasOwn(builtInReporters, reporterName)
  ? builtInReporters[reporterName]
  : (await import(pathToFileURL(resolve(reporterName)).href)).default;
const testNamePatterns = value(NAME_PATTERN).map((pattern) => new RegExp(pattern));

const files = args.filter((arg) => !arg.startsWith('-')).map((file) => resolve(file));
const stream = run({ files, concurrency: CONCURRENCY, ...(testNamePatterns.length > 0 ? { testNamePatterns } : {}) });
// `node --test` fails on a failed test; run() leaves the exit code to its caller.
stream.on('test:fail', () => (process.exitCode = 1));
await pipeline(stream, typeof reporter === 'function' && !reporter.prototype?.pipe ? reporter : new reporter(), process.stdout);
