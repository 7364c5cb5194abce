/**
 * How fast one consumer reads the event feed: EVENTS (default 1,000,000) events of one organization
 * written straight into the events table by bulk SQL as the outbox writes them (with their actor and
 * resource) and, on PostgreSQL, with the places in the feed its readers give them (feed-positions.ts:
 * a first read of a backlog places it 2,000 events a statement), then one client reads them over HTTPS from a `training-api serve` as a user runs it, page after page
 * with `after` and the largest page (`limit=1000`), one request at a time, READ events (default all
 * of them). Events a second, with the median and p99 of a page's time, beside a baseline read in the
 * same run: pages of 100, v5's largest (up to 100,000 events). With each, the server's CPU time a
 * page (user and system, from /proc; Linux only), which other work on the machine moves less than
 * the events a second.
 *
 *   npm run build && node dist/bench/feed-read.js                          # SQLite
 *   BENCH_POSTGRES_URL=postgres://... node dist/bench/feed-read.js         # PostgreSQL (a database of its own, dropped after)
 *   PROFILE_DIR=/tmp/profiles node dist/bench/feed-read.js                 # and the server's CPU profile there
 *   LOG_STATEMENTS_MS=5 BENCH_POSTGRES_URL=...                             # PostgreSQL logs the statements of 5 ms or more
 */
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { tokensService } from '../src/auth/tokens.service.js';
import { migrateToLatest, openDatabase } from '../src/db/database.js';
import { isPostgres } from '../src/db/locking.js';
import { organizationsRepository } from '../src/tenancy/organizations.repository.js';
import { ensureSelfSignedCertificate } from '../src/server/tls-certificate.js';
import { now } from '../src/lib/time.js';
import { cpuSeconds, postgresDatabase, startApiServer } from './processes.js';

const EVENTS = Number(process.env.EVENTS ?? 1_000_000);
const READ = Number(process.env.READ ?? EVENTS);
/** The largest page the feed gives. */
const LIMIT = 1000;
/** The baseline read in the same run: pages of v5's largest, of BASELINE_READ events at most. */
const BASELINE_LIMIT = 100;
const BASELINE_READ = 100_000;
/** Events a second asked of one consumer (issue 39). */
const TARGET = 50_000;
/** Rows a fill statement writes. */
const FILL_ROWS = 100_000;

