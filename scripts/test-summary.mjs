// A reporter for node's test runner (`--test-reporter=./scripts/test-summary.mjs`): one line per top-level suite,
// the diagnostics tests print (the fuzzing seed, measured figures), each failure in full, and a summary that counts
// skipped tests and suites by the reason they give and names the slowest files. With TEST_DURATIONS_FILE set, each
// file's time is also written there, as JSON, for scripts/run-tests.mjs to start the longest files first next time.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { inspect } from 'node:util';

const MAX_ERROR_LINES = 40;
const SLOWEST_FILES = 15;
export const DURATIONS_VARIABLE = 'TEST_DURATIONS_FILE';
const NO_REASON = '(no reason given)';

const isSuite = (data) => data.details?.type === 'suite';
const seconds = (ms) => `${((ms ?? 0) / 1000).toFixed(1)}s`;

function describeError(error) {
  // The runner wraps what the test threw; its cause is the assertion or error itself.
  const thrown = error?.failureType === 'testCodeFailure' || error?.failureType === 'hookFailed' ? (error.cause ?? error) : error;
  const lines = inspect(thrown, { depth: 4, colors: false }).split('\n');
  const shown = lines.slice(0, MAX_ERROR_LINES);
  if (lines.length > shown.length) shown.push(`... ${lines.length - shown.length} more lines`);
  return shown.map((line) => `    ${line}`).join('\n');
}

export default async function* summary(source) {
  const counts = { tests: 0, passed: 0, failed: 0, cancelled: 0, todo: 0 };
  /** reason → names of the skipped tests and suites */
  const skipped = new Map();
  const failures = [];
  /** names of the enclosing tests of each file, by nesting level, to name a test in full */
  const paths = new Map();
  /** stderr of each file, shown when one of its tests fails */
  const stderr = new Map();
  const failedFiles = new Set();
  /** file (relative to the working directory) → its process's time from start to exit, in ms */
  const fileDurations = new Map();
  const started = Date.now();

  for await (const { type, data } of source) {
    if (type === 'test:stderr') {
      if (data.file) stderr.set(data.file, (stderr.get(data.file) ?? '') + data.message);
      continue;
    }
    if (type === 'test:start') {
      const path = paths.get(data.file) ?? [];
      path[data.nesting] = data.name;
      path.length = data.nesting + 1;
      paths.set(data.file, path);
      continue;
    }
    // The runner's own totals come without a file; this summary replaces them.
    if (type === 'test:diagnostic' && data.file) {
      yield `ℹ ${(paths.get(data.file) ?? []).slice(0, data.nesting + 1).join(' › ')}: ${data.message}\n`;
      continue;
    }
    // With a process per file, the runner reports each file as a test of its own, named by its path, when it ends.
    if (type === 'test:complete' && data.file && data.name === data.file) {
      fileDurations.set(relative(process.cwd(), data.file), data.details?.duration_ms ?? 0);
      continue;
    }
    if (type !== 'test:pass' && type !== 'test:fail') continue;

    const name = [...(paths.get(data.file) ?? []).slice(0, data.nesting), data.name].join(' › ');
    if (data.skip !== undefined && data.skip !== false) {
      const reason = typeof data.skip === 'string' && data.skip ? data.skip : NO_REASON;
      skipped.set(reason, [...(skipped.get(reason) ?? []), isSuite(data) ? `${name} (whole suite)` : name]);
      if (data.nesting === 0) yield `- ${data.name}: skipped, ${reason}\n`;
      continue;
    }
    if (data.todo !== undefined && data.todo !== false) {
      counts.todo++;
      continue;
    }
    const error = data.details?.error;
    // A suite fails when one of its tests does; that failure is told once, with the test.
    if (type === 'test:fail' && error?.failureType !== 'subtestsFailed') {
      if (error?.failureType === 'cancelledByParent') counts.cancelled++;
      else {
        failures.push({ name: data.file ? `${data.file}: ${name}` : name, error });
        if (data.file) failedFiles.add(data.file);
        yield `✖ ${name}\n${describeError(error)}\n`;
      }
    }
    if (!isSuite(data)) {
      counts.tests++;
      if (type === 'test:pass') counts.passed++;
      else if (error?.failureType !== 'cancelledByParent') counts.failed++;
    }
    if (data.nesting === 0) yield `${type === 'test:pass' ? '✔' : '✖'} ${data.name} (${seconds(data.details?.duration_ms)})\n`;
  }

  const lines = ['', '── Summary ──'];
  const skippedCount = [...skipped.values()].reduce((sum, names) => sum + names.length, 0);
  lines.push(
    `${counts.tests} tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.cancelled} cancelled, ${counts.todo} todo; ` +
      `${skippedCount} skipped (tests or whole suites); ${seconds(Date.now() - started)}`,
  );
  if (skippedCount > 0) {
    lines.push('Skipped, by reason:');
    for (const [reason, names] of [...skipped].sort((a, b) => b[1].length - a[1].length)) {
      lines.push(`  ${names.length} × ${reason}`);
      for (const name of names) lines.push(`      ${name}`);
    }
  }
  if (fileDurations.size > 1) {
    const slowest = [...fileDurations].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_FILES);
    lines.push(`Slowest files (of ${fileDurations.size}):`, ...slowest.map(([file, ms]) => `  ${seconds(ms).padStart(7)}  ${file}`));
  }
  const durationsFile = process.env[DURATIONS_VARIABLE];
  if (durationsFile && fileDurations.size > 0) {
    // A run of some files only (--skip-files) keeps what is known of the others.
    const known = existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : {};
    writeFileSync(durationsFile, `${JSON.stringify({ ...known, ...Object.fromEntries(fileDurations) }, null, 2)}\n`);
  }
  for (const file of failedFiles) {
    const output = stderr.get(file)?.trim();
    if (output)
      lines.push(
        `stderr of ${file}:`,
        ...output
          .split('\n')
          .slice(-MAX_ERROR_LINES)
          .map((line) => `  ${line}`),
      );
  }
  if (failures.length > 0) {
    lines.push(`Failed (${failures.length}):`);
    // Each with what it threw again: CI shows the end of the output only.
    for (const failure of failures) lines.push(`  ${failure.name}`, describeError(failure.error));
  }
  yield `${lines.join('\n')}\n`;
}
