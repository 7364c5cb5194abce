/**
 * How long `training-api import users` takes for an HR file of USERS people (default 50,000) with
 * three userfields each, on a fresh database: the first run (every user created), the unchanged
 * re-run (nothing written), a re-run where CHANGED_PERCENT (default 10) of the people have a new last
 * name and another employee number (those users updated, the rest unchanged), and, for comparison, the same users created one request at a time
 * (POST /users, then PUT of their userfield values, in-process so no network is counted) on a
 * sample of LOOP_USERS (default 2,000), scaled to USERS.
 *
 *   npm run build && node dist/bench/import-speed.js                       # SQLite
 *   BENCH_POSTGRES_URL=postgres://... node dist/bench/import-speed.js      # PostgreSQL (a schema of its own, dropped after)
 *   PROFILE_DIR=/tmp/profiles node dist/bench/import-speed.js              # and a CPU profile of each import there
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import type { Caller } from '../src/auth/caller.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { newId } from '../src/lib/ids.js';
import { organizationsRepository } from '../src/resources/organizations/organizations.repository.js';
import { tokensService } from '../src/auth/tokens.service.js';
import { userfieldsService } from '../src/resources/userfields/userfields.service.js';
import { runCli } from './processes.js';

const USERS = Number(process.env.USERS ?? 50_000);
const LOOP_USERS = Number(process.env.LOOP_USERS ?? 2_000);
const CHANGED_PERCENT = Number(process.env.CHANGED_PERCENT ?? 10);
const DEPARTMENTS = ['Sales', 'Support', 'Finance', 'Engineering'];

interface Target {
  url: string;
  handle: DatabaseHandle;
  drop(): Promise<void>;
}

async function freshDatabase(): Promise<Target> {
  const base = process.env.BENCH_POSTGRES_URL;
  if (!base) {
    const dir = mkdtempSync(path.join(tmpdir(), 'import-speed-'));
    const url = `sqlite:${path.join(dir, 'bench.db')}`;
    const handle = openDatabase(url);
    return { url, handle, drop: async () => (await handle.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  const schema = `import_speed_${newId()}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    await client.query(statement).finally(() => client.end());
  };
  await admin(`create schema ${schema}`);
  const handle = openDatabase(base, { schema });
  const url = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return { url, handle, drop: async () => (await handle.close(), await admin(`drop schema ${schema} cascade`)) };
}

/** An organization with the HR file's three userfields. */
async function organization(target: Target): Promise<Caller> {
  await migrateToLatest(target.handle.db);
  const org = await organizationsRepository(target.handle.db).create(`Import speed ${newId()}`);
  const caller: Caller = { orgId: org.id, tokenId: 'bench', scopes: ['read', 'write'] };
  const fields = userfieldsService(target.handle.db);
  await fields.create(caller, { type: 'dropdown', name: 'Department', categoryName: 'HR', options: DEPARTMENTS.map((name) => ({ name })) });
  await fields.create(caller, { type: 'number', name: 'Employee number', categoryName: 'HR' });
  await fields.create(caller, { type: 'date', name: 'Start date', categoryName: 'HR' });
  return caller;
}

/** The HR file; with `changed`, every person whose number is a multiple of it has a new last name and employee number. */
function hrFile(dir: string, name: string, changed?: number): string {
  const file = path.join(dir, name);
  const rows = Array.from({ length: USERS }, (_, n) => {
    const start = `${String((n % 12) + 1).padStart(2, '0')}/${String((n % 28) + 1).padStart(2, '0')}/${2000 + (n % 25)}`;
    const moved = changed !== undefined && n % changed === 0;
    const lastName = moved ? `Renamed ${n}` : `Number ${n}`;
    const number = moved ? USERS + n + 1 : n + 1;
    return `person${n}@hr.example,Person,${lastName},staff,${DEPARTMENTS[n % DEPARTMENTS.length]},${number},${start}`;
  });
  writeFileSync(file, ['Email,First Name,Last Name,Tags,Department,Employee number,Start date', ...rows].join('\n'));
  return file;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** POST /users then PUT /users/{id}/userfieldvalues, one user after another, through the app's routing. */
async function requestLoop(target: Target, caller: Caller): Promise<number> {
  const app = await buildApp({ db: target.handle.db, logger: false });
  const { token } = await tokensService(target.handle.db).create(caller.orgId, { scopes: ['read', 'write'] });
  const fields = (await app.inject({ method: 'GET', url: '/api/v5/userfields?limit=100', headers: { authorization: `Bearer ${token}` } })).json()
    .results as { id: string; name: string }[];
  const id = (name: string) => fields.find((field) => field.name === name)!.id;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const seconds = await timed(async () => {
    for (let n = 0; n < LOOP_USERS; n++) {
      const created = await app.inject({
        method: 'POST',
        url: '/api/v5/users',
        headers,
        payload: { email: `loop${n}@api.example`, firstName: 'Person', lastName: `Number ${n}`, tags: ['staff'] },
      });
      if (created.statusCode !== 201) throw new Error(`POST /users answered ${created.statusCode}: ${created.body}`);
      const userId = String(created.headers.location).split('/').pop()!;
      const values = { [id('Department')]: 'Sales', [id('Employee number')]: n + 1, [id('Start date')]: '01/02/2020' };
      const put = await app.inject({ method: 'PUT', url: `/api/v5/users/${userId}/userfieldvalues`, headers, payload: values });
      if (put.statusCode >= 300) throw new Error(`PUT userfieldvalues answered ${put.statusCode}: ${put.body}`);
    }
  });
  await app.close();
  return seconds;
}

const target = await freshDatabase();
const dir = mkdtempSync(path.join(tmpdir(), 'import-speed-file-'));
try {
  const caller = await organization(target);
  const file = hrFile(dir, 'people.csv');
  const changedFile = hrFile(dir, 'people-changed.csv', Math.round(100 / CHANGED_PERCENT));
  const env = { DATABASE_URL: target.url };
  // PROFILE_DIR=dir: each import's CPU profile there (node --cpu-prof), one file a run in the order they ran.
  const nodeArgs = process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [];
  const importing = (csv: string) => () => runCli(['import', 'users', '--org', caller.orgId, csv], env, false, nodeArgs);
  const first = await timed(importing(file));
  const rerun = await timed(importing(file));
  const changedRun = await timed(importing(changedFile));
  const loop = await requestLoop(target, caller);
  const loopScaled = (loop * USERS) / LOOP_USERS;
  const engine = process.env.BENCH_POSTGRES_URL ? 'postgres' : 'sqlite';
  console.log(
    `${engine}: ${USERS} users, ${USERS * 3} userfield values: first import ${first.toFixed(1)} s, unchanged re-run ${rerun.toFixed(1)} s, ` +
      `re-run with ${CHANGED_PERCENT}% changed ${changedRun.toFixed(1)} s; ` +
      `POST loop ${loop.toFixed(1)} s for ${LOOP_USERS} users, ${loopScaled.toFixed(0)} s scaled to ${USERS} (${(loopScaled / first).toFixed(1)}x the import)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
  await target.drop();
}