/** GET over HTTPS on one kept-alive connection: the status and the parsed body. */
function getJson(agent: https.Agent, url: string, token: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const request = https.get(url, { agent, rejectUnauthorized: false, headers: { authorization: `Bearer ${token}` } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

const runDir = mkdtempSync(path.join(tmpdir(), 'feed-read-'));
const postgres = process.env.BENCH_POSTGRES_URL ? await postgresDatabase(process.env.BENCH_POSTGRES_URL, 'feed_read') : undefined;
// LOG_STATEMENTS_MS=n: PostgreSQL logs the statements (the server's included) taking n ms or more.
const databaseUrl = postgres
  ? `${postgres.url}?options=${encodeURIComponent('-c log_min_duration_statement=' + (process.env.LOG_STATEMENTS_MS ?? -1))}`
  : `sqlite:${path.join(runDir, 'feed.db')}`;
const handle = openDatabase(databaseUrl);
try {
  await migrateToLatest(handle.db);
  const db = handle.db;
  const org = await organizationsRepository(db).create('Feed read');
  const { token, info } = await tokensService(db).create(org.id, { name: 'Feed reader', scopes: ['read'] });

  // The events of user changes made through a token, about the size of a user's, as the outbox writes
  // them; on PostgreSQL with the positions its readers give, in `seq` order, and the feed's last one.
  const filling = performance.now();
  const at = now();
  for (let start = 0; start < EVENTS; start += FILL_ROWS) {
    const count = Math.min(FILL_ROWS, EVENTS - start);
    const hex = isPostgres(db) ? sql`lpad(to_hex(n), 32, '0')` : sql`printf('%032x', n)`;
    const numbers = isPostgres(db)
      ? sql`select n from generate_series(${start + 1}::bigint, ${start + count}::bigint) as n`
      : sql`with recursive numbers(n) as (select ${start + 1} union all select n + 1 from numbers where n < ${start + count}) select n from numbers`;
    const position = isPostgres(db) ? sql`n` : sql`null`;
    await sql`insert into events (org_id, id, type, created_date, data, previous_attributes, resource_id, actor_type, actor_id, actor_name, position)
      select ${org.id}, ${hex}, 'user.updated', ${at},
        '{"id":"' || ${hex} || '","email":"person' || n || '@feed.example","firstName":"Person","lastName":"Number ' || n ||
        '","username":null,"tags":["staff"],"locale":null,"active":true,"accountType":null,"createdDate":"' || ${at} || '","updatedDate":"' || ${at} || '"}',
        '{"lastName":"Old ' || n || '"}', ${hex}, 'token', ${info.id}, 'Feed reader', ${position}
      from (${numbers}) as numbers`.execute(db);
  }
  if (isPostgres(db)) await sql`insert into event_feeds (org_id, last_position) values (${org.id}, ${EVENTS})`.execute(db);
  await sql`analyze events`.execute(db);
  const fillSeconds = (performance.now() - filling) / 1000;
  await handle.close();

  await ensureSelfSignedCertificate(path.join(runDir, 'tls'));
  const tls = { certFile: path.join(runDir, 'tls', 'cert.pem'), keyFile: path.join(runDir, 'tls', 'key.pem') };
  const nodeArgs = process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [];
  const server = await startApiServer({ databaseUrl, dataDir: runDir, certFile: tls.certFile, keyFile: tls.keyFile, nodeArgs });
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  /** Reads up to `events` events in pages of `limit` with `after`, from the start: events a second, and the pages' times. */
  async function readFeed(limit: number, events: number) {
    const pageMs: number[] = [];
    let read = 0;
    let url: string | undefined = `${server.origin}/api/v5/events?limit=${limit}`;
    const reading = performance.now();
    const cpuAtStart = cpuSeconds(server.pid);
    while (url && read < events) {
      const started = performance.now();
      const { status, body } = await getJson(agent, url, token);
      pageMs.push(performance.now() - started);
      if (status !== 200) throw new Error(`GET ${url} answered ${status}: ${JSON.stringify(body)}`);
      read += body.results.length;
      url = body.next;
    }
    const perSecond = read / ((performance.now() - reading) / 1000);
    const cpuAtEnd = cpuSeconds(server.pid);
    const cpuPerPage =
      cpuAtStart === undefined || cpuAtEnd === undefined
        ? ''
        : `; the server's CPU ${(((cpuAtEnd - cpuAtStart) * 1000) / pageMs.length).toFixed(2)} ms a page`;
    pageMs.sort((a, b) => a - b);
    const percentile = (fraction: number) => pageMs[Math.min(pageMs.length - 1, Math.floor(pageMs.length * fraction))]!.toFixed(1);
    console.log(
      `${postgres ? 'postgres' : 'sqlite'}: one consumer read ${read} of ${EVENTS} events stored (written in ${fillSeconds.toFixed(0)} s), ` +
        `pages of ${limit} with after: ${perSecond.toFixed(0)} events a second; a page p50 ${percentile(0.5)} ms, p99 ${percentile(0.99)} ms${cpuPerPage}`,
    );
    return perSecond;
  }

  try {
    // The baseline: pages of v5's largest, 100, over the same server and events.
    const baseline = await readFeed(BASELINE_LIMIT, Math.min(READ, BASELINE_READ));
    const perSecond = await readFeed(LIMIT, READ);
    console.log(
      `pages of ${LIMIT}: ${(perSecond / baseline).toFixed(2)}x the events a second of pages of ${BASELINE_LIMIT}; ` +
        `${(perSecond / TARGET).toFixed(2)}x the target of ${TARGET}`,
    );
  } finally {
    agent.destroy();
    await server.stop();
  }
} finally {
  await postgres?.drop();
  rmSync(runDir, { recursive: true, force: true });
}
