import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

/** Runs `files` with node's test runner in a process of its own, with `env` added; its TAP output and exit code. */
async function runSuites(files: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const childEnv = { ...process.env, ...env };
  // Inherited, it would make the runner below report to this one as a subprocess of it, not run on its own.
  delete childEnv.NODE_TEST_CONTEXT;
  const child = spawn(
    process.execPath,
    ['--test', '--test-concurrency=2', '--test-reporter=tap', ...files.map((file) => join(COMPILED_TESTS, file))],
    {
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
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
    const { code, output } = await runSuites(CONFORMANCE_SUITES, {
      // Administration (creating and dropping each file's database) goes to PostgreSQL directly; the app through the pooler.
      TEST_POSTGRES_URL: postgres.url('postgres'),
      [POSTGRES_POOLER_VARIABLE]: bouncer.url('postgres'),
    });
    const passed = tapCount(output, 'pass');
    const failed = tapCount(output, 'fail');
    const failures = output
      .split('\n')
      .filter((line) => /^\s*not ok /.test(line) || /^\s+(error|expected|actual):/.test(line))
      .slice(0, 40)
      .join('\n');
    assert.equal(failed, 0, `through PgBouncer, ${failed} tests failed:\n${failures}`);
    assert.equal(code, 0, output.slice(-4000));
    // 276 when this was written: far fewer means suites were skipped, not run through the pooler.
    assert.ok(passed >= 250, `only ${passed} tests passed: ${output.slice(-2000)}`);
    t.diagnostic(
      `${passed} tests of ${CONFORMANCE_SUITES.length} files passed through PgBouncer in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  });
});
