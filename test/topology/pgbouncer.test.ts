import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { newId } from '../../src/lib/ids.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { runCliWith } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { assertOnlySuccessOrUnavailable, createUserUnderLoad, sleep, statusCounts, underLoad } from '../helpers/load.js';
import { PrivatePostgres } from '../helpers/private-postgres.js';
import { ServerProcess, type Reply } from '../helpers/server-process.js';
import { PgBouncer, topologySkip } from '../helpers/topology.js';
import { SCIM_USER } from '../helpers/tenants.js';

const POOLED = { DATABASE_POOL_MODE: 'transaction', DATABASE_POOL_SIZE: '8' };
const CLIENTS = 16;
const MEASURE_MS = 3000;
/** Short bounds, so that a frozen database shows within seconds (as in test/faults/postgres.test.ts). */
const LIMITS = { DATABASE_CONNECT_TIMEOUT: '1s', DATABASE_STATEMENT_TIMEOUT: '2s' };
/** The longest a request may take while the database does not answer: the statement timeout and its grace, plus margin. */
const BOUNDED_WAIT_MS = 4500;
const FROZEN_MS = 8000;

function assertStatus(reply: Reply, status: number): void {
  assert.equal(reply.status, status, reply.body);
}

describe('PgBouncer in transaction mode between the servers and PostgreSQL', { skip: topologySkip('pgbouncer') }, () => {
  let postgres: PrivatePostgres;
  let bouncer: PgBouncer;
  let direct: DatabaseHandle;
  const servers: ServerProcess[] = [];
  let token: string;

  before(async () => {
    postgres = await PrivatePostgres.start();
    await postgres.createDatabase('training');
    bouncer = await PgBouncer.start(postgres, 'training');
    // Two instances through the pooler alone, without a connection that could LISTEN.
    servers.push(await ServerProcess.start({ DATABASE_URL: bouncer.url('training'), ...POOLED }));
    servers.push(await ServerProcess.start({ DATABASE_URL: bouncer.url('training'), ...POOLED }));
    token = await servers[0]!.bootstrapToken();
    direct = openDatabase(postgres.url('training'), { poolSize: 2 });
  });

  after(async () => {
    for (const server of servers) await server.destroy();
    await direct?.close();
    await bouncer?.destroy();
    await postgres?.destroy();
  });

  it('names what to set when DATABASE_POOL_MODE=transaction is missing: PgBouncer refuses statement_timeout', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'training-api-pooler-'));
    try {
      const run = await runCliWith({ DATABASE_URL: bouncer.url('training'), DATA_DIR: dataDir, PORT: '0' }, 'serve');
      assert.equal(run.code, 1);
      assert.match(run.err, /^training-api: unsupported startup parameter: statement_timeout: .*PgBouncer.* set DATABASE_POOL_MODE=transaction/);
      assert.equal(run.err.split('\n').length, 1, run.err);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('serves the API through the pooler: writes, events, SCIM, webhooks', async () => {
    const [server] = servers as [ServerProcess];
    const created = await server.request('POST', 'users', { token, body: { email: `pooled-${newId()}@example.com`, firstName: 'Pooled' } });
    assertStatus(created, 201);
    const id = String(created.headers.location).split('/').pop()!;
    assertStatus(await server.request('PUT', `users/${id}`, { token, body: { firstName: 'Pooled again' } }), 204);
    const feed = await server.request('GET', 'events?limit=100', { token });
    assertStatus(feed, 200);
    const types = (JSON.parse(feed.body) as { results: { type: string; data: { id: string } }[] }).results.filter((event) => event.data.id === id);
    assert.deepEqual(
      types.map((event) => event.type),
      ['user.created', 'user.updated'],
    );
    const [organization] = await organizationsRepository(direct.db).list();
    const provisioning = await tokensService(direct.db).create(organization!.id, { name: 'provisioning', scopes: ['scim'] });
    const scim = await server.request('POST', '/scim/v2/Users', {
      token: provisioning.token,
      body: { schemas: [SCIM_USER], userName: `scim-${newId()}`, emails: [{ value: `scim-${newId()}@example.com`, primary: true }] },
      headers: { 'content-type': 'application/scim+json' },
    });
    assertStatus(scim, 201);
    const webhook = await server.request('POST', 'webhooks', {
      token,
      body: { url: 'https://hooks.example.com/training', events: ['user.created'] },
    });
    assertStatus(webhook, 201);
    const list = await server.request('GET', 'users?updatedDate=2000-01-01T00:00:00Z/..&limit=1', { token });
    assertStatus(list, 200);
    assert.ok(list.headers['updated-date-watermark']);
  });

  it('refuses a revoked token on every instance at once, without LISTEN', async () => {
    const [organization] = await organizationsRepository(direct.db).list();
    const tokens = tokensService(direct.db);
    const revoked = await tokens.create(organization!.id, { name: 'revoked soon' });
    for (const server of servers) assertStatus(await server.request('GET', 'users?limit=1', { token: revoked.token }), 200);
    await tokens.revoke(revoked.info.id);
    for (const server of servers) assertStatus(await server.request('GET', 'users?limit=1', { token: revoked.token }), 401);
  });

  it('with DATABASE_LISTEN_URL, hears revocations on a direct connection and keeps resolved tokens meanwhile', async () => {
    const listening = await ServerProcess.start({ DATABASE_URL: bouncer.url('training'), DATABASE_LISTEN_URL: postgres.url('training'), ...POOLED });
    servers.push(listening);
    const [organization] = await organizationsRepository(direct.db).list();
    const tokens = tokensService(direct.db);
    const revoked = await tokens.create(organization!.id, { name: 'revoked soon' });
    assertStatus(await listening.request('GET', 'users?limit=1', { token: revoked.token }), 200);
    await tokens.revoke(revoked.info.id);
    const started = performance.now();
    while ((await listening.request('GET', 'users?limit=1', { token: revoked.token })).status !== 401) {
      assert.ok(performance.now() - started < 1000, 'the revocation did not arrive within 1 s');
      await sleep(5);
    }
  });

  it('measures GET /users/{id} through the pooler against a direct connection', async (t) => {
    const directServer = await ServerProcess.start({ DATABASE_URL: postgres.url('training'), DATABASE_POOL_SIZE: '8' });
    servers.push(directServer);
    const { rows } = await postgres.query('select id from users limit 20', 'training');
    const ids = rows.map((row) => row.id as string);
    const throughput = async (server: ServerProcess, ms = MEASURE_MS) => {
      const outcomes = await underLoad(
        CLIENTS,
        async (client, step) => ({ kind: 'read', reply: await server.request('GET', `users/${ids[(client + step) % ids.length]}`, { token }) }),
        async () => {
          await sleep(ms);
        },
      );
      assert.deepEqual(statusCounts(outcomes), { 200: outcomes.length });
      return outcomes.length / (ms / 1000);
    };
    await throughput(servers[0]!, 1000); // warm up both
    await throughput(directServer, 1000);
    const pooled = await throughput(servers[0]!);
    const pooledListening = await throughput(servers[2]!);
    const unpooled = await throughput(directServer);
    t.diagnostic(
      `GET /users/{id}, ${CLIENTS} clients: direct ${Math.round(unpooled)}/s; through PgBouncer ${Math.round(pooled)}/s ` +
        `(${(pooled / unpooled).toFixed(2)}x, every request looks its token up), with DATABASE_LISTEN_URL ${Math.round(pooledListening)}/s (${(pooledListening / unpooled).toFixed(2)}x)`,
    );
  });

  it('bounds every request through the pooler while PostgreSQL is frozen, and serves again after', async (t) => {
    // No startup parameter reaches PostgreSQL through the pooler, so its statement_timeout is not set: the
    // client-side bound (the statement timeout plus a second, then the connection discarded) must hold alone.
    const bounded = await ServerProcess.start({ DATABASE_URL: bouncer.url('training'), ...POOLED, ...LIMITS });
    servers.push(bounded);
    const acknowledged = new Set<string>();
    const outcomes = await underLoad(
      8,
      (worker, step) => createUserUnderLoad(bounded, token, worker, step, acknowledged),
      async (served) => {
        await eventually(() => served() >= 20, { what: '20 answers before the freeze' });
        postgres.freeze();
        try {
          await sleep(FROZEN_MS);
        } finally {
          postgres.thaw();
        }
      },
    );
    assertOnlySuccessOrUnavailable(outcomes);
    const longest = Math.max(...outcomes.map((outcome) => outcome.ms));
    assert.ok(longest < BOUNDED_WAIT_MS, `the longest request took ${Math.round(longest)} ms`);
    assert.ok(
      outcomes.some((outcome) => outcome.status === 503),
      'requests during the freeze are refused with 503',
    );
    const thawed = performance.now();
    await eventually(async () => (await bounded.request('GET', 'users?limit=1', { token })).status === 200, { what: 'serving after the thaw' });
    assert.ok(acknowledged.size > 0, 'creates were acknowledged');
    const stored = await direct.db
      .selectFrom('users')
      .select('id')
      .where('id', 'in', [...acknowledged])
      .execute();
    assert.equal(stored.length, acknowledged.size, 'every acknowledged create is stored');
    t.diagnostic(
      `frozen ${FROZEN_MS / 1000} s behind PgBouncer: ${outcomes.length} requests, ${JSON.stringify(statusCounts(outcomes))}; ` +
        `longest ${Math.round(longest)} ms; serving ${Math.round(performance.now() - thawed)} ms after the thaw; ${acknowledged.size} acknowledged creates, 0 lost`,
    );
  });
});
