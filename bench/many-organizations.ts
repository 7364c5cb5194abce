/**
 * `npm run bench:many-organizations`: whether many organizations cost what one does (issue 39: 10,000
 * organizations of 100 users each serve GET /users/{id} and lists within 10% of one organization of
 * 1,000,000 users). Two databases of USERS users (default 1,000,000) are written by bulk SQL:
 *
 * - `one`: one organization holding every user;
 * - `many`: USERS / PER_ORG organizations (default 100 users each), the users created in turn across
 *   them, as a shared server receives them, so an organization's users lie spread over the table.
 *
 * Both are served at once by `training-api serve` (a process each, as users run it) and loaded in
 * interleaved rounds by autocannon from the load generator's process: GET /users/{id} of 1,000 users
 * (in `many`, one in each of 1,000 organizations spread over them) and the first page of GET
 * /users?limit=100 (in `many`, of those 1,000 organizations in turn). Each user is read with a token
 * of its own, of its organization, on both sides, so that both pay alike for the writes of the tokens'
 * last uses (gathered by the server, each token's at most once a minute).
 * The ratio is `many`'s requests a second over `one`'s, paired per round; medians of ROUNDS rounds.
 *
 *   npm run bench:many-organizations                                         # SQLite, and PostgreSQL when BENCH_POSTGRES_URL is set
 *   ENGINES=postgres BENCH_POSTGRES_URL=postgres://... npm run bench:many-organizations
 *   USERS=100000 ROUNDS=3 SECONDS=2 npm run bench:many-organizations         # a quicker run at a tenth of the size
 *   USERS=100000 PER_ORG=100 ...                                             # 1,000 organizations of 100 against one of 100,000
 *   PROFILE_DIR=/tmp/profiles npm run bench:many-organizations               # the two servers' CPU profiles
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import { tokensService } from '../src/auth/tokens.service.js';
import { analyze, migrateToLatest, openDatabase } from '../src/db/database.js';
import { isPostgres } from '../src/db/locking.js';
import type { Database } from '../src/db/schema.js';
import { now } from '../src/lib/time.js';
import { ensureSelfSignedCertificate } from '../src/server/tls-certificate.js';
import type { LoadResult } from './load-generator.js';
import type { Engine } from './options.js';
import { forkWorker, postgresDatabase, ROOT, startApiServer, type ApiServer } from './processes.js';
import type { RequestPlan } from './scenarios.js';
import { loadAverage, median } from './stats.js';

const USERS = Number(process.env.USERS ?? 1_000_000);
const PER_ORG = Number(process.env.PER_ORG ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const SECONDS = Number(process.env.SECONDS ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
/** Users (and, in `many`, organizations) the load reads. */
const SAMPLE = 1000;
/** Rows a fill statement writes. */
const FILL_ROWS = 100_000;
const TARGET = 0.1;
const API = '/api/v5';

/** Ids as the server makes them (32 hex characters), from a number: user n and organization k. */
const hexId = (n: number) => n.toString(16).padStart(32, '0');

/**
 * `organizations` organizations and USERS users, user n (from 1) in organization (n - 1) mod
 * `organizations` + 1, by multi-row statements; then the planner's statistics.
 */
async function fill(db: Kysely<Database>, organizations: number): Promise<void> {
  const at = now();
  const postgres = isPostgres(db);
  // The users of many organizations go to every part of each index at once: a page cache that holds them (1 GiB) spares re-reading them.
  if (!postgres) await sql`pragma cache_size = -1048576`.execute(db);
  for (let start = 0; start < organizations; start += FILL_ROWS) {
    const [from, to] = [start + 1, Math.min(organizations, start + FILL_ROWS)];
    if (postgres) {
      await sql`insert into organizations (id, name, created_date)
        select lpad(to_hex(k), 32, '0'), 'Organization ' || k, ${at} from generate_series(${from}::bigint, ${to}::bigint) as k`.execute(db);
    } else {
      await sql`with recursive numbers(k) as (select ${from} union all select k + 1 from numbers where k < ${to})
        insert into organizations (id, name, created_date) select printf('%032x', k), 'Organization ' || k, ${at} from numbers`.execute(db);
    }
  }
  for (let start = 0; start < USERS; start += FILL_ROWS) {
    const [from, to] = [start + 1, Math.min(USERS, start + FILL_ROWS)];
    if (postgres) {
      await sql`insert into users (org_id, id, first_name, last_name, email, email_key, tags, created_date, updated_date, active, password_change_required)
        select lpad(to_hex((n - 1) % ${organizations} + 1), 32, '0'), lpad(to_hex(n), 32, '0'), 'Person', 'Number ' || n,
          'person' || n || '@many.example', 'person' || n || '@many.example', 'staff', ${at}, ${at}, true, false
        from generate_series(${from}::bigint, ${to}::bigint) as n`.execute(db);
    } else {
      await sql`with recursive numbers(n) as (select ${from} union all select n + 1 from numbers where n < ${to})
        insert into users (org_id, id, first_name, last_name, email, email_key, tags, created_date, updated_date, active, password_change_required)
        select printf('%032x', (n - 1) % ${organizations} + 1), printf('%032x', n), 'Person', 'Number ' || n,
          'person' || n || '@many.example', 'person' || n || '@many.example', 'staff', ${at}, ${at}, 1, 0
        from numbers`.execute(db);
    }
  }
  await analyze(db, ['organizations', 'users']);
}

