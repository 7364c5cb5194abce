import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bootstrap } from '../../src/cli/serve.js';
import { openDatabase } from '../../src/db/database.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const SKIP = process.env.TEST_POSTGRES_URL ? false : 'needs TEST_POSTGRES_URL: instances share a PostgreSQL database';
/** The repository root, from dist/test/server/. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const START_TIMEOUT_MS = 30_000;

interface Reply {
  status: number;
  body: string;
}

/** A real `training-api serve` process on its own port and data directory. */
class Instance {
  readonly output: string[] = [];
  port = 0;
  #agent!: https.Agent;

  private constructor(
    private readonly child: ChildProcess,
    readonly dataDir: string,
  ) {}

  static async start(databaseUrl: string): Promise<Instance> {
    const dataDir = await mkdtemp(join(tmpdir(), 'training-api-instance-'));
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' };
    for (const name of ['HOST', 'PORT', 'PUBLIC_URL', 'TRUST_PROXY', 'REDIS_URL', 'RATE_LIMIT', 'TLS_CERT_FILE', 'TLS_KEY_FILE']) delete env[name];
    const child = spawn(process.execPath, [join(ROOT, 'bin/training-api.js'), 'serve', '--port', '0', '--data-dir', dataDir], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const instance = new Instance(child, dataDir);
    instance.port = await new Promise<number>((resolvePort, reject) => {
      const timer = setTimeout(() => reject(new Error(`no server after ${START_TIMEOUT_MS} ms:\n${instance.output.join('')}`)), START_TIMEOUT_MS);
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        instance.output.push(chunk);
        const match = /training-api serving https:\/\/[^:]+:(\d+)\/api\/v5/.exec(instance.output.join(''));
        if (match) {
          clearTimeout(timer);
          resolvePort(Number(match[1]));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the server exited with ${code}:\n${instance.output.join('')}`));
      });
    });
    // Each instance made its own self-signed certificate: trust exactly that one.
    instance.#agent = new https.Agent({ keepAlive: true, maxSockets: 50, ca: await readFile(join(dataDir, 'tls', 'cert.pem')) });
    return instance;
  }

  request(method: string, path: string, token: string, body?: unknown): Promise<Reply> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    return new Promise((resolveReply, reject) => {
      const request = https.request(
        { host: '127.0.0.1', port: this.port, servername: 'localhost', path: `/api/v5/${path}`, method, headers, agent: this.#agent },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolveReply({ status: response.statusCode ?? 0, body: text }));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  }

  async stop(): Promise<void> {
    this.#agent?.destroy();
    if (this.child.exitCode === null) {
      const exited = new Promise((resolveExit) => this.child.once('exit', resolveExit));
      this.child.kill('SIGTERM');
      await exited;
    }
    await rm(this.dataDir, { recursive: true, force: true });
  }
}

describe('two instances on one PostgreSQL database', { skip: SKIP }, () => {
  let database: TestDatabase;
  let instances: Instance[] = [];
  let token: string;

  before(async () => {
    // Unmigrated and empty: both instances migrate and bootstrap at the same moment.
    database = await createTestDatabase('postgres', { migrate: false });
    const started = await Promise.allSettled([Instance.start(database.url), Instance.start(database.url)]);
    instances = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  });

  after(async () => {
    for (const instance of instances) await instance.stop();
    await database?.drop();
  });

  it('bootstraps one organization and one token, however many start at once', async () => {
    const organizations = await database.db.selectFrom('organizations').select(['id', 'name']).execute();
    assert.deepEqual(
      organizations.map((organization) => organization.name),
      ['Default organization'],
    );
    const tokenFiles = instances.map((instance) => join(instance.dataDir, 'bootstrap-token')).filter((file) => existsSync(file));
    assert.equal(tokenFiles.length, 1);
    token = (await readFile(tokenFiles[0]!, 'utf8')).trim();
    assert.equal((await database.db.selectFrom('access_tokens').select('id').execute()).length, 1);
  });

  it('lets exactly one of 200 concurrent creates of one email through, split over both', async () => {
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, n) =>
        instances[n % 2]!.request('POST', 'users', token, { email: n % 2 ? 'Race@Example.com' : 'race@example.com', firstName: `Racer ${n}` }),
      ),
    );
    const statuses = replies.map((reply) => reply.status);
    assert.equal(statuses.filter((status) => status === 201).length, 1, `statuses: ${statuses.join(' ')}`);
    const refusals = replies.filter((reply) => reply.status === 400);
    assert.equal(refusals.length, 199);
    for (const refusal of refusals) assert.equal(JSON.parse(refusal.body).fieldErrors.email, 'is already in use');

    const found = await Promise.all(instances.map((instance) => instance.request('GET', 'users?email=RACE@example.com', token)));
    const bodies = found.map((reply) => JSON.parse(reply.body));
    assert.equal(bodies[0].results.length, 1);
    assert.deepEqual(bodies[1], bodies[0]);
  });

  it('serves what one instance wrote from the other at once', async () => {
    const [first, second] = instances as [Instance, Instance];
    const created = await first.request('POST', 'users', token, { email: 'shared@example.com', username: 'shared' });
    assert.equal(created.status, 201);
    const list = JSON.parse((await second.request('GET', 'users?username=shared', token)).body);
    assert.equal(list.results[0].email, 'shared@example.com');
    const id = list.results[0].id;
    assert.equal((await second.request('DELETE', `users/${id}`, token)).status, 204);
    assert.equal((await first.request('GET', `users/${id}`, token)).status, 404);
  });
});

describe('bootstrap', { skip: SKIP }, () => {
  it('creates one organization when several instances bootstrap an empty database at once', async () => {
    const database = await createTestDatabase('postgres');
    const handles = Array.from({ length: 4 }, () => openDatabase(database.url, { poolSize: 2 }));
    const dataDir = await mkdtemp(join(tmpdir(), 'training-api-bootstrap-'));
    try {
      const tokens = await Promise.all(handles.map((handle, n) => bootstrap(handle, join(dataDir, String(n)))));
      assert.equal(tokens.filter((token) => token !== undefined).length, 1);
      assert.equal((await database.db.selectFrom('organizations').select('id').execute()).length, 1);
      assert.equal((await database.db.selectFrom('access_tokens').select('id').execute()).length, 1);
    } finally {
      for (const handle of handles) await handle.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
