/**
 * The memory of exports: USERS people (default 1,000,000) with three userfield values each, written
 * by bulk SQL, downloaded as CSV and as a workbook from the console of a `training-api serve` as a
 * user runs it, over HTTPS. For each format a fresh server exports first an organization of
 * BASELINE_USERS people (default 1,000), the baseline, then the large one; the server's peak RSS
 * (VmHWM, as the kernel counts it) after each, its idle RSS, the time, rows a second and the bytes.
 * SQLite, and PostgreSQL too when BENCH_POSTGRES_URL is set (a database of its own, dropped after).
 *
 *   npm run bench:export-memory
 *   USERS=100000 BENCH_POSTGRES_URL=postgres://... npm run bench:export-memory
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import { Agent, fetch } from 'undici';
import { buildApp } from '../src/app.js';
import type { Caller } from '../src/auth/caller.js';
import { tokensService } from '../src/auth/tokens.service.js';
import { migrateToLatest, openDatabase, type Engine } from '../src/db/database.js';
import type { Database } from '../src/db/schema.js';
import { COMMAND_LINE_ACTOR } from '../src/lib/actors.js';
import { DEFAULT_PASSWORD_POLICY } from '../src/lib/password-policy.js';
import { organizationsRepository } from '../src/tenancy/organizations.repository.js';
import { userfieldsService } from '../src/resources/userfields/userfields.service.js';
import { ensureSelfSignedCertificate } from '../src/server/tls-certificate.js';
import { overHttps, PageBrowser } from '../test/helpers/pages.js';
import { fillSql } from './bulk-users.js';
import { peakRssBytes, postgresDatabase, rssBytes, startApiServer } from './processes.js';
import { loadAverage } from './stats.js';

const USERS = Number(process.env.USERS ?? 1_000_000);
const BASELINE_USERS = Number(process.env.BASELINE_USERS ?? 1_000);
const FORMATS = ['csv', 'xlsx'] as const;
const PASSWORD = 'bench horse 1';
const ADMIN = 'export.admin@bench.example';

interface Organization {
  id: string;
  users: number;
}

/** An organization of `users` people, each with a department, an employee number and a start date, and an administrator to sign in. */
async function organization(db: Kysely<Database>, engine: Engine, name: string, users: number): Promise<Organization> {
  const org = await organizationsRepository(db).create(name);
  const caller: Caller = { orgId: org.id, tokenId: 'bench', scopes: ['read', 'write'], actor: COMMAND_LINE_ACTOR };
  const fields = userfieldsService(db);
  const department = await fields.create(caller, {
    type: 'dropdown',
    name: 'Department',
    categoryName: 'HR',
    options: ['Sales', 'Support', 'Finance'].map((option) => ({ name: option })),
  });
  const number = await fields.create(caller, { type: 'number', name: 'Employee number', categoryName: 'HR' });
  const start = await fields.create(caller, { type: 'date', name: 'Start date', categoryName: 'HR' });
  await sql.raw(fillSql(engine, org.id, users)).execute(db);
  // The values from each user's own row: a department of three, its place in the list as a number, a date of the 2010s.
  const serial =
    engine === 'sqlite' ? `cast(substr(email, 8, instr(email, '@') - 8) as integer)` : `substring(email from 8 for position('@' in email) - 8)::int`;
  const values = [
    [department, `'"' || (case ${serial} % 3 when 0 then 'Sales' when 1 then 'Support' else 'Finance' end) || '"'`],
    [number, `cast(${serial} as text)`],
    [start, `'"0' || (${serial} % 9 + 1) || '/1' || (${serial} % 9) || '/201' || (${serial} % 10) || '"'`],
  ];
  for (const [field, value] of values) {
    await sql
      .raw(
        `insert into userfield_values (org_id, user_id, userfield_id, value) select org_id, id, '${field}', ${value} from users where org_id = '${org.id}'`,
      )
      .execute(db);
  }
  // The administrator, made through the API as a person would be, with the agreement the console asks for.
  const app = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db, logger: false });
  const { token } = await tokensService(db).create(org.id, { name: 'bench' });
  const headers = { authorization: `Bearer ${token}` };
  const created = await app.inject({
    method: 'POST',
    url: '/api/v5/users',
    headers,
    payload: { email: ADMIN, password: PASSWORD, accountType: 'organizationAdministrator' },
  });
  if (created.statusCode !== 201) throw new Error(`POST /users answered ${created.statusCode}: ${created.body}`);
  const adminId = String(created.headers.location).split('/').pop()!;
  await app.inject({ method: 'PUT', url: `/api/v5/users/${adminId}/agreements/standard`, headers, payload: { agreed: true } });
  await app.close();
  return { id: org.id, users: users + 1 };
}