interface Side {
  name: 'one' | 'many';
  server: ApiServer;
  /** The users read, and the token each is read with (of its organization). */
  userIds: string[];
  tokens: string[];
  fillSeconds: number;
  close(): Promise<void>;
}

/** The database of one side, filled, with tokens for the organizations the load reads; the server on it. */
async function startSide(
  name: Side['name'],
  engine: Engine,
  runDir: string,
  tls: { certFile: string; keyFile: string },
  drops: (() => Promise<void>)[],
): Promise<Side> {
  const postgres = engine === 'postgres' ? await postgresDatabase(process.env.BENCH_POSTGRES_URL!, `many_orgs_${name}`) : undefined;
  if (postgres) drops.push(postgres.drop);
  const databaseUrl = postgres?.url ?? `sqlite:${path.join(runDir, `${name}.db`)}`;
  const organizations = name === 'one' ? 1 : Math.ceil(USERS / PER_ORG);
  // The users read: in `one`, every (USERS / SAMPLE)-th; in `many`, one of each of SAMPLE organizations spread
  // over them, at varied places among its users (user n is in organization (n - 1) mod organizations + 1).
  const picked = Array.from({ length: SAMPLE }, (_, j) => {
    if (name === 'one') return j * Math.floor(USERS / SAMPLE) + 1;
    const organization = j * Math.floor(organizations / SAMPLE);
    return ((j * 37) % PER_ORG) * organizations + organization + 1;
  });
  const orgOf = (n: number) => hexId(((n - 1) % organizations) + 1);
  const handle = openDatabase(databaseUrl);
  let fillSeconds: number;
  const tokens: string[] = [];
  try {
    await migrateToLatest(handle.db);
    const started = performance.now();
    await fill(handle.db, organizations);
    fillSeconds = (performance.now() - started) / 1000;
    // A token for each user read, of the user's organization: as many tokens on both sides, so that both pay alike
    // for the first use of each (a write of its last use, once a minute a token).
    const service = tokensService(handle.db);
    for (const n of picked) tokens.push((await service.create(orgOf(n), { scopes: ['read'] })).token);
  } finally {
    await handle.close();
  }
  const profile = process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.env.PROFILE_DIR, `${engine}-${name}`)}`] : [];
  const server = await startApiServer({ databaseUrl, dataDir: path.join(runDir, `data-${engine}-${name}`), ...tls, nodeArgs: profile });
  return {
    name,
    server,
    userIds: picked.map(hexId),
    tokens,
    fillSeconds,
    close: () => server.stop(),
  };
}

const SCENARIOS: { id: string; title: string; plan(side: Side): RequestPlan }[] = [
  {
    id: 'get-user',
    title: 'GET /users/{id}',
    plan: (side) => ({ method: 'GET', paths: side.userIds.map((id) => `${API}/users/${id}`), tokens: side.tokens }),
  },
  { id: 'list-100', title: 'GET /users?limit=100', plan: (side) => ({ method: 'GET', paths: [`${API}/users?limit=100`], tokens: side.tokens }) },
];

interface ScenarioResult {
  engine: Engine;
  scenario: string;
  one: LoadResult[];
  many: LoadResult[];
  /** `many`'s requests a second over `one`'s, the median of the rounds' ratios. */
  ratio: number;
}

const engines: Engine[] = process.env.ENGINES
  ? (process.env.ENGINES.split(',') as Engine[])
  : process.env.BENCH_POSTGRES_URL
    ? ['sqlite', 'postgres']
    : ['sqlite'];
const runDir = mkdtempSync(path.join(os.tmpdir(), 'many-organizations-'));
const loadAtStart = os.loadavg();
const load = forkWorker('load-generator.js');
const results: ScenarioResult[] = [];
const fills: Record<string, number> = {};
try {
  await ensureSelfSignedCertificate(path.join(runDir, 'tls'));
  const tls = { certFile: path.join(runDir, 'tls', 'cert.pem'), keyFile: path.join(runDir, 'tls', 'key.pem') };
  console.log(
    `Many organizations against one: ${engines.join(' and ')}, ${USERS.toLocaleString('en')} users, ${PER_ORG} an organization in many; ` +
      `${ROUNDS} rounds of ${SECONDS} s at ${CONNECTIONS} connections; load average ${loadAtStart.map((each) => each.toFixed(2)).join(' ')}`,
  );
  for (const engine of engines) {
    const drops: (() => Promise<void>)[] = [];
    const sides: Side[] = [];
    try {
      for (const name of ['one', 'many'] as const) {
        const side = await startSide(name, engine, runDir, tls, drops);
        sides.push(side);
        fills[`${engine}-${name}`] = side.fillSeconds;
        console.log(`  ${engine} ${name}: filled in ${side.fillSeconds.toFixed(0)} s`);
      }
      const measure = (side: Side, scenario: (typeof SCENARIOS)[number], seconds: number) =>
        load.call<LoadResult>({
          job: {
            origin: side.server.origin,
            planKey: `${engine}/${side.name}/${scenario.id}`,
            plan: scenario.plan(side),
            connections: CONNECTIONS,
            seconds,
          },
        });
      for (const scenario of SCENARIOS) {
        for (const side of sides) await measure(side, scenario, 1);
        const measured: Record<Side['name'], LoadResult[]> = { one: [], many: [] };
        for (let round = 0; round < ROUNDS; round++) {
          // Each round starts with the other side, so drift over the round hits both alike.
          for (const side of round % 2 === 0 ? sides : [...sides].reverse()) measured[side.name].push(await measure(side, scenario, SECONDS));
        }
        const failures = [...measured.one, ...measured.many].filter((result) => Object.keys(result.failures).length > 0);
        if (failures.length > 0)
          throw new Error(`${engine} ${scenario.id}: answers outside 2xx: ${JSON.stringify(failures.map((result) => result.failures))}`);
        // A round where either side completed nothing (a starved machine) has no ratio.
        const ratios = measured.many
          .map((result, round) => result.rps / measured.one[round]!.rps)
          .filter((each) => Number.isFinite(each) && each > 0);
        const ratio = median(ratios);
        results.push({ engine, scenario: scenario.id, ...measured, ratio });
        const figures = (rounds: LoadResult[]) =>
          `${median(rounds.map((result) => result.rps)).toFixed(0)} req/s, p50 ${median(rounds.map((result) => result.p50))} ms, p99 ${median(rounds.map((result) => result.p99))} ms`;
        console.log(
          `${engine.padEnd(8)} ${scenario.title.padEnd(22)} one: ${figures(measured.one)}; many: ${figures(measured.many)}; ` +
            `many/one ${ratio.toFixed(2)} (target within ${TARGET * 100}%: ${Math.abs(1 - ratio) <= TARGET ? 'met' : 'NOT met'}); ` +
            `rounds ${ratios.map((each) => each.toFixed(2)).join(', ')} (${ROUNDS - ratios.length} without answers left out); load average ${os.loadavg()[0]!.toFixed(2)}`,
        );
      }
    } finally {
      for (const side of sides) await side.close();
      for (const drop of drops) await drop();
    }
  }
} finally {
  await load.stop();
  rmSync(runDir, { recursive: true, force: true });
}
const outDir = path.join(ROOT, 'bench', 'results');
mkdirSync(outDir, { recursive: true });
const file = path.join(outDir, `many-organizations-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.json`);
const method = { users: USERS, perOrganization: PER_ORG, rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS };
writeFileSync(file, `${JSON.stringify({ method, loadavg: { start: loadAtStart, end: os.loadavg() }, fillSeconds: fills, results }, null, 2)}\n`);
console.log(`Load average at the end ${loadAverage()}; written to ${path.relative(process.cwd(), file)}`);
