import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { POSTGRES_POOLER_VARIABLE } from '../helpers/database.js';
import { PrivatePostgres } from '../helpers/private-postgres.js';
import { PgBouncer, topologySkip } from '../helpers/topology.js';

const COMPILED_TESTS = fileURLToPath(new URL('..', import.meta.url));

/**
 * The suites that hold the API to v5 and to the OpenAPI document, through the in-process app: every resource,
 * SCIM, OAuth, the change stream, idempotency and conditional requests.
 */
const CONFORMANCE_SUITES = [
  ...readdirSync(join(COMPILED_TESTS, 'resources'))
    .filter((file) => file.endsWith('.test.js'))
    .map((file) => join('resources', file)),
  'scim/users.test.js',
  'scim/groups.test.js',
  'oauth/oauth.test.js',
  'events/change-matrix.test.js',
  'events/events.test.js',
  'http/idempotency.test.js',
  'http/conditional-requests.test.js',
];

/** How many processes the suites are shared among: as many as the test runner ran them in at once, one file each. */
const PROCESSES = 2;

/**
 * The suites dealt among `PROCESSES` groups, largest file first to the group with the fewest bytes so far: a file's
 * size stands for its running time well enough to keep the groups' ends close.
 */
function groups(files: string[]): string[][] {
  const dealt = Array.from({ length: PROCESSES }, () => ({ files: [] as string[], bytes: 0 }));
  const sized = files.map((file) => ({ file, bytes: statSync(join(COMPILED_TESTS, file)).size })).sort((a, b) => b.bytes - a.bytes);
  for (const { file, bytes } of sized) {
    const lightest = dealt.reduce((least, group) => (group.bytes < least.bytes ? group : least));
    lightest.files.push(file);
    lightest.bytes += bytes;
  }
  return dealt.map((group) => group.files.sort());
}

/**
 * Runs `files` one after another in one process, with `env` added: its TAP output and exit code. A module of its
 * own imports each file, and node's test runner runs its suites as it does in a process of its own; what the files
 * share is the loading of the app's modules and the compiling of its validators and response checks, which each
 * process pays once. (A module, not --eval: worker threads, such as an import's file reader, take the process's
 * options, and --eval is not one they can run with.)
 */
async function runSuites(files: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const childEnv = { ...process.env, ...env };
  // Inherited, it would make the runner below report to this one as a subprocess of it, not run on its own.
  delete childEnv.NODE_TEST_CONTEXT;
  const dir = await mkdtemp(join(tmpdir(), 'training-api-conformance-'));
  try {
    const entry = join(dir, 'suites.mjs');
    const imports = files.map((file) => `await import(${JSON.stringify(pathToFileURL(join(COMPILED_TESTS, file)).href)});`);
    await writeFile(entry, `${imports.join('\n')}\n`);
    const child = spawn(process.execPath, ['--test-reporter=tap', entry], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const [code] = (await once(child, 'exit')) as [number | null];
    return { code, output };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function tapCount(output: string, name: string): number {
  return Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(output)?.[1] ?? Number.NaN);
}

describe('the conformance suites, with PostgreSQL reached through PgBouncer in transaction mode only', { skip: topologySkip('pgbouncer') }, () => {
  let postgres: PrivatePostgres;
  let bouncer: PgBouncer;

  before(async () => {
    postgres = await PrivatePostgres.start();
    bouncer = await PgBouncer.start(postgres);
  });

  after(async () => {
    await bouncer?.destroy();
    await postgres?.destroy();
  });

  it('pass, every test file in a database of its own behind the pooler', { timeout: 600_000 }, async (t) => {
    const started = performance.now();
    const env = {
      // Administration (creating and dropping each file's database) goes to PostgreSQL directly; the app through the pooler.
      TEST_POSTGRES_URL: postgres.url('postgres'),
      [POSTGRES_POOLER_VARIABLE]: bouncer.url('postgres'),
    };
    const runs = await Promise.all(groups(CONFORMANCE_SUITES).map((files) => runSuites(files, env)));
    const output = runs.map((run) => run.output).join('\n');
    const passed = runs.reduce((sum, run) => sum + tapCount(run.output, 'pass'), 0);
    const failed = runs.reduce((sum, run) => sum + tapCount(run.output, 'fail'), 0);
    const failures = output
      .split('\n')
      .filter((line) => /^\s*not ok /.test(line) || /^\s+(error|expected|actual):/.test(line))
      .slice(0, 40)
      .join('\n');
    assert.equal(failed, 0, `through PgBouncer, ${failed} tests failed:\n${failures}`);
    for (const run of runs) assert.equal(run.code, 0, run.output.slice(-4000));
    // 276 when this was written: far fewer means suites were skipped, not run through the pooler.
    assert.ok(passed >= 250, `only ${passed} tests passed: ${output.slice(-2000)}`);
    t.diagnostic(
      `${passed} tests of ${CONFORMANCE_SUITES.length} files passed through PgBouncer in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
