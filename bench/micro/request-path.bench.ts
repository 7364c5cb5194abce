/**
 * CPU time per request of the API's own request path (routing, hooks, authentication, the query,
 * serialization, the request log), without TLS or sockets: requests go through Fastify's `inject`,
 * 16 in flight, on a SQLite file of 1,000 users, with the server's logger writing to /dev/null.
 * CPU time (not wall time) is what it reports, so it holds on a busy machine; the end-to-end
 * figures are `npm run bench`'s.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { seedUsers } from '../../src/tenancy/seed.js';
import { median } from '../stats.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

const USERS = 1_000;
const ROUNDS = 7;
const REQUESTS_PER_ROUND = 2_000;
const IN_FLIGHT = 16;

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  url: (index: number) => string;
  body?: (index: number) => unknown;
}

export async function run(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'request-path-bench-'));
  const url = `sqlite:${path.join(dir, 'bench.db')}`;
  const database = openDatabase(url);
  await migrateToLatest(database.db);
  const organization = await organizationsRepository(database.db).create('Bench');
  const { token } = await tokensService(database.db).create(organization.id);
  await seedUsers(database.db, organization.id, USERS, DEFAULT_PASSWORD_POLICY, fs.createWriteStream('/dev/null'));
  const ids = (await database.db.selectFrom('users').select('id').limit(500).execute()).map((user) => user.id);
  const app = await buildApp({
    passwordPolicy: DEFAULT_PASSWORD_POLICY,
    db: database.db,
    tokenRevocations: database.watchTokenRevocations(),
    logger: { level: 'info', stream: fs.createWriteStream('/dev/null') },
  });
  await app.ready();
  const headers = { authorization: `Bearer ${token}` };
  const tag = Date.now().toString(36);
  const scenarios: Scenario[] = [
    { name: 'GET /healthz', method: 'GET', url: () => '/healthz' },
    { name: 'GET /users/{id}', method: 'GET', url: (i) => `/api/v5/users/${ids[i % ids.length]}` },
    { name: 'GET /users?limit=100', method: 'GET', url: () => '/api/v5/users?limit=100' },
    { name: 'POST /users', method: 'POST', url: () => '/api/v5/users', body: (i) => ({ email: `bench-${tag}-${i}@example.com` }) },
  ];
  let sequence = 0;
  try {
    console.log(`CPU µs per request through inject, ${IN_FLIGHT} in flight, ${USERS} users; median of ${ROUNDS} rounds of ${REQUESTS_PER_ROUND}.`);
    for (const scenario of scenarios) {
      const costs: number[] = [];
      for (let round = -1; round < ROUNDS; round += 1) {
        const before = process.cpuUsage();
        let next = 0;
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (next < REQUESTS_PER_ROUND) {
              next += 1;
              const i = (sequence += 1);
              const payload = scenario.body?.(i);
              const response = await app.inject({
                method: scenario.method,
                url: scenario.url(i),
                headers,
                ...(payload ? { payload } : {}),
              });
              if (response.statusCode >= 300) throw new Error(`${scenario.name} answered ${response.statusCode}: ${response.body}`);
            }
          }),
        );
        const used = process.cpuUsage(before);
        if (round >= 0) costs.push((used.user + used.system) / REQUESTS_PER_ROUND); // round -1 warms up
      }
      console.log(`${scenario.name.padEnd(24)}${median(costs).toFixed(0).padStart(8)} µs`);
    }
  } finally {
    await app.close();
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
