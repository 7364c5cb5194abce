/**
 * How long `training-api import users` takes for an HR file of USERS people (default 50,000) with
 * three userfields each, on a fresh database: the first run (every user created), the unchanged
 * re-run (nothing written), a re-run where CHANGED_PERCENT (default 10) of the people have a new last
 * name and another employee number (those users updated, the rest unchanged), and, for comparison, the same users created one request at a time
 * (POST /users, then PUT of their userfield values, in-process so no network is counted) on a
 * sample of LOOP_USERS (default 2,000, 0 for none), scaled to USERS.
 *
 * The floor beside them: the same users and values inserted into another fresh database by a bare
 * script in one transaction (prepared statements on SQLite, multi-row inserts on PostgreSQL), with
 * no checks, events nor bookkeeping: what the database itself needs. RUNS (default 1) repeats the
 * floor and the first two imports, each time on fresh databases, and gives their medians.
 *
 *   npm run build && node dist/bench/import-speed.js                       # SQLite
 *   BENCH_POSTGRES_URL=postgres://... node dist/bench/import-speed.js      # PostgreSQL (a schema of its own, dropped after)
 *   PROFILE_DIR=/tmp/profiles node dist/bench/import-speed.js              # and a CPU profile of each import there
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import type { Caller } from '../src/auth/caller.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { newId } from '../src/lib/ids.js';
import { now } from '../src/lib/time.js';
import { organizationsRepository } from '../src/tenancy/organizations.repository.js';
import { tokensService } from '../src/auth/tokens.service.js';
import { userfieldsService } from '../src/resources/userfields/userfields.service.js';
import { postgresSchema } from './datasets.js';
import { runCli } from './processes.js';
import { COMMAND_LINE_ACTOR } from '../src/lib/actors.js';
import { DEFAULT_PASSWORD_POLICY } from '../src/lib/password-policy.js';

const USERS = Number(process.env.USERS ?? 50_000);
const LOOP_USERS = Number(process.env.LOOP_USERS ?? 2_000);
const CHANGED_PERCENT = Number(process.env.CHANGED_PERCENT ?? 10);
const RUNS = Number(process.env.RUNS ?? 1);
const DEPARTMENTS = ['Sales', 'Support', 'Finance', 'Engineering'];

interface Target {
  url: string;
  /** The SQLite file, or the PostgreSQL schema. */
  place: { file: string } | { base: string; schema: string };
  handle: DatabaseHandle;
  drop(): Promise<void>;
}

