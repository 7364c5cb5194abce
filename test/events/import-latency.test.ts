import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ALL_ENGINES, createTestDatabase, engineSkip, type TestDatabase } from '../helpers/database.js';
import { FeedConsumer, type FeedPage } from '../helpers/events.js';
import { sleep, statusCounts, underLoad, type Outcome } from '../helpers/load.js';
import { ServerProcess } from '../helpers/server-process.js';

/** The repository root, from dist/test/events/. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const USERS = 3000;
/** API clients creating users in the same organization meanwhile. */
const WRITERS = 4;
/** PostgreSQL's target for the API's writes during an import. */
const P99_TARGET_MS = 50;
/**
 * The target means something only on a machine quiet enough that the API alone stays well under it
 * (9-15 ms at p99 on a quiet 2-core one, where the import roughly triples it); on a machine shared
 * with other work, told apart by that, the figures are reported and not judged.
 */
const QUIET_P99_MS = 15;
/** How the API server's PostgreSQL connections are told apart from the import's and this test's. */
const API_CONNECTIONS = 'import-latency-api';

function percentile(outcomes: readonly Outcome[], fraction: number): number {
  const sorted = outcomes.map((outcome) => outcome.ms).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

const figures = (outcomes: readonly Outcome[]) =>
  `${outcomes.length} creates, p50 ${percentile(outcomes, 0.5).toFixed(1)} ms, p99 ${percentile(outcomes, 0.99).toFixed(1)} ms, max ${percentile(outcomes, 1).toFixed(1)} ms`;

/** `training-api import users` in a process of its own, as an operator runs it. */
async function importUsers(databaseUrl: string, orgId: string, file: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/training-api.js'), 'import', 'users', '--org', orgId, file], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const [code] = await once(child, 'exit');
  return { code, output };
}

/**
 * PostgreSQL: samples, until `done` resolves, the API server's connections that wait for a lock
 * another connection holds (the import's, this test's), and returns what each sample found them
 * waiting for (advisory, transactionid, tuple, ...) with the statement. The API's requests may
 * wait for each other (two touching their token's last use), which is not the import's doing.
 */
async function waitsForOthersUntil(database: TestDatabase, done: Promise<unknown>): Promise<{ samples: number; waits: string[] }> {
  let finished = false;
  const finish = () => (finished = true);
  done.then(finish, finish);
  const found = { samples: 0, waits: [] as string[] };
  while (!finished) {
    const { rows } = await sql<{ wait: string }>`
      with waiting as materialized (
        select pid, wait_event, query from pg_stat_activity
        where application_name = ${API_CONNECTIONS} and wait_event_type = 'Lock'
      )
      select wait_event || ': ' || left(query, 100) as wait from waiting
      where exists (
        select 1 from pg_stat_activity holder
        where holder.pid = any(pg_blocking_pids(waiting.pid)) and holder.application_name is distinct from ${API_CONNECTIONS}
      )`.execute(database.db);
    found.samples++;
    found.waits.push(...rows.map((row) => row.wait));
    // Often enough to see a wait that matters to the 50 ms target, seldom enough not to load the server measured.
    await sleep(20);
  }
  return found;
}

/** A sync job by updatedDate: every user from the watermark of its previous run on, kept by id. */
class UserSync {
  readonly copy = new Map<string, any>();
  private watermark?: string;

  constructor(private readonly list: (query: Record<string, string>) => Promise<{ headers: Record<string, unknown>; body: any }>) {}

  async run(): Promise<void> {
    let next: string | undefined;
    for (let offset = 0; ; offset += 100) {
      const query = { ...(this.watermark ? { updatedDate: `${this.watermark}/..` } : {}), limit: '100', offset: String(offset) };
      const { headers, body } = await this.list(query);
      next ??= String(headers['updated-date-watermark']);
      for (const user of body.results) this.copy.set(user.id, user);
      if (!body.next) break;
    }
    this.watermark = next;
  }
}

for (const engine of ALL_ENGINES) {
  describe(`a ${USERS}-user import beside the API [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    let server: ServerProcess;
    let token: string;
    let orgId: string;
    let dir: string;
    /** PostgreSQL: the API creates' p99 alone and during the import, in ms. */
    let latency: { alone: number; during: number; figures: string } | undefined;

    before(async () => {
      database = await createTestDatabase(engine);
      const apiUrl = engine === 'postgres' ? `${database.url}&application_name=${API_CONNECTIONS}` : database.url;
      // On SQLite an API write waits for each import batch's write lock: on a loaded machine a batch
      // may take longer than the default 10 s, which is not what this test is about.
      server = await ServerProcess.start({ DATABASE_URL: apiUrl, DATABASE_STATEMENT_TIMEOUT: '60s' });
      token = await server.bootstrapToken();
      orgId = (await database.db.selectFrom('organizations').select('id').executeTakeFirstOrThrow()).id;
      dir = await mkdtemp(join(tmpdir(), 'import-latency-'));
    });
    after(async () => {
      await server?.destroy();
      await database?.drop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    const get = async (path: string, query: Record<string, string>) => {
      const reply = await server.request('GET', `${path}?${new URLSearchParams(query).toString()}`, { token });
      assert.equal(reply.status, 200, reply.body);
      return { headers: reply.headers, body: JSON.parse(reply.body) };
    };
    const feedPage: FeedPage = async (query) => ({ status: 200, body: (await get('events', query)).body });
    /** API clients' creates, each with an email of its own (`phase` tells runs apart). */
    const creates = (phase: string) => async (worker: number, step: number) => {
      const email = `${phase}-${worker}-${step}@api.example`;
      return { kind: 'create', reply: await server.request('POST', 'users', { token, body: { email, firstName: 'Api' } }) };
    };

    it('API creates in the same organization stay fast, and a feed consumer and a sync job by updatedDate miss nothing', async (t) => {
      const file = join(dir, 'people.csv');
      const rows = Array.from({ length: USERS }, (_, n) => `person${n}@import.example,Person,${n},imported`);
      await writeFile(file, ['email,firstName,lastName,tags', ...rows].join('\n'));

      const alone = await underLoad(WRITERS, creates('alone'), async () => {
        await sleep(5000);
      });
      const feed = new FeedConsumer(feedPage);
      const sync = new UserSync((query) => get('users', query));
      await feed.poll();
      await sync.run();

      let imported: { code: number | null; output: string } | undefined;
      let importMs = 0;
      let locks = { samples: 0, waits: [] as string[] };
      const beside = await underLoad(WRITERS, creates('beside'), async () => {
        const started = performance.now();
        const importing = importUsers(database.url, orgId, file).then((result) => {
          importMs = performance.now() - started;
          imported = result;
        });
        const sampling = engine === 'postgres' ? waitsForOthersUntil(database, importing) : undefined;
        while (!imported) {
          await feed.poll();
          await sync.run();
          await sleep(50);
        }
        await importing;
        locks = (await sampling) ?? locks;
      });
      assert.equal(imported!.code, 0, imported!.output);
      assert.match(imported!.output, new RegExp(`Imported ${USERS} users from people\\.csv: ${USERS} created`));
      for (const outcomes of [alone, beside]) assert.deepEqual(statusCounts(outcomes), { 201: outcomes.length });

      await feed.poll();
      await sync.run();
      const everything = new FeedConsumer(feedPage);
      await everything.poll();
      const stored = await database.db.selectFrom('events').select('id').where('org_id', '=', orgId).execute();
      assert.equal(stored.length, USERS + alone.length + beside.length);
      assert.deepEqual(feed.duplicates(), []);
      assert.deepEqual(
        feed.events.map((event) => event.id),
        everything.events.map((event) => event.id),
        'the consumer that polled during the import read every event, once, in the order of the feed',
      );
      const users = new Map<string, any>();
      for (let offset = 0; ; offset += 100) {
        const page = (await get('users', { limit: '100', offset: String(offset) })).body;
        for (const user of page.results) users.set(user.id, user);
        if (!page.next) break;
      }
      assert.equal(users.size, USERS + alone.length + beside.length);
      const missed = [...users.values()].filter((user) => JSON.stringify(sync.copy.get(user.id)) !== JSON.stringify(user));
      assert.deepEqual(missed, [], 'the sync job by updatedDate that resumed from each watermark has every user as it is');

      const during = figures(beside);
      const seconds = (importMs / 1000).toFixed(1);
      t.diagnostic(`${engine}: API creates alone: ${figures(alone)}`);
      t.diagnostic(`${engine}: API creates during the import (${seconds} s): ${during}`);
      console.log(`# ${engine}: alone ${figures(alone)}; during a ${USERS}-user import of ${seconds} s: ${during}`);
      if (engine === 'postgres') {
        console.log(`# postgres: ${locks.samples} samples, API connections found waiting for the import's locks: ${JSON.stringify(locks.waits)}`);
        // An organization-wide lock shows here as 'advisory', whatever the machine's load.
        assert.deepEqual(locks.waits, [], `the API's connections never wait for a lock of the import (${locks.samples} samples)`);
        latency = { alone: percentile(alone, 0.99), during: percentile(beside, 0.99), figures: during };
      }
    });

    // PostgreSQL's target (on a quiet 2-core machine, p99 25-43 ms during the import in five runs).
    if (engine === 'postgres') {
      it(`answers API creates at p99 under ${P99_TARGET_MS} ms during the import, on a machine quiet enough to tell`, (t) => {
        assert.ok(latency, 'measured by the test above');
        if (latency.alone >= QUIET_P99_MS) {
          t.diagnostic(`not checked: the API alone answered at p99 in ${latency.alone.toFixed(1)} ms on this machine`);
          return;
        }
        assert.ok(latency.during < P99_TARGET_MS, `p99 of API creates during the import under ${P99_TARGET_MS} ms: ${latency.figures}`);
      });
    }
  });
}
