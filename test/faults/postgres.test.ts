import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { assertOnlySuccessOrUnavailable, createUserUnderLoad, sleep, statusCounts, underLoad } from '../helpers/load.js';
import { PRIVATE_POSTGRES_SKIP, PrivatePostgres } from '../helpers/private-postgres.js';
import { type Reply, ServerProcess } from '../helpers/server-process.js';

/** Short bounds, so each fault shows its effect within a few seconds. */
const LIMITS = {
  DATABASE_CONNECT_TIMEOUT: '1s',
  DATABASE_STATEMENT_TIMEOUT: '2s',
  DATABASE_POOL_SIZE: '8',
};
/** The longest any request may take while the database does not answer: the statement timeout and its grace, plus margin. */
const BOUNDED_WAIT_MS = 4500;
const CLIENTS = 24;
/** How long PostgreSQL stays frozen: far longer than any bound, so a wait it did not bound would show. */
const FROZEN_MS = 20_000;

/** The process is up, and no error reached the last-resort handlers: each was expected and handled where it arose. */
function assertServedThrough(server: ServerProcess): void {
  assert.ok(server.running, `the server exited:\n${server.output}`);
  const unexpected = server.output.split('\n').filter((line) => /"msg":"(uncaught exception|unhandled promise rejection)"/.test(line));
  assert.equal(unexpected.length, 0, `${unexpected.length} errors reached the last-resort handlers, the first: ${unexpected[0]?.slice(0, 600)}`);
}

describe('PostgreSQL faults under load', { skip: PRIVATE_POSTGRES_SKIP }, () => {
  let postgres: PrivatePostgres;
  let server: ServerProcess;
  let token: string;
  /** Users whose creation was acknowledged with 201, over every test of this file. */
  const acknowledged = new Set<string>();

  /** Half the clients create users, half read them back; every acknowledged id is remembered. */
  const mixedLoad = async (worker: number, step: number) => {
    if (worker % 2 === 0) return createUserUnderLoad(server, token, worker, step, acknowledged);
    return { kind: 'read', reply: await server.request('GET', 'users?limit=5', { token, timeoutMs: 15_000 }) };
  };

  /** Every acknowledged user is in the database. */
  const assertNoAcknowledgedWriteLost = async () => {
    const { rows } = await postgres.query('select id from users', 'training');
    const stored = new Set(rows.map((row: { id: string }) => row.id));
    const lost = [...acknowledged].filter((id) => !stored.has(id));
    assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.size} acknowledged users are missing`);
  };

  /** Waits until the clients have had another 20 answers: the load runs between two faults. */
  const progress = async (served: () => number) => {
    const from = served();
    await eventually(() => served() >= from + 20, { what: 'another 20 answers under load' });
  };

  /** Polls until the API answers 200 again; returns how long that took. */
  const untilServing = async (limitMs: number): Promise<number> => {
    const started = performance.now();
    while (performance.now() - started < limitMs) {
      if ((await server.request('GET', 'users?limit=1', { token, timeoutMs: 5000 })).status === 200) return performance.now() - started;
      await sleep(50);
    }
    assert.fail(`the server did not serve again within ${limitMs} ms`);
  };

  before(async () => {
    postgres = await PrivatePostgres.start();
    server = await ServerProcess.start({ DATABASE_URL: await postgres.createDatabase('training'), ...LIMITS });
    token = await server.bootstrapToken();
  });

  after(async () => {
    await server?.destroy();
    await postgres?.destroy();
  });

  it('survives every connection being terminated, again and again', async (t) => {
    const outcomes = await underLoad(CLIENTS, mixedLoad, async (served) => {
      for (let round = 0; round < 5; round += 1) {
        await progress(served);
        await postgres.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = 'training'");
      }
      await progress(served);
    });
    assertServedThrough(server);
    assertOnlySuccessOrUnavailable(outcomes);
    assert.ok(outcomes.filter((outcome) => outcome.status === 201).length > 0, 'writes went through between the faults');
    await untilServing(5000);
    await assertNoAcknowledgedWriteLost();
    t.diagnostic(
      `terminate backends ×5: ${outcomes.length} requests, ${JSON.stringify(statusCounts(outcomes))}, ${acknowledged.size} acknowledged creates, 0 lost`,
    );
  });

  it('recovers by itself within seconds of a restart under read and write load, losing no acknowledged write', async (t) => {
    let startedAgainAt = 0;
    let recoveryMs = 0;
    const outcomes = await underLoad(CLIENTS, mixedLoad, async (served) => {
      await progress(served);
      await postgres.stopServer();
      // The outage itself: a second without a database, whatever the clients do meanwhile.
      await sleep(1000);
      await postgres.startServer();
      startedAgainAt = performance.now();
      recoveryMs = await untilServing(10_000);
      await progress(served);
    });
    assertServedThrough(server);
    assertOnlySuccessOrUnavailable(outcomes);
    const unavailable = outcomes.filter((outcome) => outcome.status === 503);
    assert.ok(unavailable.length > 0, 'clients saw the database go away');
    const servedAfter = outcomes.filter((outcome) => outcome.sentAt > startedAgainAt && outcome.status < 300);
    assert.ok(
      servedAfter.some((outcome) => outcome.kind === 'create'),
      'writes are served again after the restart',
    );
    assert.ok(recoveryMs < 5000, `recovered ${recoveryMs} ms after the database`);
    await assertNoAcknowledgedWriteLost();
    t.diagnostic(
      `restart: ${outcomes.length} requests, ${JSON.stringify(statusCounts(outcomes))}; serving again ${Math.round(recoveryMs)} ms after PostgreSQL accepted connections; ${acknowledged.size} acknowledged creates so far, 0 lost`,
    );
  });

  it('answers every request and /readyz within a bounded time while PostgreSQL is frozen', async (t) => {
    const readiness: Reply[] = [];
    const outcomes = await underLoad(CLIENTS, mixedLoad, async (served) => {
      await progress(served);
      postgres.freeze();
      try {
        const until = performance.now() + FROZEN_MS;
        while (performance.now() < until) {
          readiness.push(await server.request('GET', '/readyz', { timeoutMs: 10_000 }));
          await sleep(200);
        }
      } finally {
        postgres.thaw();
      }
    });
    assertServedThrough(server);
    assertOnlySuccessOrUnavailable(outcomes);
    const longest = Math.max(...outcomes.map((outcome) => outcome.ms));
    assert.ok(longest < BOUNDED_WAIT_MS, `the longest request took ${longest} ms`);
    assert.ok(
      readiness.some((reply) => reply.status === 503),
      '/readyz reports the frozen database',
    );
    for (const reply of readiness) {
      assert.ok(reply.status === 200 || reply.status === 503, `/readyz answered ${reply.status}`);
      assert.ok(reply.ms < 2500, `/readyz took ${reply.ms} ms`);
    }
    const recoveryMs = await untilServing(10_000);
    await assertNoAcknowledgedWriteLost();
    t.diagnostic(
      `frozen ${FROZEN_MS / 1000} s: ${outcomes.length} requests, ${JSON.stringify(statusCounts(outcomes))}; longest request ${Math.round(longest)} ms, longest /readyz ${Math.round(Math.max(...readiness.map((r) => r.ms)))} ms; serving ${Math.round(recoveryMs)} ms after the thaw`,
    );
  });
});
