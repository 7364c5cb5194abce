/**
 * Requests per second of the real server over HTTPS (keep-alive, 32 in flight): GET one user and
 * GET a page of users, on SQLite through Kysely's stock SqliteDialect (baseline) and through ours.
 * The load comes from a worker thread, so client and server each have a core of the two.
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { buildApp } from '../../src/app.js';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { listenTls } from '../../src/server/listener.js';
import { ensureSelfSignedCertificate } from '../../src/server/tls-certificate.js';
import { seedUsers } from '../../src/tenancy/seed.js';
import { formatOps, median, row } from '../stats.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

const USERS = 1_000;
const ROUNDS = 5;
const ROUND_MS = 1_500;
const IN_FLIGHT = 32;

interface LoadJob {
  port: number;
  token: string;
  paths: string[];
  durationMs: number;
}

/** Worker side: keep IN_FLIGHT requests going until the deadline; report completed requests per second. */
async function generateLoad({ port, token, paths, durationMs }: LoadJob): Promise<number> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: IN_FLIGHT, rejectUnauthorized: false });
  const get = (pathname: string) =>
    new Promise<void>((resolve, reject) => {
      const request = https.get({ host: '127.0.0.1', port, path: pathname, agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
        if (response.statusCode !== 200) reject(new Error(`${pathname} answered ${response.statusCode}`));
        response.resume();
        response.on('end', resolve);
      });
      request.on('error', reject);
    });
  let done = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async (_, lane) => {
      for (let i = lane; performance.now() < deadline; i += IN_FLIGHT) {
        await get(paths[i % paths.length]!);
        done += 1;
      }
    }),
  );
  agent.destroy();
  return done / ((performance.now() - start) / 1000);
}

if (!isMainThread) parentPort!.postMessage(await generateLoad(workerData as LoadJob));

function loadFromWorker(job: LoadJob): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: job });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

async function startServer(db: Kysely<Database>, tls: { key: string; cert: string }) {
  const app = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db, https: tls });
  return listenTls(app, { host: '127.0.0.1', port: 0 });
}

export async function run(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'http-api-bench-'));
  const file = path.join(dir, 'bench.db');
  const setup = openDatabase(`sqlite:${file}`);
  await migrateToLatest(setup.db);
  const organization = await organizationsRepository(setup.db).create('Bench');
  const { token } = await tokensService(setup.db).create(organization.id);
  await seedUsers(setup.db, organization.id, USERS, DEFAULT_PASSWORD_POLICY, fs.createWriteStream('/dev/null'));
  const ids = (await setup.db.selectFrom('users').select('id').limit(200).execute()).map((u) => u.id);
  await setup.close();

  const tls = await ensureSelfSignedCertificate(path.join(dir, 'tls'));
  const ours = openDatabase(`sqlite:${file}`);
  const stockSqlite = new BetterSqlite3(file);
  stockSqlite.pragma('journal_mode = WAL');
  const stock = new Kysely<Database>({ dialect: new SqliteDialect({ database: stockSqlite }) });
  const servers = { stock: await startServer(stock, tls), ours: await startServer(ours.db, tls) };

  const scenarios = [
    { name: 'GET /users/{id}', paths: ids.map((id) => `/api/v5/users/${id}`) },
    { name: 'GET /users?limit=15', paths: ['/api/v5/users?limit=15', '/api/v5/users?limit=15&offset=500'] },
  ];
  try {
    console.log(`HTTPS, keep-alive, ${IN_FLIGHT} requests in flight, ${USERS} users; median of ${ROUNDS} alternating rounds of ${ROUND_MS} ms.`);
    console.log(row('scenario', 'stock SqliteDialect', 'our dialect', 'ours/stock'));
    for (const { name, paths } of scenarios) {
      const results = { stock: [] as number[], ours: [] as number[] };
      for (let round = -1; round < ROUNDS; round += 1) {
        for (const which of ['stock', 'ours'] as const) {
          const rate = await loadFromWorker({ port: servers[which].port, token, paths, durationMs: ROUND_MS });
          if (round >= 0) results[which].push(rate); // round -1 warms up
        }
      }
      const [baseline, ourRate] = [median(results.stock), median(results.ours)];
      console.log(row(name, formatOps(baseline, 'req/s'), formatOps(ourRate, 'req/s'), `${(ourRate / baseline).toFixed(2)}x`));
    }
  } finally {
    await servers.stock.close();
    await servers.ours.close();
    await stock.destroy();
    await ours.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
