import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FloorAnswer, HashRate } from '../../bench/floor-server.js';
import type { LoadJob, LoadResult } from '../../bench/load-generator.js';
import { ensureDataset, workingCopy, type WorkingCopy } from '../../bench/datasets.js';
import { parseOptions } from '../../bench/options.js';
import { forkWorker, type Worker } from '../../bench/processes.js';
import { formatSummary, summarizeProfile } from '../../bench/profile-summary.js';
import { summarize, tableOf, writeReport, newReport, type Round } from '../../bench/report.js';
import { requestOf, selectScenarios, SCENARIOS } from '../../bench/scenarios.js';
import type { SteadyReadResult } from '../../bench/steady-reader.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { ensureSelfSignedCertificate } from '../../src/server/tls-certificate.js';

// The benchmark harness itself, in seconds: options, plans, arithmetic, report, and one tiny real run against the floor.
describe('benchmark harness', () => {
  it('reads its options, refusing unknown ones', () => {
    const full = parseOptions([], {}, '/out');
    assert.deepEqual([full.engines, full.rounds, full.seconds, full.connections, full.scale, full.references], [['sqlite'], 5, 4, 50, true, true]);
    const quick = parseOptions(['--quick'], { BENCH_POSTGRES_URL: 'postgres://localhost/bench' }, '/out');
    assert.deepEqual([quick.engines, quick.rounds, quick.seconds, quick.scale, quick.references], [['sqlite'], 3, 0.6, false, false]);
    const both = parseOptions(['--no-scale', '--scenario', 'get-user,create-user'], { BENCH_POSTGRES_URL: 'postgres://localhost/bench' }, '/out');
    assert.deepEqual([both.engines, both.scale, both.scenarios], [['sqlite', 'postgres'], false, ['get-user', 'create-user']]);
    assert.throws(() => parseOptions(['--fast'], {}, '/out'), /Unknown option '--fast'/);
    assert.throws(() => parseOptions(['--engine', 'postgres'], {}, '/out'), /needs BENCH_POSTGRES_URL/);
    assert.throws(() => parseOptions(['--engine', 'mysql'], {}, '/out'), /sqlite or postgres/);
    assert.throws(() => parseOptions(['--rounds', '0'], {}, '/out'), /--rounds must be a positive integer/);
    assert.throws(() => parseOptions(['--scenario', 'nope'], {}, '/out'), /Unknown scenario nope/);
  });

  it(
    'says in one line that BENCH_POSTGRES_URL names a database it cannot reach, password masked',
    { skip: !process.env.TEST_POSTGRES_URL && 'needs TEST_POSTGRES_URL' },
    async () => {
      const url = new URL(process.env.TEST_POSTGRES_URL!);
      url.password = 'hunter2';
      url.pathname = '/training_api_no_such_database';
      await assert.rejects(ensureDataset('postgres', { label: '10k', users: 10, userfieldValues: 1, registrations: 1 }, url.href), (error: Error) => {
        assert.match(
          error.message,
          /^cannot connect to BENCH_POSTGRES_URL postgres:\/\/[^ ]*:\*\*\*@.*training_api_no_such_database.*does not exist.*createdb/,
        );
        assert.doesNotMatch(error.message, /hunter2/);
        return true;
      });
    },
  );

  it('plans requests in turn, with a number unique to the run in each body and a token of its own when told', () => {
    const sample = { users: 3, userIds: ['a', 'b'], emails: ['a@x.io'], activeRegistrationIds: ['r1'], userfieldValues: { f: 1 } };
    const [getUser] = selectScenarios(['get-user']);
    const plan = getUser!.plan(sample, 'tag');
    assert.deepEqual(
      [0, 1, 2].map((n) => requestOf(plan, n, n).path),
      ['/api/v5/users/a', '/api/v5/users/b', '/api/v5/users/a'],
    );
    const create = SCENARIOS.find((scenario) => scenario.id === 'create-user')!.plan(sample, 'tag');
    assert.equal(JSON.parse(requestOf(create, 0, 7).body!).email, 'bench.tag.7@example.com');
    const deep = SCENARIOS.find((scenario) => scenario.id === 'deep-offset')!.plan({ ...sample, users: 10_000 }, 'tag');
    assert.deepEqual(deep.paths, ['/api/v5/users?limit=100&offset=9900']);
    // Each request read with its own organization's token, in turn with the paths.
    const acrossOrganizations = { ...plan, tokens: ['ta', 'tb'] };
    assert.deepEqual(
      [0, 1, 2].map((n) => requestOf(acrossOrganizations, n, n)),
      [
        { path: '/api/v5/users/a', token: 'ta' },
        { path: '/api/v5/users/b', token: 'tb' },
        { path: '/api/v5/users/a', token: 'ta' },
      ],
    );
    assert.equal(requestOf(plan, 0, 0).token, undefined);
  });

  it('pairs each round with the floor round beside it and writes the report', () => {
    const round = (rps: number): Round => ({ rps, p50: 2, p99: 9, cpuPercent: 90, rssMB: 80, failures: {} });
    const floor = summarize('floor', 'floor', [round(1000), round(500), round(1000)]);
    const server = summarize('server 10k', 'server', [round(500), round(400), round(300)], floor.rounds);
    assert.equal(server.median.rps, 400);
    assert.equal(server.ratio, 0.5); // 0.5, 0.8, 0.3
    const scenario = {
      engine: 'sqlite',
      scenario: 'get-user',
      title: 'GET /users/{id}',
      status: 200,
      responseBytes: 200,
      loadavg: { start: [1], end: [1] },
      targets: [floor, server],
    };
    assert.match(tableOf([scenario]), /sqlite\s+GET \/users\/\{id\}\s+server 10k\s+400\s+2\.0\s+9\.0\s+1,000\s+0\.50\s+90\s+2\.25\s+0\.50\s+80/);
    const dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
    try {
      const report = newReport('quick', ['--quick'], { connections: 50, rounds: 3, seconds: 1, warmupSeconds: 0.5 });
      report.scenarios.push(scenario);
      const written = JSON.parse(readFileSync(writeReport(report, dir), 'utf8'));
      assert.equal(written.scenarios[0].targets[1].ratio, 0.5);
      assert.equal(written.machine.cpus > 0, true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('summarizes a CPU profile by module group and function', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'));
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0, columnNumber: 0, scriptId: '0' });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 3, 5] },
        { id: 2, callFrame: frame('(idle)', ''), children: [] },
        { id: 3, callFrame: frame('executeQuery', 'file:///app/dist/src/db/sqlite-dialect.js'), children: [4] },
        { id: 4, callFrame: frame('all', ''), children: [] },
        {
          id: 5,
          callFrame: frame('compileQuery', 'file:///app/node_modules/kysely/dist/esm/query-compiler/default-query-compiler.js'),
          children: [],
        },
      ],
      startTime: 0,
      endTime: 500,
      samples: [2, 4, 4, 5, 2],
      timeDeltas: [0, 100, 100, 100, 100],
    };
    const file = join(dir, 'test.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    try {
      const summary = summarizeProfile(file);
      // Percent of the busy samples, rounded: [self, inclusive].
      const group = (name: string) => {
        const share = summary.groups.find((candidate) => candidate.name === name)!;
        return [Math.round(share.selfPercent), Math.round(share.inclusivePercent)];
      };
      assert.equal(summary.idlePercent, 25);
      assert.deepEqual(group('SQLite statement (native)'), [67, 67]);
      assert.deepEqual(group('ours: database layer'), [0, 67]);
      assert.deepEqual(group('Kysely (build, compile, driver)'), [33, 33]);
      assert.match(formatSummary(summary), /compileQuery kysely\/dist\/esm\/query-compiler\/default-query-compiler\.js:1/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('a tiny real run', () => {
    let dir: string;
    let floor: Worker;
    let load: Worker;
    let origin: string;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'bench-run-'));
      await ensureSelfSignedCertificate(join(dir, 'tls'));
      floor = forkWorker('floor-server.js', [join(dir, 'tls', 'cert.pem'), join(dir, 'tls', 'key.pem')]);
      load = forkWorker('load-generator.js');
      origin = `https://127.0.0.1:${((await floor.ready) as { port: number }).port}`;
    });
    after(async () => {
      await floor.stop();
      await load.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('loads the floor over HTTPS for a second and counts what it answered', async () => {
      const answer: FloorAnswer = { status: 201, headers: { location: 'https://127.0.0.1/api/v5/users/1' }, body: new Uint8Array() };
      await floor.call({ type: 'answer', answer });
      const job: LoadJob = {
        origin,
        planKey: 'test',
        plan: { method: 'POST', paths: ['/api/v5/users'], body: '{"n":{n}}' },
        connections: 4,
        seconds: 1,
      };
      const result = await load.call<LoadResult>({ job });
      assert.ok(result.requests > 10, `only ${result.requests} requests`);
      assert.deepEqual(result.failures, {});
      assert.ok(result.p99 >= result.p50);
    });

    it('counts answers outside 2xx as failures', async () => {
      await floor.call({ type: 'answer', answer: { status: 404, headers: {}, body: new Uint8Array() } });
      const job: LoadJob = { origin, planKey: 'test-404', plan: { method: 'GET', paths: ['/x'] }, connections: 2, seconds: 0.5 };
      const result = await load.call<LoadResult>({ job });
      assert.ok(result.failures['404']! > 0);
    });

    it('reads steadily until told to stop, by kind, and counts answers other than 200 as failures', async () => {
      await floor.call({
        type: 'answer',
        answer: { status: 200, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode('{}') },
      });
      const reader = forkWorker('steady-reader.js');
      try {
        const job = { origin, token: 'tpa_test', paths: { get: ['/api/v5/users/1'], list: ['/api/v5/users?limit=100'] }, connections: 2, rate: 100 };
        await reader.call({ start: job });
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const read = await reader.call<SteadyReadResult>({ stop: true });
        assert.deepEqual(read.failures, {});
        // Paced to 100 a second for about a second, both kinds in turn.
        assert.ok(read.all.requests >= 20 && read.all.requests <= 150, `${read.all.requests} reads`);
        assert.ok(Math.abs(read.byKind.get!.requests - read.byKind.list!.requests) <= 2, JSON.stringify(read.byKind));
        assert.ok(read.all.p99 >= read.all.p50 && read.all.max >= read.all.p99 && read.all.p50 > 0);
        await floor.call({ type: 'answer', answer: { status: 401, headers: {}, body: new Uint8Array() } });
        await reader.call({ start: job });
        await new Promise((resolve) => setTimeout(resolve, 300));
        const refused = await reader.call<SteadyReadResult>({ stop: true });
        assert.ok(refused.failures['401']! > 0 && refused.all.requests === 0, JSON.stringify(refused));
      } finally {
        await reader.stop();
      }
    });

    it('stops waiting for a worker that dies before it is ready, saying so', async () => {
      const broken = forkWorker('reference-server.js', ['no-such-mode', join(dir, 'tls', 'cert.pem'), join(dir, 'tls', 'key.pem'), '{}']);
      await assert.rejects(broken.ready, /reference-server\.js exited with code 1 before it was ready/);
    });

    describe('the reference servers, on a small seeded dataset', () => {
      let copy: WorkingCopy;
      const references: Worker[] = [];
      const originOf = async (mode: string) => {
        const dataset = copy.dataset;
        const worker = forkWorker('reference-server.js', [
          mode,
          join(dir, 'tls', 'cert.pem'),
          join(dir, 'tls', 'key.pem'),
          '{}',
          copy.databaseUrl.slice('sqlite:'.length),
          dataset.orgId,
        ]);
        references.push(worker);
        return `https://127.0.0.1:${((await worker.ready) as { port: number }).port}`;
      };
      const insecure = new Agent({ connect: { rejectUnauthorized: false } });
      const request = (url: string, init: Parameters<typeof undiciFetch>[1] = {}) => undiciFetch(url, { ...init, dispatcher: insecure });

      before(async () => {
        copy = await workingCopy(await ensureDataset('sqlite', { label: 'tiny', users: 12, userfieldValues: 1, registrations: 1 }), dir);
      });
      after(async () => {
        for (const worker of references) await worker.stop();
        await insecure.close();
        await copy.dispose();
      });

      it('with duties: refuses a request without a valid token, and answers one with the headers of the API', async () => {
        const origin = await originOf('fastify-duties');
        const refused = await request(`${origin}/api/v5/users/x`);
        assert.equal(refused.status, 401);
        const wrong = await request(`${origin}/api/v5/users/x`, { headers: { authorization: 'Bearer tpa_nope' } });
        assert.equal(wrong.status, 401);
        const sqliteOrigin = await originOf('fastify-sqlite');
        const page = (await (await request(`${sqliteOrigin}/api/v5/users?limit=5`)).json()) as { results: { id: string }[]; next: string };
        const user = page.results[0]!;
        const answer = await request(`${origin}/api/v5/users/${user.id}`, { headers: { authorization: `Bearer ${copy.dataset.token}` } });
        assert.equal(answer.status, 200);
        assert.deepEqual(await answer.json(), user);
        assert.match(answer.headers.get('etag')!, /^"[\w-]{27}"$/);
        assert.ok(answer.headers.get('x-request-id'));
        assert.equal(answer.headers.get('cache-control'), 'no-store');
        assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
        const missing = await request(`${origin}/api/v5/users/nobody`, { headers: { authorization: `Bearer ${copy.dataset.token}` } });
        assert.equal(missing.status, 404);
      });

      it('with SQLite: pages users in creation order and makes new ones durably', async () => {
        const origin = await originOf('fastify-sqlite');
        const page = (await (await request(`${origin}/api/v5/users?limit=5`)).json()) as {
          results: { id: string; createdDate: string }[];
          next: string;
        };
        assert.equal(page.results.length, 5);
        assert.match(page.next, /\/api\/v5\/users\?limit=5&offset=5$/);
        const created = await request(`${origin}/api/v5/users`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'reference.made@example.com', firstName: 'Ref', tags: ['bench'] }),
        });
        assert.equal(created.status, 201);
        const location = created.headers.get('location')!;
        const made = (await (await request(location)).json()) as Record<string, unknown>;
        assert.equal(made.email, 'reference.made@example.com');
        assert.deepEqual(made.tags, ['bench']);
        const refused = await request(`${origin}/api/v5/users`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"firstName":"x"}',
        });
        assert.equal(refused.status, 400);
      });
    });

    it('measures the hash rate of the API password function', async () => {
      const hash = await floor.call<HashRate>({ type: 'hash', seconds: 0.3, concurrency: 2 });
      assert.ok(hash.rate > 0);
      assert.match(hash.scheme, /\w/); // the algorithm and parameters, whatever passwords.ts uses
    });
  });
});