/** Downloads the export; its bytes and seconds. The body is counted and dropped as it comes, as a browser saving it would. */
async function download(origin: string, agent: Agent, browser: PageBrowser, orgId: string, format: string) {
  const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const started = performance.now();
  const response = await fetch(`${origin}/o/${orgId}/console/imports/export?format=${format}`, { headers: { cookie }, dispatcher: agent });
  if (response.status !== 200) throw new Error(`the export answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  let bytes = 0;
  for await (const chunk of response.body!) bytes += (chunk as Uint8Array).length;
  return { bytes, seconds: (performance.now() - started) / 1000 };
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const thousands = (count: number) => count.toLocaleString('en-US');

async function measure(engine: Engine, runDir: string): Promise<void> {
  const postgres = engine === 'postgres' ? await postgresDatabase(process.env.BENCH_POSTGRES_URL!, 'export_memory') : undefined;
  const databaseUrl = postgres ? postgres.url : `sqlite:${path.join(runDir, 'export.db')}`;
  try {
    const { db, close } = openDatabase(databaseUrl);
    const filling = performance.now();
    let baseline: Organization;
    let large: Organization;
    try {
      await migrateToLatest(db);
      baseline = await organization(db, engine, 'Export baseline', BASELINE_USERS);
      large = await organization(db, engine, 'Export large', USERS);
      await sql.raw('analyze').execute(db);
    } finally {
      await close();
    }
    console.log(
      `${engine}: ${thousands(USERS)} people and ${thousands(USERS * 3)} values written in ${((performance.now() - filling) / 1000).toFixed(0)} s`,
    );
    const tls = { certFile: path.join(runDir, 'tls', 'cert.pem'), keyFile: path.join(runDir, 'tls', 'key.pem') };
    for (const format of FORMATS) {
      const server = await startApiServer({ databaseUrl, dataDir: runDir, ...tls });
      const agent = new Agent({ connect: { rejectUnauthorized: false } });
      try {
        const browser = new PageBrowser(overHttps(server.origin, agent));
        for (const org of [baseline, large]) {
          const signedIn = await browser.signIn(org.id, ADMIN, PASSWORD);
          if (signedIn.status !== 303) throw new Error(`the sign-in answered ${signedIn.status}`);
          browser.csrf = undefined; // each organization's sign-in page gives its own
        }
        const idle = rssBytes(server.pid)!;
        const small = await download(server.origin, agent, browser, baseline.id, format);
        const smallPeak = peakRssBytes(server.pid)!;
        const big = await download(server.origin, agent, browser, large.id, format);
        const bigPeak = peakRssBytes(server.pid)!;
        console.log(
          `${engine} ${format}: ${thousands(large.users)} users, ${mib(big.bytes)} in ${big.seconds.toFixed(1)} s (${thousands(Math.round(large.users / big.seconds))} rows/s); ` +
            `peak RSS ${mib(bigPeak)}, against ${mib(smallPeak)} after the export of ${thousands(baseline.users)} users ` +
            `(${mib(small.bytes)} in ${small.seconds.toFixed(2)} s): ${(bigPeak / smallPeak).toFixed(2)}x, ${mib(bigPeak - smallPeak)} more; idle ${mib(idle)}`,
        );
      } finally {
        await agent.close();
        await server.stop();
      }
    }
  } finally {
    await postgres?.drop();
  }
}

const runDir = mkdtempSync(path.join(tmpdir(), 'export-memory-'));
try {
  await ensureSelfSignedCertificate(path.join(runDir, 'tls'));
  console.log(`load average at the start: ${loadAverage(1)}`);
  const engines: Engine[] = process.env.BENCH_POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  for (const engine of engines) await measure(engine, runDir);
  console.log(`load average at the end: ${loadAverage(1)}`);
} finally {
  rmSync(runDir, { recursive: true, force: true });
}
