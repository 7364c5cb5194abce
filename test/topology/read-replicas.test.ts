import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/lib/ids.js';
import { sleep, statusCounts, underLoad } from '../helpers/load.js';
import type { PrivatePostgres } from '../helpers/private-postgres.js';
import { ServerProcess } from '../helpers/server-process.js';
import { primaryAndStandby, topologySkip } from '../helpers/topology.js';

const CLIENTS = 8;
const APPLY_DELAY_MS = 100;
const METRICS_TOKEN = 'scraper-secret-0123456789';
const SETTINGS = {
  DATABASE_CONNECT_TIMEOUT: '1s',
  DATABASE_STATEMENT_TIMEOUT: '2s',
  DATABASE_POOL_SIZE: '8',
  DATABASE_READ_MAX_LAG: '2s',
  METRICS_TOKEN,
};

interface Readiness {
  database: { primary: string; replicas: { host: string; up: boolean; lagSeconds: number | null }[] };
}

/** Transactions the server has committed in the database `training` of `postgres`. */
async function transactions(postgres: PrivatePostgres): Promise<number> {
  const { rows } = await postgres.query("select xact_commit from pg_stat_database where datname = 'training'");
  return Number(rows[0].xact_commit);
}

describe('Read replicas', { skip: topologySkip() }, () => {
  let primary: PrivatePostgres;
  let standby: PrivatePostgres;
  let server: ServerProcess;
  let token: string;

  const readiness = async (): Promise<Readiness> => JSON.parse((await server.request('GET', '/readyz', { timeoutMs: 5000 })).body) as Readiness;
  /** The samples of the database series /metrics reports, by series and host. */
  const databaseMetrics = async (): Promise<Map<string, number>> => {
    const reply = await server.request('GET', '/metrics', { token: METRICS_TOKEN, timeoutMs: 5000 });
    assert.equal(reply.status, 200, reply.body);
    const samples = [...reply.body.matchAll(/^(database_(?:primary|replica_up|replica_lag_seconds))\{host="([^"]+)"\} (\S+)$/gm)];
    return new Map(samples.map(([, series, host, value]) => [`${series} ${host}`, Number(value)]));
  };

  before(async () => {
    // The replica applies each commit 100 ms after the primary made it: a read that went there too soon would miss its write.
    ({ primary, standby } = await primaryAndStandby(false, [`recovery_min_apply_delay = '${APPLY_DELAY_MS}ms'`]));
    server = await ServerProcess.start({
      DATABASE_URL: primary.url('training'),
      DATABASE_READ_URL: standby.url('training'),
      ...SETTINGS,
    });
    token = await server.bootstrapToken();
    const deadline = performance.now() + 10_000;
    while (!(await readiness()).database.replicas[0]!.up) {
      assert.ok(performance.now() < deadline, 'the replica is not up in /readyz');
      await sleep(100);
    }
  });

  after(async () => {
    await server?.destroy();
    await standby?.destroy();
    await primary?.destroy();
  });

  it('names the primary and the replica, with its lag, in /readyz and /metrics alike', async () => {
    const { database } = await readiness();
    assert.equal(database.primary, `127.0.0.1:${primary.port}`);
    assert.deepEqual(
      database.replicas.map(({ host, up }) => ({ host, up })),
      [{ host: `127.0.0.1:${standby.port}`, up: true }],
    );
    const metrics = await databaseMetrics();
    assert.equal(metrics.get(`database_primary 127.0.0.1:${primary.port}`), 1);
    assert.equal(metrics.get(`database_replica_up 127.0.0.1:${standby.port}`), 1);
    const lag = metrics.get(`database_replica_lag_seconds 127.0.0.1:${standby.port}`);
    assert.ok(lag !== undefined && lag >= 0 && lag < 2, `replica lag ${lag} s`);
  });

  it('lets every client read its own writes at once, and serves most reads from the replica', async (t) => {
    let violations = 0;
    let pairs = 0;
    const ids: string[] = [];
    const outcomes = await underLoad(
      CLIENTS,
      async (client, step) => {
        const created = await server.request('POST', 'users', {
          token,
          body: { email: `ryw-${client}-${step}-${newId()}@example.com`, firstName: 'Reader' },
          timeoutMs: 15_000,
        });
        assert.equal(created.status, 201, created.body);
        const id = String(created.headers.location).split('/').pop()!;
        ids.push(id);
        const read = await server.request('GET', `users/${id}`, { token, timeoutMs: 15_000 });
        pairs += 1;
        if (read.status !== 200) violations += 1;
        return { kind: 'create, then read', reply: read };
      },
      async () => {
        await sleep(4000);
      },
    );
    assert.equal(
      violations,
      0,
      `${violations} of ${pairs} reads right after their create did not find it: ${JSON.stringify(statusCounts(outcomes))}`,
    );

    // Reads alone: once the replica has replayed the token's last write, it serves them.
    const [primaryBefore, replicaBefore] = [await transactions(primary), await transactions(standby)];
    const reads = await underLoad(
      CLIENTS,
      async (client, step) => ({
        kind: 'read',
        reply: await server.request('GET', `users/${ids[(client * 31 + step) % ids.length]}`, { token, timeoutMs: 15_000 }),
      }),
      async () => {
        await sleep(3000);
      },
    );
    assert.deepEqual(statusCounts(reads), { 200: reads.length });
    const onPrimary = (await transactions(primary)) - primaryBefore;
    const onReplica = (await transactions(standby)) - replicaBefore;
    const share = onReplica / (onPrimary + onReplica);
    assert.ok(share > 0.5, `the replica committed ${onReplica} transactions, the primary ${onPrimary}`);

    // A list that answers an Updated-Date-Watermark reads the primary's watermark, then a replica that has caught up with it.
    const list = await server.request('GET', 'users?updatedDate=2000-01-01T00:00:00Z/..&limit=1', { token, timeoutMs: 15_000 });
    assert.equal(list.status, 200, list.body);
    assert.ok(list.headers['updated-date-watermark'], 'Updated-Date-Watermark');
    t.diagnostic(
      `read-your-writes: ${violations} violations in ${pairs} create-then-read pairs from ${CLIENTS} clients; ` +
        `read-only load: ${reads.length} GET /users/{id}, replica share ${(share * 100).toFixed(0)}% of transactions (${onReplica} replica, ${onPrimary} primary)`,
    );
  });

  it('goes on reading from the primary when the replica dies', async (t) => {
    const { rows } = await primary.query('select id from users limit 50', 'training');
    const ids = rows.map((row) => row.id as string);
    let killedAt = 0;
    const outcomes = await underLoad(
      CLIENTS,
      async (client, step) => ({
        kind: 'read',
        reply: await server.request('GET', `users/${ids[(client + step) % ids.length]}`, { token, timeoutMs: 15_000 }),
      }),
      async () => {
        await sleep(1000);
        standby.kill();
        killedAt = performance.now();
        await sleep(2000);
      },
    );
    const failed = outcomes.filter((outcome) => outcome.status !== 200);
    for (const outcome of failed) assert.equal(outcome.status, 503, `${outcome.status} ${outcome.body}`);
    const afterKill = outcomes.filter((outcome) => outcome.sentAt > killedAt + 500);
    assert.ok(afterKill.length > 0 && afterKill.every((outcome) => outcome.status === 200), 'reads are served from the primary');
    const state = await readiness();
    assert.equal(state.database.replicas[0]!.up, false);
    const metrics = await databaseMetrics();
    assert.equal(metrics.get(`database_replica_up ${state.database.replicas[0]!.host}`), 0);
    assert.equal(metrics.get(`database_primary ${state.database.primary}`), 1);
    t.diagnostic(`replica SIGKILLed under ${CLIENTS} readers: ${outcomes.length} reads, ${JSON.stringify(statusCounts(outcomes))}`);
  });
});
