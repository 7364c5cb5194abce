/**
 * The single-row read of GET /users/{id} (the statement the server sends, by organization and id)
 * through each driver alone, without Kysely or the API: pg (node-postgres, a pool with the read as a
 * named statement, as the server sends it) against postgres.js (its own pool, which prepares every
 * statement by default). Both pools hold 10 connections; rounds alternate between the drivers so
 * that drift on the machine hits both alike; the CPU time of this process per read is the driver's
 * cost (PostgreSQL's own work is the same for both, in its own processes).
 *
 * Needs a server (BENCH_POSTGRES_URL, else TEST_POSTGRES_URL) and the challenger, which is not a
 * dependency: `npm install --no-save postgres@3`.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { formatOps, median, row } from '../stats.js';

const USERS = 1_000;
const POOL_SIZE = 10;
const ROUNDS = 7;
const ROUND_MS = 1_000;
const CALLERS = [1, 32];
const ORG = 'bench-org';
const COLUMNS =
  '"id", "first_name", "last_name", "username", "email", "locale", "tags", "created_date", "updated_date", "last_login_date", "active", "external_id"';
const READ = `select ${COLUMNS} from "users" where "org_id" = $1 and "id" = $2`;

type Read = (id: string) => Promise<unknown>;

interface Sql {
  unsafe(query: string, parameters: unknown[], options: { prepare: boolean }): Promise<unknown[]>;
  end(): Promise<void>;
}

/** postgres.js, when installed for this measurement; undefined otherwise. */
async function loadPostgresJs(): Promise<((url: string, options: object) => Sql) | undefined> {
  const name = 'postgres'; // in a variable: not a dependency, so the compiler must not look for it
  try {
    return ((await import(name)) as { default: (url: string, options: object) => Sql }).default;
  } catch {
    return undefined;
  }
}

/** Reads per second and CPU microseconds of this process per read, over `durationMs` with `callers` loops. */
async function measure(read: Read, ids: string[], callers: number, durationMs: number): Promise<{ rate: number; cpuUs: number }> {
  let reads = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const deadline = start + durationMs;
  const caller = async (offset: number): Promise<void> => {
    for (let n = offset; performance.now() < deadline; n += callers) {
      if (!(await read(ids[n % ids.length]!))) throw new Error('the user was not found');
      reads++;
    }
  };
  await Promise.all(Array.from({ length: callers }, (_, offset) => caller(offset)));
  const used = process.cpuUsage(cpu);
  return { rate: reads / ((performance.now() - start) / 1000), cpuUs: (used.user + used.system) / reads };
}

export async function run(): Promise<void> {
  const url = process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL;
  if (!url) {
    console.log('Skipped: set BENCH_POSTGRES_URL (or TEST_POSTGRES_URL) to a PostgreSQL server.');
    return;
  }
  const postgres = await loadPostgresJs();
  if (!postgres) {
    console.log('Skipped: npm install --no-save postgres@3 to compare the drivers.');
    return;
  }
  const schema = `bench_read_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE, options: `-c search_path=${schema}` });
  const sql = postgres(url, { max: POOL_SIZE, connection: { search_path: schema }, onnotice: () => {} });
  try {
    await admin.query(
      `create table ${schema}.users (org_id varchar(32) not null, id varchar(32) not null, first_name text, last_name text, username text,
        email text not null, locale text, tags text, created_date varchar(20) not null, updated_date varchar(20) not null,
        last_login_date varchar(20), active boolean not null, external_id text, primary key (org_id, id))`,
    );
    await admin.query(
      `insert into ${schema}.users select $1, md5(n::text), 'Ada', 'Lovelace', 'ada' || n, 'ada' || n || '@example.com', 'en', 'sales manager',
        '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', null, true, null from generate_series(1, ${USERS}) as n`,
      [ORG],
    );
    await admin.query(`analyze ${schema}.users`);
    const ids = (await admin.query<{ id: string }>(`select id from ${schema}.users order by random()`)).rows.map((user) => user.id);
    const drivers: Record<string, Read> = {
      pg: async (id) => (await pool.query({ name: 'read-user', text: READ, values: [ORG, id] })).rows[0],
      postgres: async (id) => (await sql.unsafe(READ, [ORG, id], { prepare: true }))[0],
    };
    console.log(
      `One user by organization and id, ${USERS.toLocaleString('en-US')} users, pools of ${POOL_SIZE}; median of ${ROUNDS} alternating rounds of ${ROUND_MS} ms.`,
    );
    console.log(row('callers', 'pg', 'postgres', 'postgres/pg'));
    for (const callers of CALLERS) {
      for (const read of Object.values(drivers)) await measure(read, ids, callers, ROUND_MS / 2); // warm-up: JIT, pools, prepared statements
      const results: Record<string, { rate: number; cpuUs: number }[]> = { pg: [], postgres: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, read] of Object.entries(drivers)) results[name]!.push(await measure(read, ids, callers, ROUND_MS));
      }
      const rate = (name: string) => median(results[name]!.map((result) => result.rate));
      const cpu = (name: string) => median(results[name]!.map((result) => result.cpuUs));
      console.log(
        row(`x${callers} reads/s`, formatOps(rate('pg'), '/s'), formatOps(rate('postgres'), '/s'), `${(rate('postgres') / rate('pg')).toFixed(2)}x`),
      );
      console.log(row(`x${callers} CPU µs/read`, cpu('pg').toFixed(1), cpu('postgres').toFixed(1), `${(cpu('postgres') / cpu('pg')).toFixed(2)}x`));
    }
  } finally {
    await sql.end();
    await pool.end();
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  }
}
