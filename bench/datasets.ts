/**
 * Benchmark datasets, made by the command line (`orgs create`, `tokens create`, `seed`) as a user
 * would make them, and kept between runs under bench/.cache (SQLite files; PostgreSQL databases
 * named after BENCH_POSTGRES_URL's, with a note in the cache). Every run works on a fresh copy, so
 * writes never drift the data the next run sees.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { newId } from '../src/lib/ids.js';
import type { Engine } from './options.js';
import { ROOT, runCli } from './processes.js';
import type { Sample } from './scenarios.js';

export interface DatasetSpec {
  label: string;
  users: number;
  userfieldValues: number;
  registrations: number;
}

/** Every scenario runs on this one: ten values and twenty active registrations per user. */
export const SMALL: DatasetSpec = { label: '10k', users: 10_000, userfieldValues: 10, registrations: 20 };
/** For the scale points: the same users, with fewer values and registrations to keep seeding to minutes. */
export const LARGE: DatasetSpec = { label: '1M', users: 1_000_000, userfieldValues: 2, registrations: 1 };

export const CACHE_DIR = path.join(ROOT, 'bench', '.cache');

interface CachedDataset {
  engine: Engine;
  spec: DatasetSpec;
  /** SQLite file, or PostgreSQL database name. */
  source: string;
  orgId: string;
  token: string;
  seedSeconds: number;
}

export interface WorkingCopy {
  dataset: CachedDataset;
  databaseUrl: string;
  dispose(): Promise<void>;
}

function keyOf(engine: Engine, spec: DatasetSpec): string {
  return `${engine}_${spec.users}u_${spec.userfieldValues}v_${spec.registrations}r`;
}

function postgresUrlFor(baseUrl: string, database: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

function postgresName(baseUrl: string, suffix: string): string {
  const base = decodeURIComponent(new URL(baseUrl).pathname.slice(1)) || 'postgres';
  return `${base}_${suffix}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
}

async function withAdmin<T>(baseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: baseUrl });
  try {
    await client.connect();
  } catch (error) {
    const shown = new URL(baseUrl);
    if (shown.password) shown.password = '***';
    throw new Error(
      `cannot connect to BENCH_POSTGRES_URL ${shown.href}: ${(error as Error).message}. ` +
        'It must name an existing database of your own (createdb <name>); the datasets are made beside it.',
      { cause: error },
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function postgresDatabaseExists(baseUrl: string, name: string): Promise<boolean> {
  return withAdmin(baseUrl, async (client) => (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1);
}

/** The cached dataset, made first when missing (a 1,000,000-user one takes minutes; the progress bar shows). */
export async function ensureDataset(engine: Engine, spec: DatasetSpec, postgresUrl?: string): Promise<CachedDataset> {
  const key = keyOf(engine, spec);
  const noteFile = path.join(CACHE_DIR, `${key}.json`);
  if (existsSync(noteFile)) {
    const cached = JSON.parse(readFileSync(noteFile, 'utf8')) as CachedDataset;
    const present = engine === 'sqlite' ? existsSync(cached.source) : await postgresDatabaseExists(postgresUrl!, cached.source);
    if (present) return cached;
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  let source: string;
  let databaseUrl: string;
  if (engine === 'sqlite') {
    source = path.join(CACHE_DIR, `${key}.db`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${source}${suffix}`, { force: true });
    databaseUrl = `sqlite:${source}`;
  } else {
    source = postgresName(postgresUrl!, key);
    await withAdmin(postgresUrl!, async (client) => {
      await client.query(`drop database if exists "${source}"`);
      await client.query(`create database "${source}"`);
    });
    databaseUrl = postgresUrlFor(postgresUrl!, source);
  }
  console.log(`Making the ${spec.label} dataset on ${engine} (cached in ${engine === 'sqlite' ? source : `database ${source}`})`);
  const env = { DATABASE_URL: databaseUrl };
  const started = performance.now();
  // Only serve and migrate make a new SQLite file.
  await runCli(['migrate'], env);
  const org = JSON.parse(await runCli(['orgs', 'create', '--name', 'Benchmark', '--json'], env)) as { id: string };
  const { token } = JSON.parse(await runCli(['tokens', 'create', '--org', org.id, '--name', 'benchmark', '--json'], env)) as { token: string };
  await runCli(
    [
      'seed',
      '--org',
      org.id,
      '--users',
      String(spec.users),
      '--userfield-values',
      String(spec.userfieldValues),
      '--registrations',
      String(spec.registrations),
      '--json',
    ],
    env,
    true,
  );
  const dataset: CachedDataset = { engine, spec, source, orgId: org.id, token, seedSeconds: (performance.now() - started) / 1000 };
  writeFileSync(noteFile, `${JSON.stringify(dataset, null, 2)}\n`);
  console.log(`Made in ${dataset.seedSeconds.toFixed(0)} s`);
  return dataset;
}

