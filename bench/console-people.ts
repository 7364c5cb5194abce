/**
 * The console's People section at scale: its list (first page, a page deep in the list, the page
 * back), its searches and filters, and a person's page, each asked of the real app (Fastify's routing
 * through `inject`, the administrator's session, the HTML written) with an organization of `--users`
 * people (1,000,000 by default), on SQLite and, with BENCH_POSTGRES_URL, on PostgreSQL. Prints p50
 * and p99 of each in milliseconds.
 *
 * The people are written by one statement of bulk SQL (a recursive series on SQLite, generate_series
 * on PostgreSQL) rather than the seed command, which makes each one through the services: a million
 * take a minute or two this way. They are kept under bench/.cache between runs (the console only
 * reads them; the administrator's sign-in adds a session), and migrated when the code has newer
 * migrations (their time is printed: the indexes of migration 0030 are made over every person).
 *
 *   npm run bench:console-people -- [--users 1000000] [--engine sqlite|postgres|both] [--requests 300]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { tokensService } from '../src/auth/tokens.service.js';
import { migrateToLatest, openDatabase, type Engine } from '../src/db/database.js';
import { organizationsRepository } from '../src/tenancy/organizations.repository.js';
import { fillSql } from './bulk-users.js';
import { forEachEngine, freshPostgresDatabase, signedInAdministrator, timeScenarios } from './console-pages.js';
import { CACHE_DIR } from './datasets.js';
import { DEFAULT_PASSWORD_POLICY } from '../src/lib/password-policy.js';

const { values: options } = parseArgs({
  options: {
    users: { type: 'string', default: '1000000' },
    engine: { type: 'string', default: 'both' },
    requests: { type: 'string', default: '300' },
  },
});
const USERS = Number(options.users);
const REQUESTS = Number(options.requests);

interface Dataset {
  url: string;
  orgId: string;
  token: string;
  fillSeconds: number;
}

async function dataset(engine: Engine, postgresUrl: string | undefined): Promise<Dataset> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const note = path.join(CACHE_DIR, `console-people_${engine}_${USERS}.json`);
  if (existsSync(note)) return JSON.parse(readFileSync(note, 'utf8')) as Dataset;
  let url: string;
  if (engine === 'sqlite') {
    url = `sqlite:${path.join(CACHE_DIR, `console-people_${USERS}.db`)}`;
  } else {
    url = await freshPostgresDatabase(postgresUrl!, `console_people_${USERS}`);
  }
  const { db, close } = openDatabase(url);
  try {
    await migrateToLatest(db);
    const organization = await organizationsRepository(db).create('People bench');
    const { token } = await tokensService(db).create(organization.id, { name: 'bench' });
    const started = performance.now();
    console.log(`Filling ${USERS} people on ${engine}...`);
    await sql.raw(fillSql(engine, organization.id, USERS)).execute(db);
    await sql.raw('analyze').execute(db);
    const made: Dataset = { url, orgId: organization.id, token, fillSeconds: (performance.now() - started) / 1000 };
    console.log(`Filled in ${made.fillSeconds.toFixed(0)} s`);
    writeFileSync(note, `${JSON.stringify(made, null, 2)}\n`);
    return made;
  } finally {
    await close();
  }
}

async function measure(engine: Engine, postgresUrl: string | undefined): Promise<void> {
  const data = await dataset(engine, postgresUrl);
  const { db, close } = openDatabase(data.url);
  const migrating = performance.now();
  const { results = [] } = await migrateToLatest(db);
  if (results.length > 0) {
    console.log(`Migrated ${results.map((result) => result.migrationName).join(', ')} in ${((performance.now() - migrating) / 1000).toFixed(0)} s`);
    await sql.raw('analyze').execute(db);
  }
  const app = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: db, logger: false });
  await app.ready();
  try {
    const browser = await signedInAdministrator(app, data.orgId, data.token, `bench.admin.${Date.now()}@example.com`);

    const people = `/o/${data.orgId}/console/people`;
    const id = (i: number) => i.toString(16).padStart(32, '0');
    const createdOf = (i: number) => new Date((1577836800 + i * 60) * 1000).toISOString().replace('.000', '');
    const deep = Math.floor(USERS / 100); // a page among the oldest hundredth: 99 % of the list before it
    const random = () => 1 + Math.floor(Math.random() * USERS);
    const scenarios: [string, () => string][] = [
      ['list, first page', () => people],
      ['list, a page deep (older than person 1 %)', () => `${people}?after=${createdOf(deep)}_${id(deep)}`],
      [
        'list, the page back (newer than a random person)',
        () => {
          const i = random();
          return `${people}?before=${createdOf(i)}_${id(i)}`;
        },
      ],
      ['search: email (a random person)', () => `${people}?email=person.${random()}@example.com`],
      ['search: first name contains (a tenth match)', () => `${people}?firstName=ada`],
      ['search: last name contains (200 to 222,200 match)', () => `${people}?lastName=family${random() % 5000}`],
      ['search: last name contains (1 matches)', () => `${people}?lastName=quill`],
      ['search: last name contains, its middle (1 matches)', () => `${people}?lastName=uil`],
      ['search: first name starts, 1 letter (a fifth match)', () => `${people}?firstName=a`],
      ['search: last name starts, 2 letters (1 matches)', () => `${people}?lastName=qu`],
      ['filter: tag (1 % match)', () => `${people}?tags=team${random() % 100}`],
      ['filter: deactivated (1 %)', () => `${people}?active=false`],
      ['filter: course administrators (0.01 %)', () => `${people}?accountType=courseAdministrator`],
      ['filter: learners, a page deep', () => `${people}?accountType=learner&after=${createdOf(deep)}_${id(deep)}`],
      ['filter: created in a month', () => `${people}?createdDate=2021-03`],
      ['person page (a random person)', () => `${people}/${id(random())}`],
    ];
    console.log(`\n${engine}, ${USERS} people, ${REQUESTS} requests each, after a fifth as many (20 at most) to warm up, milliseconds:`);
    await timeScenarios(browser, scenarios, { requests: REQUESTS, warm: Math.min(20, Math.ceil(REQUESTS / 5)), width: 52, max: true });
  } finally {
    await app.close();
    await close();
  }
}

await forEachEngine(options.engine, measure);
