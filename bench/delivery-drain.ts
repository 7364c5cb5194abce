/**
 * `npm run bench:delivery`: how fast the server (its own process, as users run it) delivers a backlog of
 * webhook deliveries to receivers that answer at once, on each engine:
 *
 * - one endpoint draining 10,000 events (target: 1,000 deliveries a second or more);
 * - 100 endpoints draining 100 events each, together (target: 3,000 a second or more);
 * - another organization's reads during the 100 endpoints' drain, from the first delivery to the last (target: p99 under
 *   2 s throughout): GET /users/{id} and GET /users?limit=100 in turn with its own token, READ_RATE requests a second
 *   (default 50) over READ_CONNECTIONS connections (default 4), from a process of its own (bench/steady-reader.ts);
 *   any answer but 200 fails the run;
 * - one endpoint's rate with 100,000 events queued against its rate with 1,000 (target: within 20%); the
 *   deep backlog is measured over its first DEEP_MEASURED deliveries, 90,000 still queued behind them.
 *
 * The backlog is queued before the server starts, by the outbox's own function, in transactions of 1,000
 * events; the rate runs from the first delivery received to the last, and the server's CPU time over the same span
 * is printed per delivery (the figure a loaded machine changes least). Each scenario runs ROUNDS times
 * (default 3) on a fresh database; medians are printed and written to bench/results/.
 *
 *   npm run bench:delivery                                    # SQLite, and PostgreSQL when BENCH_POSTGRES_URL is set
 *   ENGINES=postgres BENCH_POSTGRES_URL=postgres://... npm run bench:delivery
 *   SCENARIOS=one-endpoint,deep-backlog ROUNDS=5 npm run bench:delivery
 *   PROFILE_DIR=/tmp/profiles npm run bench:delivery                # and a CPU profile of the server in each round
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { inTransaction } from '../src/db/unit-of-work.js';
import type { EventPayload } from '../src/events/event-types.js';
import { queueDeliveries } from '../src/events/webhooks/deliveries.js';
import { newSigningSecret } from '../src/events/webhooks/signing.js';
import type { Caller } from '../src/auth/caller.js';
import { tokensService } from '../src/auth/tokens.service.js';
import { SERVER_ACTOR } from '../src/lib/actors.js';
import { DEFAULT_PASSWORD_POLICY } from '../src/lib/password-policy.js';
import { newId } from '../src/lib/ids.js';
import { now } from '../src/lib/time.js';
import { organizationsRepository } from '../src/tenancy/organizations.repository.js';
import { usersService } from '../src/resources/users/users.service.js';
import { ensureSelfSignedCertificate } from '../src/server/tls-certificate.js';
import type { SteadyReadResult } from './steady-reader.js';
import type { Engine } from './options.js';
import { postgresSchema } from './datasets.js';
import { cpuSeconds, forkWorker, ROOT, startApiServer } from './processes.js';
import { loadAverage, median } from './stats.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const DEEP_MEASURED = Number(process.env.DEEP_MEASURED ?? 10_000);
/** Connections of the other organization's reads, and their rate (requests a second in all). */
const READ_CONNECTIONS = Number(process.env.READ_CONNECTIONS ?? 4);
const READ_RATE = Number(process.env.READ_RATE ?? 50);
const EVENTS_PER_TRANSACTION = 1000;

interface Scenario {
  id: string;
  title: string;
  endpoints: number;
  eventsPerEndpoint: number;
  /** Deliveries measured (all when undefined). */
  measured?: number;
  /** Another organization's reads during the drain. */
  load?: boolean;
  target: string;
}

const SCENARIOS: Scenario[] = [
  { id: 'one-endpoint', title: 'one endpoint, 10,000 queued', endpoints: 1, eventsPerEndpoint: 10_000, target: '>= 1,000/s' },
  { id: 'fan-out', title: '100 endpoints, 100 queued each', endpoints: 100, eventsPerEndpoint: 100, target: '>= 3,000/s' },
  { id: 'fan-out-load', title: '100 endpoints, another org reads', endpoints: 100, eventsPerEndpoint: 100, load: true, target: 'p99 < 2 s' },
  { id: 'small-backlog', title: 'one endpoint, 1,000 queued', endpoints: 1, eventsPerEndpoint: 1000, target: 'reference' },
  {
    id: 'deep-backlog',
    title: `one endpoint, 100,000 queued (first ${DEEP_MEASURED.toLocaleString('en')})`,
    endpoints: 1,
    eventsPerEndpoint: 100_000,
    measured: DEEP_MEASURED,
    target: 'within 20% of 1,000 queued',
  },
];

interface Database {
  url: string;
  handle: DatabaseHandle;
  drop(): Promise<void>;
}

