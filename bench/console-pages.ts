/**
 * What the console benches (console-people.ts, console-reports.ts) share: a PostgreSQL database made
 * afresh for them, an administrator signed in to the console through the real app, the timing of each
 * scenario's requests, and the loop over the engines asked for.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Engine } from '../src/db/database.js';
import type { buildApp } from '../src/app.js';
import { injected, PageBrowser } from '../test/helpers/pages.js';

type App = Awaited<ReturnType<typeof buildApp>>;

export const PASSWORD = 'bench horse 1';

/** The database `<base name>_<suffix>` beside the one of `postgresUrl`, dropped if it was there and made empty; its URL. */
export async function freshPostgresDatabase(postgresUrl: string, suffix: string): Promise<string> {
  const base = new URL(postgresUrl);
  const name = `${decodeURIComponent(base.pathname.slice(1)) || 'postgres'}_${suffix}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`drop database if exists "${name}"`);
  await admin.query(`create database "${name}"`);
  await admin.end();
  base.pathname = `/${name}`;
  return base.toString();
}

/** An organization administrator made through the API with `token`, who agrees to the standard agreement and signs in to the console. */
export async function signedInAdministrator(app: App, orgId: string, token: string, email: string): Promise<PageBrowser> {
  const api = (method: 'POST' | 'PUT', url: string, payload: object) =>
    app.inject({ method, url: `/api/v5/${url}`, headers: { authorization: `Bearer ${token}` }, payload });
  const created = await api('POST', 'users', { email, password: PASSWORD, accountType: 'organizationAdministrator' });
  if (created.statusCode !== 201) throw new Error(`POST /users answered ${created.statusCode}: ${created.body}`);
  await api('PUT', `users/${String(created.headers.location).split('/').pop()}/agreements/standard`, { agreed: true });
  const browser = new PageBrowser(injected(app));
  const signedIn = await browser.signIn(orgId, email, PASSWORD);
  if (signedIn.status !== 303) throw new Error(`the sign-in answered ${signedIn.status}`);
  return browser;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export interface Timing {
  /** Requests timed for each scenario, after `warm` more not timed. */
  requests: number;
  warm: number;
  /** The width of the scenario's column. */
  width: number;
  /** Whether the slowest request has a column too. */
  max?: boolean;
}

/** Asks each scenario's page (a URL, or a function giving one for each request) of `browser` `warm` + `requests` times and prints a row of milliseconds a scenario: p50, p99 and (with `max`) the slowest. */
export async function timeScenarios(browser: PageBrowser, scenarios: [string, string | (() => string)][], timing: Timing): Promise<void> {
  const columns = timing.max ? ['p50', 'p99', 'max'] : ['p50', 'p99'];
  console.log(`${'scenario'.padEnd(timing.width)} ${columns.map((column) => column.padStart(8)).join(' ')}`);
  for (const [name, url] of scenarios) {
    const times: number[] = [];
    for (let n = 0; n < timing.requests + timing.warm; n += 1) {
      const started = performance.now();
      const answer = await browser.get(typeof url === 'string' ? url : url());
      const took = performance.now() - started;
      if (answer.status !== 200) throw new Error(`${name}: ${answer.status} ${answer.body.slice(0, 300)}`);
      if (n >= timing.warm) times.push(took);
    }
    times.sort((a, b) => a - b);
    const values = [percentile(times, 50), percentile(times, 99), ...(timing.max ? [times.at(-1)!] : [])];
    console.log(`${name.padEnd(timing.width)} ${values.map((value) => value.toFixed(1).padStart(8)).join(' ')}`);
  }
}

/** Runs `measure` for the engine option's engines (`sqlite`, `postgres` or `both`); PostgreSQL only with BENCH_POSTGRES_URL. */
export async function forEachEngine(option: string, measure: (engine: Engine, postgresUrl: string | undefined) => Promise<void>): Promise<void> {
  const engines: Engine[] = option === 'both' ? ['sqlite', 'postgres'] : [option as Engine];
  for (const engine of engines) {
    const postgresUrl = process.env.BENCH_POSTGRES_URL;
    if (engine === 'postgres' && !postgresUrl) {
      console.log('PostgreSQL skipped: set BENCH_POSTGRES_URL to a database of your own.');
      continue;
    }
    await measure(engine, postgresUrl);
  }
}
