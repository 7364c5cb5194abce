/**
 * The console's Reports at scale: the page (every report for the last 90 days) and each report's CSV,
 * asked of the real app (Fastify's routing through `inject`, the administrator's session) with an
 * organization of `--rows` people and as many registrations, made over the last year to 200 offerings,
 * 100,000 webhook deliveries of the last 30 days to 3 endpoints, and a year of sign-in counts; on
 * SQLite and, with BENCH_POSTGRES_URL, on PostgreSQL. Prints p50 and p99 of each in milliseconds.
 *
 * The rows are written by bulk SQL (a recursive series on SQLite, generate_series on PostgreSQL) into a
 * fresh database each run: the dates are relative to now.
 *
 *   npm run bench:console-reports -- [--rows 1000000] [--engine sqlite|postgres|both] [--requests 20]
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql, type Kysely } from 'kysely';
import { buildApp } from '../src/app.js';
import { tokensService } from '../src/auth/tokens.service.js';
import { migrateToLatest, openDatabase, type Engine } from '../src/db/database.js';
import { organizationsRepository } from '../src/tenancy/organizations.repository.js';
import { DEFAULT_PASSWORD_POLICY } from '../src/lib/password-policy.js';
import { forEachEngine, freshPostgresDatabase, signedInAdministrator, timeScenarios } from './console-pages.js';
import { CACHE_DIR } from './datasets.js';

const { values: options } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    engine: { type: 'string', default: 'both' },
    requests: { type: 'string', default: '20' },
  },
});
const ROWS = Number(options.rows);
const REQUESTS = Number(options.requests);
const OFFERINGS = 200;
const DELIVERIES = 100_000;
const YEAR_AGO = Math.floor(Date.now() / 1000) - 365 * 86_400;
const MONTH_AGO = Math.floor(Date.now() / 1000) - 30 * 86_400;

/** SQL for what each engine writes differently: a series of `i`, an id of 32 hex digits, a timestamp of seconds. */
function dialect(engine: Engine) {
  return {
    series: (count: number) =>
      engine === 'sqlite' ? `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count}) select` : 'select',
    from: (count: number) => (engine === 'sqlite' ? 'from n' : `from generate_series(1, ${count}) as i`),
    id: (i: string) => (engine === 'sqlite' ? `printf('%032x', ${i})` : `lpad(to_hex(${i}), 32, '0')`),
    time: (seconds: string) =>
      engine === 'sqlite'
        ? `strftime('%Y-%m-%dT%H:%M:%SZ', ${seconds}, 'unixepoch')`
        : `to_char(to_timestamp(${seconds}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`,
    day: (seconds: string) =>
      engine === 'sqlite' ? `strftime('%Y-%m-%d', ${seconds}, 'unixepoch')` : `to_char(to_timestamp(${seconds}) at time zone 'UTC', 'YYYY-MM-DD')`,
  };
}