async function freshDatabase(engine: Engine, runDir: string): Promise<Database> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(path.join(runDir, 'sqlite-'));
    const url = `sqlite:${path.join(dir, 'bench.db')}`;
    const handle = openDatabase(url);
    return { url, handle, drop: async () => (await handle.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  const { url, handle, drop } = await postgresSchema(process.env.BENCH_POSTGRES_URL!, 'delivery_drain');
  return { url, handle, drop };
}

/** Receivers answering 204 at once, one path per endpoint, counting what they got. */
async function startReceiver(): Promise<{ origin: string; received: () => number; firstAt: () => number; times: number[]; stop(): Promise<void> }> {
  const times: number[] = [];
  const server = http.createServer({ keepAliveTimeout: 30_000 }, (request, response) => {
    request.resume();
    request.on('end', () => {
      times.push(performance.now());
      response.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => times.length,
    firstAt: () => times[0] ?? Number.NaN,
    times,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits until `done` holds, checking every 20 ms; throws after `timeoutMs`. */
async function until(done: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Figures {
  rate: number;
  seconds: number;
  delivered: number;
  /** The other organization's reads during the drain. */
  reads?: SteadyReadResult;
  /** The server's CPU time (user and system) per delivery measured, in milliseconds: what a loaded machine changes least. */
  cpuMsPerDelivery?: number;
  /** Milliseconds to queue the first and the last transaction of events: the writes' cost as the backlog grows. */
  queueFirstMs: number;
  queueLastMs: number;
}

async function runScenario(engine: Engine, scenario: Scenario, runDir: string, tls: { certFile: string; keyFile: string }): Promise<Figures> {
  const database = await freshDatabase(engine, runDir);
  const receiver = await startReceiver();
  const reader = scenario.load ? forkWorker('steady-reader.js') : undefined;
  try {
    const { db } = database.handle;
    await migrateToLatest(db);
    const org = await organizationsRepository(db).create('Deliveries');
    const webhookIds: string[] = [];
    for (let n = 0; n < scenario.endpoints; n++) {
      const id = newId();
      const at = now();
      await db
        .insertInto('webhooks')
        .values({
          org_id: org.id,
          id,
          url: `${receiver.origin}/hooks/${n}`,
          description: null,
          event_types: 'user.created',
          secret: newSigningSecret(),
          created_date: at,
          updated_date: at,
          failing_since: null,
          disabled_date: null,
          disabled_reason: null,
        })
        .execute();
      webhookIds.push(id);
    }
    // The backlog, as the outbox queues it: one delivery of each event to every endpoint.
    const total = scenario.eventsPerEndpoint;
    const queueMs: number[] = [];
    for (let start = 0; start < total; start += EVENTS_PER_TRANSACTION) {
      const events: EventPayload[] = [];
      for (let n = start; n < Math.min(total, start + EVENTS_PER_TRANSACTION); n++) {
        const userId = newId();
        events.push({
          id: newId(),
          type: 'user.created',
          createdDate: now(),
          organizationId: org.id,
          data: { id: userId, email: `queued${n}@example.com`, firstName: 'Queued', lastName: `Number ${n}` },
        } as EventPayload);
      }
      const started = performance.now();
      await inTransaction(db, SERVER_ACTOR, (trx) => queueDeliveries(trx, events));
      queueMs.push(performance.now() - started);
    }
    const deliveries = total * scenario.endpoints;
    const measured = scenario.measured ?? deliveries;

    // The other organization: users to read, a token.
    const other = await organizationsRepository(db).create('Readers');
    const caller: Caller = { orgId: other.id, tokenId: 'bench', scopes: ['read', 'write'], actor: SERVER_ACTOR };
    const userIds = await usersService(db, DEFAULT_PASSWORD_POLICY).createMany(
      caller,
      Array.from({ length: 200 }, (_, n) => ({ email: `reader${n}@example.com`, firstName: 'Reader', lastName: `${n}` })),
    );
    const { token } = await tokensService(db).create(other.id, { scopes: ['read'] });
    await database.handle.close();

    const server = await startApiServer({
      databaseUrl: database.url,
      dataDir: path.join(runDir, `data-${newId()}`),
      ...tls,
      env: { WEBHOOKS_ALLOW_INSECURE_LOOPBACK: 'true', WEBHOOKS_POLL_INTERVAL: '100ms' },
      // PROFILE_DIR=dir: the server's CPU profile there (node --cpu-prof), one a round.
      nodeArgs: process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [],
    });
    try {
      await until(() => receiver.received() > 0, 'the first delivery', 60_000);
      const cpuAtFirst = cpuSeconds(server.pid);
      // The other organization reads from the first delivery to the last, with its own token.
      await reader?.call({
        start: {
          origin: server.origin,
          token,
          paths: {
            get: userIds.map((id) => `/api/v5/users/${id}`),
            list: ['/api/v5/users?limit=100', '/api/v5/users?limit=100&offset=100'],
          },
          connections: READ_CONNECTIONS,
          rate: READ_RATE,
        },
      });
      await until(() => receiver.received() >= measured, `${measured} deliveries`, 600_000);
      const cpuAtEnd = cpuSeconds(server.pid);
      const reads = await reader?.call<SteadyReadResult>({ stop: true });
      if (reads) {
        if (Object.keys(reads.failures).length > 0)
          throw new Error(`${scenario.id}: the other organization's reads failed: ${JSON.stringify(reads.failures)}`);
        if (reads.all.requests < 10) throw new Error(`${scenario.id}: only ${reads.all.requests} reads answered during the drain`);
      }
      const seconds = (receiver.times[measured - 1]! - receiver.firstAt()) / 1000;
      return {
        rate: (measured - 1) / seconds,
        seconds,
        delivered: measured,
        queueFirstMs: queueMs[0]!,
        queueLastMs: queueMs.at(-1)!,
        ...(cpuAtFirst === undefined || cpuAtEnd === undefined ? {} : { cpuMsPerDelivery: ((cpuAtEnd - cpuAtFirst) * 1000) / (measured - 1) }),
        ...(reads ? { reads } : {}),
      };
    } finally {
      await server.stop();
    }
  } finally {
    await reader?.stop();
    await receiver.stop();
    await database.drop().catch(() => {});
  }
}

const engines: Engine[] = process.env.ENGINES
  ? (process.env.ENGINES.split(',') as Engine[])
  : process.env.BENCH_POSTGRES_URL
    ? ['sqlite', 'postgres']
    : ['sqlite'];
const wanted = process.env.SCENARIOS ? process.env.SCENARIOS.split(',') : SCENARIOS.map((scenario) => scenario.id);
const runDir = mkdtempSync(path.join(os.tmpdir(), 'delivery-drain-'));
const results: { engine: Engine; scenario: string; title: string; target: string; rounds: Figures[]; rate: number; p99?: number }[] = [];
try {
  await ensureSelfSignedCertificate(path.join(runDir, 'tls'));
  const tls = { certFile: path.join(runDir, 'tls', 'cert.pem'), keyFile: path.join(runDir, 'tls', 'key.pem') };
  console.log(`Delivery drain: ${engines.join(' and ')}, ${ROUNDS} rounds; load average ${loadAverage()}`);
  for (const engine of engines) {
    for (const scenario of SCENARIOS.filter((each) => wanted.includes(each.id))) {
      const rounds: Figures[] = [];
      for (let round = 0; round < ROUNDS; round++) rounds.push(await runScenario(engine, scenario, runDir, tls));
      const rate = median(rounds.map((figures) => figures.rate));
      const p99 = scenario.load ? median(rounds.map((figures) => figures.reads!.all.p99)) : undefined;
      const reads = scenario.load
        ? (['get', 'list'] as const)
            .map(
              (kind) =>
                `${kind} p50 ${median(rounds.map((figures) => figures.reads!.byKind[kind]!.p50)).toFixed(0)} p99 ${median(rounds.map((figures) => figures.reads!.byKind[kind]!.p99)).toFixed(0)}`,
            )
            .join(', ') +
          `, worst 1 s window p99 ${Math.max(...rounds.map((figures) => figures.reads!.worstWindowP99)).toFixed(0)} ms, max ${Math.max(...rounds.map((figures) => figures.reads!.all.max)).toFixed(0)} ms` +
          `, ${median(rounds.map((figures) => figures.reads!.all.requests)).toFixed(0)} reads at ${median(rounds.map((figures) => figures.reads!.rps)).toFixed(0)}/s`
        : undefined;
      const cpuMs = rounds.every((figures) => figures.cpuMsPerDelivery !== undefined)
        ? median(rounds.map((figures) => figures.cpuMsPerDelivery!))
        : undefined;
      results.push({
        engine,
        scenario: scenario.id,
        title: scenario.title,
        target: scenario.target,
        rounds,
        rate,
        ...(p99 === undefined ? {} : { p99 }),
      });
      console.log(
        `${engine.padEnd(8)} ${scenario.title.padEnd(48)} ${rate.toFixed(0).padStart(6)} deliveries/s` +
          `${cpuMs === undefined ? '' : `, server CPU ${cpuMs.toFixed(2)} ms each`}` +
          `${p99 === undefined ? '' : `, other org p99 ${p99.toFixed(0)} ms (${reads})`}  (rounds: ${rounds.map((figures) => figures.rate.toFixed(0)).join(', ')}; target ${scenario.target})` +
          `; queueing the first and last ${EVENTS_PER_TRANSACTION} events: ${median(rounds.map((figures) => figures.queueFirstMs)).toFixed(0)} and ${median(rounds.map((figures) => figures.queueLastMs)).toFixed(0)} ms`,
      );
    }
    const small = results.find((result) => result.engine === engine && result.scenario === 'small-backlog');
    const deep = results.find((result) => result.engine === engine && result.scenario === 'deep-backlog');
    if (small && deep) console.log(`${engine.padEnd(8)} 100,000 queued against 1,000: ${((deep.rate / small.rate) * 100).toFixed(0)}% of the rate`);
  }
} finally {
  rmSync(runDir, { recursive: true, force: true });
}
const outDir = path.join(ROOT, 'bench', 'results');
mkdirSync(outDir, { recursive: true });
const file = path.join(outDir, `delivery-drain-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify({ rounds: ROUNDS, loadavg: os.loadavg(), results }, null, 2)}\n`);
console.log(`Written to ${path.relative(process.cwd(), file)}`);
