/**
 * The API on PostgreSQL through each driver Kysely can use: pg (node-postgres, which
 * openDatabase uses) versus postgres (postgres.js, through kysely-postgres-js). Same app, schema
 * and data; requests through app.inject, so what is measured is what a request costs end to
 * end; rounds alternate between the drivers so drift on the machine hits both alike.
 *
 * Needs a server (BENCH_POSTGRES_URL, else TEST_POSTGRES_URL) and the challenger, which is not a
 * dependency: `npm install --no-save postgres@3 kysely-postgres-js@3`.
 */
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import type { InjectOptions } from 'fastify';
import { Kysely, type Dialect } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import type { ApiInstance } from '../../src/http/api-instance.js';
import { seedUsers } from '../../src/tenancy/seed.js';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { newId } from '../../src/lib/ids.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { formatOps, median, row } from '../stats.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

const USERS = 1_000;
const POOL_SIZE = 10;
const ROUNDS = 5;
const ROUND_MS = 1_000;
const CALLERS = [1, 32];

type PostgresJsDialect = (url: string, schema: string) => Dialect;

/** postgres.js, when installed for this measurement; undefined otherwise. */
async function loadPostgresJs(): Promise<PostgresJsDialect | undefined> {
  // Names in variables: neither package is a dependency, so the compiler must not look for them.
  const [driverName, dialectName] = ['postgres', 'kysely-postgres-js'];
  try {
    const [{ default: postgres }, { PostgresJSDialect }] = await Promise.all([import(driverName), import(dialectName)]);
    return (url, schema) =>
      new PostgresJSDialect({ postgres: postgres(url, { max: POOL_SIZE, connection: { search_path: schema }, onnotice: () => {} }) });
  } catch {
    return undefined;
  }
}

interface Scenario {
  name: string;
  request(n: number): InjectOptions;
}

let emails = 0;

function scenarios(ids: string[]): Scenario[] {
  return [
    { name: 'GET /users/{id}', request: (n) => ({ method: 'GET', url: `/api/v5/users/${ids[n % ids.length]}` }) },
    { name: 'GET /users?limit=100', request: (n) => ({ method: 'GET', url: `/api/v5/users?limit=100&offset=${(n * 100) % USERS}` }) },
    {
      name: 'POST /users',
      request: () => ({ method: 'POST', url: '/api/v5/users', payload: { email: `bench${++emails}@example.com`, firstName: 'Bench' } }),
    },
  ];
}

/** Requests per second over `durationMs`, with `callers` loops each awaiting one request at a time. */
async function measure(app: ApiInstance, token: string, scenario: Scenario, callers: number, durationMs: number): Promise<number> {
  let requests = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  const caller = async (offset: number): Promise<void> => {
    for (let n = offset; performance.now() < deadline; n += callers) {
      const options = scenario.request(n);
      const response = await app.inject({ ...options, headers: { authorization: `Bearer ${token}` } });
      if (response.statusCode >= 300) throw new Error(`${scenario.name} answered ${response.statusCode}: ${response.body}`);
      requests++;
    }
  };
  await Promise.all(Array.from({ length: callers }, (_, offset) => caller(offset)));
  return requests / ((performance.now() - start) / 1000);
}

export async function run(): Promise<void> {
  const url = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
  if (!url) {
    console.log('Skipped: set BENCH_POSTGRES_URL (or TEST_POSTGRES_URL) to a PostgreSQL server.');
    return;
  }
  const postgresJs = await loadPostgresJs();
  if (!postgresJs) {
    console.log('Skipped: npm install --no-save postgres@3 kysely-postgres-js@3 to compare the drivers.');
    return;
  }

  const schema = `bench_${newId()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const withPg = openDatabase(url, { schema, poolSize: POOL_SIZE });
  const withPostgresJs = new Kysely<Database>({ dialect: postgresJs(url, schema) });
  try {
    await migrateToLatest(withPg.db);
    const organization = await organizationsRepository(withPg.db).create('Bench');
    const { token } = await tokensService(withPg.db).create(organization.id);
    await seedUsers(withPg.db, organization.id, USERS, DEFAULT_PASSWORD_POLICY, new Writable({ write: (_chunk, _encoding, callback) => callback() }));
    const ids = (await withPg.db.selectFrom('users').select('id').execute()).map((user) => user.id);
    const apps = {
      pg: await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: withPg.db }),
      postgres: await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: withPostgresJs }),
    };

    console.log(
      `The API through app.inject, ${USERS.toLocaleString('en-US')} users, pools of ${POOL_SIZE}; median of ${ROUNDS} alternating rounds of ${ROUND_MS} ms.`,
    );
    console.log(row('request x callers', 'pg', 'postgres', 'postgres/pg'));
    for (const scenario of scenarios(ids)) {
      for (const callers of CALLERS) {
        await measure(apps.pg, token, scenario, callers, ROUND_MS / 2); // warm-up: JIT, pools, prepared statements
        await measure(apps.postgres, token, scenario, callers, ROUND_MS / 2);
        const rates = { pg: [] as number[], postgres: [] as number[] };
        for (let round = 0; round < ROUNDS; round++) {
          rates.pg.push(await measure(apps.pg, token, scenario, callers, ROUND_MS));
          rates.postgres.push(await measure(apps.postgres, token, scenario, callers, ROUND_MS));
        }
        const [pgRate, postgresRate] = [median(rates.pg), median(rates.postgres)];
        const ratio = `${(postgresRate / pgRate).toFixed(2)}x`;
        console.log(row(`${scenario.name} x${callers}`, formatOps(pgRate, 'req/s'), formatOps(postgresRate, 'req/s'), ratio));
      }
    }
    await apps.pg.close();
    await apps.postgres.close();
  } finally {
    await withPostgresJs.destroy();
    await withPg.close();
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  }
}