async function freshDatabase(): Promise<Target> {
  const base = process.env.BENCH_POSTGRES_URL;
  if (!base) {
    const dir = mkdtempSync(path.join(tmpdir(), 'import-speed-'));
    const file = path.join(dir, 'bench.db');
    const url = `sqlite:${file}`;
    const handle = openDatabase(url);
    return { url, place: { file }, handle, drop: async () => (await handle.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  // LOG_STATEMENTS_MS=n: the server logs the statements of the imports taking n ms or more.
  const logged = process.env.LOG_STATEMENTS_MS ? ` -c log_min_duration_statement=${process.env.LOG_STATEMENTS_MS}` : '';
  const { schema, url, handle, drop } = await postgresSchema(base, 'import_speed', logged);
  return { url, place: { base, schema }, handle, drop };
}

/** An organization with the HR file's three userfields. */
async function organization(target: Target): Promise<Caller> {
  await migrateToLatest(target.handle.db);
  const org = await organizationsRepository(target.handle.db).create(`Import speed ${newId()}`);
  const caller: Caller = { orgId: org.id, tokenId: 'bench', scopes: ['read', 'write'], actor: COMMAND_LINE_ACTOR };
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

/** The users and values of hrFile's first file, as rows of the tables, for `orgId` and its fields (by name). */
function floorRows(orgId: string, fieldIds: Map<string, string>) {
  const at = now();
  const users: unknown[][] = [];
  const values: unknown[][] = [];
  for (let n = 0; n < USERS; n++) {
    const id = newId();
    const email = `person${n}@hr.example`;
    users.push([orgId, id, 'Person', `Number ${n}`, email, email, 'staff', at, at]);
    const start = `${String((n % 12) + 1).padStart(2, '0')}/${String((n % 28) + 1).padStart(2, '0')}/${2000 + (n % 25)}`;
    values.push([orgId, id, fieldIds.get('Department'), JSON.stringify(DEPARTMENTS[n % DEPARTMENTS.length])]);
    values.push([orgId, id, fieldIds.get('Employee number'), JSON.stringify(n + 1)]);
    values.push([orgId, id, fieldIds.get('Start date'), JSON.stringify(start)]);
  }
  return { users, values };
}

const USER_FLOOR_COLUMNS = 'org_id, id, first_name, last_name, email, email_key, tags, created_date, updated_date, active, password_change_required';
const VALUE_COLUMNS = 'org_id, user_id, userfield_id, value';

/**
 * The floor: hrFile's users and values inserted by a bare script into a fresh database, in one
 * transaction, as fast as the engine's client allows; the seconds it took (the rows built beforehand).
 */
async function floor(): Promise<number> {
  const target = await freshDatabase();
  try {
    const caller = await organization(target);
    const fields = await target.handle.db.selectFrom('userfields').select(['id', 'name']).where('org_id', '=', caller.orgId).execute();
    const { users, values } = floorRows(caller.orgId, new Map(fields.map((field) => [field.name ?? '', field.id])));
    const { place } = target;
    if ('file' in place) {
      const sqlite = new Sqlite(place.file);
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('foreign_keys = ON');
      const insertUser = sqlite.prepare(`insert into users (${USER_FLOOR_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 0)`);
      const insertValue = sqlite.prepare(`insert into userfield_values (${VALUE_COLUMNS}) values (?, ?, ?, ?)`);
      const seconds = await timed(async () =>
        sqlite.transaction(() => {
          for (const user of users) insertUser.run(...user);
          for (const value of values) insertValue.run(...value);
        })(),
      );
      sqlite.close();
      return seconds;
    }
    const client = new pg.Client({ connectionString: place.base, options: `-c search_path=${place.schema}` });
    await client.connect();
    // Multi-row inserts of ROWS rows, within a statement's 65,535 parameters for users (11 columns).
    const ROWS = 5000;
    const insertAll = async (table: string, columns: string, rows: unknown[][], literal: string) => {
      for (let start = 0; start < rows.length; start += ROWS) {
        const chunk = rows.slice(start, start + ROWS);
        const width = chunk[0]!.length;
        const tuples = chunk.map(
          (_, row) => `(${Array.from({ length: width }, (_, column) => `$${row * width + column + 1}`).join(', ')}${literal})`,
        );
        await client.query(`insert into ${table} (${columns}) values ${tuples.join(', ')}`, chunk.flat());
      }
    };
    try {
      return await timed(async () => {
        await client.query('begin');
        await insertAll('users', USER_FLOOR_COLUMNS, users, ', true, false');
        await insertAll('userfield_values', VALUE_COLUMNS, values, '');
        await client.query('commit');
      });
    } finally {
      await client.end();
    }
  } finally {
    await target.drop();
  }
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** POST /users then PUT /users/{id}/userfieldvalues, one user after another, through the app's routing. */
async function requestLoop(target: Target, caller: Caller): Promise<number> {
  const app = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: target.handle.db, logger: false });
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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const engine = process.env.BENCH_POSTGRES_URL ? 'postgres' : 'sqlite';
const dir = mkdtempSync(path.join(tmpdir(), 'import-speed-file-'));
try {
  const file = hrFile(dir, 'people.csv');
  const changedFile = hrFile(dir, 'people-changed.csv', Math.round(100 / CHANGED_PERCENT));
  // PROFILE_DIR=dir: each import's CPU profile there (node --cpu-prof), one file a run in the order they ran.
  const nodeArgs = process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [];
  const importing = (target: Target, caller: Caller, csv: string) => () =>
    runCli(['import', 'users', '--org', caller.orgId, csv], { DATABASE_URL: target.url }, Boolean(process.env.SHOW_IMPORT), nodeArgs);
  const floors: number[] = [];
  const firsts: number[] = [];
  const reruns: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    floors.push(await floor());
    const target = await freshDatabase();
    try {
      const caller = await organization(target);
      firsts.push(await timed(importing(target, caller, file)));
      reruns.push(await timed(importing(target, caller, file)));
      if (run < RUNS - 1) continue;
      // Once: the re-run with changes, and the request loop.
      const changedRun = await timed(importing(target, caller, changedFile));
      const loop = LOOP_USERS > 0 ? await requestLoop(target, caller) : undefined;
      const loopScaled = loop === undefined ? undefined : (loop * USERS) / LOOP_USERS;
      const [floorSeconds, first, rerun] = [median(floors), median(firsts), median(reruns)];
      const list = (values: number[]) => values.map((value) => value.toFixed(1)).join(', ');
      console.log(
        `${engine}: ${USERS} users, ${USERS * 3} userfield values, medians of ${RUNS}: floor ${floorSeconds.toFixed(2)} s (${list(floors)}), ` +
          `first import ${first.toFixed(1)} s (${list(firsts)}) ${(first / floorSeconds).toFixed(1)}x the floor, ` +
          `unchanged re-run ${rerun.toFixed(1)} s (${list(reruns)}) ${(rerun / floorSeconds).toFixed(1)}x; ` +
          `re-run with ${CHANGED_PERCENT}% changed ${changedRun.toFixed(1)} s` +
          (loop === undefined
            ? ''
            : `; POST loop ${loop.toFixed(1)} s for ${LOOP_USERS} users, ${loopScaled!.toFixed(0)} s scaled to ${USERS} (${(loopScaled! / first).toFixed(1)}x the import)`),
      );
    } finally {
      await target.drop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