/** A copy of the dataset for one run: a file in `runDir`, or a PostgreSQL database made from the cached one as a template. */
export async function workingCopy(dataset: CachedDataset, runDir: string, postgresUrl?: string): Promise<WorkingCopy> {
  if (dataset.engine === 'sqlite') {
    const file = path.join(runDir, path.basename(dataset.source));
    // A write-ahead log left beside the file holds committed pages too.
    for (const suffix of ['', '-wal']) if (existsSync(`${dataset.source}${suffix}`)) copyFileSync(`${dataset.source}${suffix}`, `${file}${suffix}`);
    const dispose = async () => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    };
    return { dataset, databaseUrl: `sqlite:${file}`, dispose };
  }
  const name = postgresName(postgresUrl!, `run_${dataset.spec.users}u`);
  await withAdmin(postgresUrl!, async (client) => {
    await client.query(`drop database if exists "${name}"`);
    await client.query(`create database "${name}" template "${dataset.source}"`);
  });
  return {
    dataset,
    databaseUrl: postgresUrlFor(postgresUrl!, name),
    dispose: () => withAdmin(postgresUrl!, async (client) => void (await client.query(`drop database if exists "${name}"`))),
  };
}

/** The same order on every run, but no longer the order of the index, so requests do not walk it. */
function shuffled<T>(items: T[]): T[] {
  const result = [...items];
  let state = 0x2545f491;
  for (let i = result.length - 1; i > 0; i -= 1) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const j = state % (i + 1);
    [result[i], result[j]] = [result[j]!, result[i]!];
  }
  return result;
}

/** Ids and keys for the scenarios, read from the working copy before the server starts. */
export async function sampleOf(copy: WorkingCopy, size = 1000): Promise<Omit<Sample, 'userfieldValues'>> {
  const database = openDatabase(copy.databaseUrl, { poolSize: 1 });
  const orgId = copy.dataset.orgId;
  try {
    const { db } = database;
    const { count } = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('org_id', '=', orgId)
      .executeTakeFirstOrThrow();
    // Spread over the whole table: every k-th user in creation order.
    const step = Math.max(1, Math.floor(Number(count) / size));
    const ids = await db.selectFrom('users').select(['id', 'email']).where('org_id', '=', orgId).orderBy('created_date').orderBy('id').execute();
    const picked = shuffled(ids.filter((_, index) => index % step === 0).slice(0, size));
    const registrations = await db
      .selectFrom('registrations')
      .select('id')
      .where('org_id', '=', orgId)
      .where('status', '=', 'active')
      .limit(250_000)
      .execute();
    return {
      users: Number(count),
      userIds: picked.map((user) => user.id),
      emails: picked.map((user) => user.email),
      activeRegistrationIds: registrations.map((registration) => registration.id),
    };
  } finally {
    await database.close();
  }
}

/**
 * A schema of its own, `<prefix>_<new id>`, in the PostgreSQL database of `base`: the bench's handle on
 * it, and the URL a server is given for it (its search_path, and `serverOptions` such as
 * `-c log_min_duration_statement=100`). drop() closes the handle and drops the schema.
 */
export async function postgresSchema(
  base: string,
  prefix: string,
  serverOptions = '',
): Promise<{ schema: string; url: string; handle: DatabaseHandle; drop(): Promise<void> }> {
  const schema = `${prefix}_${newId()}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    await client.query(statement).finally(() => client.end());
  };
  await admin(`create schema ${schema}`);
  const handle = openDatabase(base, { schema });
  const url = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}${serverOptions}`)}`;
  return { schema, url, handle, drop: async () => (await handle.close(), await admin(`drop schema ${schema} cascade`)) };
}