/** People (1 % deactivated), offerings, a registration per person (half active, the others passed, failed or ejected, graded if passed or failed), deliveries and sign-in counts. */
async function fill(db: Kysely<any>, engine: Engine, orgId: string): Promise<void> {
  const d = dialect(engine);
  const run = (text: string) => sql.raw(text).execute(db);
  const made = d.time(`${YEAR_AGO} + i * ${Math.floor((365 * 86_400) / ROWS)}`);
  await run(`insert into users (org_id, id, first_name, email, email_key, created_date, updated_date, active, password_change_required)
    ${d.series(ROWS)} '${orgId}', ${d.id('i')}, 'Person', 'p' || i || '@example.com', 'p' || i || '@example.com', ${made}, ${made}, i % 100 <> 0, false ${d.from(ROWS)}`);
  await run(`insert into offerings (org_id, id, title, order_index, passing_grade, allow_retake, created_date, updated_date)
    ${d.series(OFFERINGS)} '${orgId}', ${d.id('i')}, 'Offering ' || i, i, 50, false, ${d.time(String(YEAR_AGO))}, ${d.time(String(YEAR_AGO))} ${d.from(OFFERINGS)}`);
  const status = `case when i % 10 < 5 then 'active' when i % 10 < 7 then 'passed' when i % 10 = 7 then 'failed' else 'ejected' end`;
  await run(`insert into registrations (org_id, id, user_id, offering_id, title, status, grade, created_date, updated_date, begin_date)
    ${d.series(ROWS)} '${orgId}', ${d.id('i')}, ${d.id('i')}, ${d.id(`i % ${OFFERINGS} + 1`)}, 'Offering', ${status},
      case when i % 10 between 5 and 7 then (i * 7) % 101 end, ${made}, ${made}, ${made} ${d.from(ROWS)}`);
  await run(`insert into webhooks (org_id, id, url, event_types, secret, created_date, updated_date)
    ${d.series(3)} '${orgId}', ${d.id('i')}, 'https://hooks' || i || '.example.com/training', 'user.created', 'whsec_bench', ${d.time(String(MONTH_AGO))}, ${d.time(String(MONTH_AGO))} ${d.from(3)}`);
  const queued = d.time(`${MONTH_AGO} + i * ${Math.floor((30 * 86_400) / DELIVERIES)}`);
  await run(`insert into webhook_deliveries (org_id, id, webhook_id, event_id, event_type, payload, status, attempts, give_up_at, created_date, updated_date)
    ${d.series(DELIVERIES)} '${orgId}', ${d.id('i')}, ${d.id('i % 3 + 1')}, ${d.id('i')}, 'user.created', '{}',
      case when i % 50 = 0 then 'failed' when i % 500 = 1 then 'pending' else 'succeeded' end, 1, ${queued}, ${queued}, ${queued} ${d.from(DELIVERIES)}`);
  await run(
    `insert into sign_in_days (org_id, day, sign_ins) ${d.series(365)} '${orgId}', ${d.day(`${YEAR_AGO} + i * 86400`)}, 1000 + i ${d.from(365)}`,
  );
  await run('analyze');
}

async function databaseUrl(engine: Engine, postgresUrl: string | undefined): Promise<string> {
  if (engine === 'sqlite') {
    mkdirSync(CACHE_DIR, { recursive: true });
    const file = path.join(CACHE_DIR, `console-reports_${ROWS}.db`);
    rmSync(file, { force: true });
    return `sqlite:${file}`;
  }
  return freshPostgresDatabase(postgresUrl!, `console_reports_${ROWS}`);
}

async function measure(engine: Engine, postgresUrl: string | undefined): Promise<void> {
  const { db, close } = openDatabase(await databaseUrl(engine, postgresUrl));
  try {
    await migrateToLatest(db);
    const organization = await organizationsRepository(db).create('Reports bench');
    const { token } = await tokensService(db).create(organization.id, { name: 'bench' });
    const started = performance.now();
    await fill(db, engine, organization.id);
    console.log(`\n${engine}: filled ${ROWS} people and registrations in ${((performance.now() - started) / 1000).toFixed(0)} s`);

    const app = await buildApp({ db, logger: false, passwordPolicy: DEFAULT_PASSWORD_POLICY });
    await app.ready();
    const browser = await signedInAdministrator(app, organization.id, token, 'bench.admin@example.com');

    const reports = `/o/${organization.id}/console/reports`;
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const scenarios: [string, string][] = [
      ['the page, last 90 days (every report)', reports],
      ['registrations.csv, 90 days', `${reports}/registrations.csv`],
      ['registrations.csv, 366 days (per month)', `${reports}/registrations.csv?from=${day(-365)}&to=${day(0)}`],
      ['outcomes.csv, 90 days', `${reports}/outcomes.csv`],
      ['outcomes.csv, 366 days', `${reports}/outcomes.csv?from=${day(-365)}&to=${day(0)}`],
      ['sign-ins.csv, 366 days', `${reports}/sign-ins.csv?from=${day(-365)}&to=${day(0)}`],
      ['people.csv', `${reports}/people.csv`],
      ['webhook-deliveries.csv, 90 days', `${reports}/webhook-deliveries.csv`],
    ];
    console.log(`${engine}, ${REQUESTS} requests each after 2 to warm up, milliseconds:`);
    await timeScenarios(browser, scenarios, { requests: REQUESTS, warm: 2, width: 44 });
    await app.close();
  } finally {
    await close();
  }
}

await forEachEngine(options.engine, measure);
