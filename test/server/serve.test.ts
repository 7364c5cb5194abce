import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/database.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Generous: the first start makes a certificate and migrates, on a machine that may be busy.
const STARTUP_TIMEOUT_MS = 90_000;
const SHUTDOWN_TIMEOUT_MS = 15_000;
const HTTPS_REQUIRED = '{"errors":["HTTPS is required"]}';

/** Settings the test environment might carry that would steer the server away from its defaults. */
const CONFIG_VARIABLES = [
  'DATABASE_URL',
  'DATA_DIR',
  'HOST',
  'PORT',
  'TLS_CERT_FILE',
  'TLS_KEY_FILE',
  'TRUST_PROXY',
  'PUBLIC_URL',
  'RATE_LIMIT',
  'REDIS_URL',
  'BODY_LIMIT',
];

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The certificate the server presented, for HTTPS. */
  certificate?: Buffer;
}

interface RequestOptions {
  ca?: string;
  token?: string;
  headers?: Record<string, string>;
}

function request(url: string, options: RequestOptions = {}): Promise<Reply> {
  const headers = { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers };
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    client
      .get(url, { headers, ca: options.ca, agent: false }, (response) => {
        const certificate = (response.socket as TLSSocket).getPeerCertificate?.().raw;
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body, certificate }));
      })
      .on('error', reject);
  });
}

/** `training-api serve` as a real process on a free port; started once it has printed its base URL and token file. */
class ServerProcess {
  stdout = '';
  stderr = '';
  baseUrl = '';
  private child!: ChildProcess;
  private exit!: Promise<number | null>;

  constructor(private readonly args: string[]) {}

  async start(): Promise<void> {
    const env = { ...process.env };
    for (const name of CONFIG_VARIABLES) delete env[name];
    this.child = spawn(process.execPath, ['bin/training-api.js', 'serve', '--port', '0', ...this.args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exit = once(this.child, 'exit').then(([code]) => code as number | null);
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    const started = new Promise<void>((resolve, reject) => {
      this.child.stderr!.on('data', () => {
        const match = /serving (https?:\/\/\S+\/api\/v5).*\n.*bootstrap-token/.exec(this.stderr);
        if (match) {
          this.baseUrl = match[1]!;
          resolve();
        }
      });
      void this.exit.then((code) => reject(new Error(`serve exited with ${code} before listening:\n${this.stderr}`)));
      setTimeout(() => {
        this.kill(); // never left running behind a failed test
        reject(new Error(`serve did not start in time:\n${this.stderr}`));
      }, STARTUP_TIMEOUT_MS).unref();
    });
    await started;
  }

  /** SIGTERM, then the exit code (a timeout fails the test and kills the process). */
  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`serve did not stop within ${SHUTDOWN_TIMEOUT_MS} ms`)), SHUTDOWN_TIMEOUT_MS).unref(),
    );
    try {
      return await Promise.race([this.exit, timeout]);
    } finally {
      this.kill();
    }
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

async function organizationCount(dataDir: string): Promise<number> {
  const database = openDatabase(`sqlite:${join(dataDir, 'training-api.db')}`);
  try {
    return (await organizationsRepository(database.db).list()).length;
  } finally {
    await database.close();
  }
}

describe('serve over HTTPS', () => {
  let dataDir: string;
  let server: ServerProcess;
  let token: string;
  let ca: string;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'training-api-serve-'));
    server = new ServerProcess(['--data-dir', dataDir]);
    await server.start();
    token = (await readFile(join(dataDir, 'bootstrap-token'), 'utf8')).trim();
    ca = await readFile(join(dataDir, 'tls', 'cert.pem'), 'utf8');
  });
  after(async () => {
    server.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('announces its HTTPS base URL on a real port', () => {
    assert.match(server.baseUrl, /^https:\/\/127\.0\.0\.1:[1-9]\d*\/api\/v5$/);
  });

  it('writes the bootstrap token with mode 0600 and only says where it is, never printing it', async () => {
    assert.match(token, /^tpa_[A-Za-z0-9_-]{43}$/);
    assert.equal((await stat(join(dataDir, 'bootstrap-token'))).mode & 0o777, 0o600);
    assert.match(server.stderr, /first access token, readable only by this user in \S*bootstrap-token/);
    assert.equal(server.stderr.includes(token), false);
    assert.equal(server.stdout.includes(token), false);
  });

  it('uses the default SQLite database under the data directory', async () => {
    assert.equal(await organizationCount(dataDir), 1);
  });

  it('answers the bootstrap token over HTTPS with the generated certificate', async () => {
    const reply = await request(`${server.baseUrl}/users`, { ca, token });
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), { results: [] });
    assert.match(String(reply.headers['x-request-id']), /^[0-9a-f]{32}$/);
  });

  it('refuses plain HTTP on the same port with the JSON 403', async () => {
    const reply = await request(`${server.baseUrl.replace('https:', 'http:')}/users`, { token });
    assert.equal(reply.status, 403);
    assert.equal(reply.body, HTTPS_REQUIRED);
    assert.match(String(reply.headers['x-request-id']), /^[0-9a-f]{32}$/);
  });

  it("echoes a client's request id on the plain-HTTP refusal too", async () => {
    const reply = await request(`${server.baseUrl.replace('https:', 'http:')}/users`, { headers: { 'x-request-id': 'plain-http-1' } });
    assert.equal(reply.status, 403);
    assert.equal(reply.headers['x-request-id'], 'plain-http-1');
  });

  it('logs requests as JSON lines on stdout', () => {
    const lines = server.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.ok(lines.some((line) => line.req?.url === '/api/v5/users'));
  });

  it('stops on SIGTERM with exit code 0', async () => {
    assert.equal(await server.stop(), 0);
  });

  it('restarts on the same data directory with the same certificate, organization and token', async () => {
    const restarted = new ServerProcess(['--data-dir', dataDir]);
    await restarted.start();
    try {
      assert.equal(restarted.stderr.includes(token), false);
      assert.equal((await readFile(join(dataDir, 'bootstrap-token'), 'utf8')).trim(), token);
      assert.equal(await readFile(join(dataDir, 'tls', 'cert.pem'), 'utf8'), ca);
      const reply = await request(`${restarted.baseUrl}/users`, { ca, token });
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.certificate, new X509Certificate(ca).raw);
      assert.equal(await organizationCount(dataDir), 1);
    } finally {
      assert.equal(await restarted.stop(), 0);
    }
  });
});

describe('serve behind a TLS-terminating proxy', () => {
  let dataDir: string;
  let server: ServerProcess;
  let token: string;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'training-api-proxy-'));
    server = new ServerProcess(['--data-dir', dataDir, '--trust-proxy', 'true']);
    await server.start();
    token = (await readFile(join(dataDir, 'bootstrap-token'), 'utf8')).trim();
  });
  after(async () => {
    server.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('listens in plain HTTP', () => {
    assert.match(server.baseUrl, /^http:\/\/127\.0\.0\.1:[1-9]\d*\/api\/v5$/);
  });

  it('refuses a request the proxy did not mark as HTTPS', async () => {
    for (const headers of [{}, { 'x-forwarded-proto': 'http' }] as Record<string, string>[]) {
      const reply = await request(`${server.baseUrl}/users`, { token, headers });
      assert.equal(reply.status, 403);
      assert.equal(reply.body, HTTPS_REQUIRED);
      assert.match(String(reply.headers['x-request-id']), /^[0-9a-f]{32}$/);
    }
  });

  it("answers the load balancer's health probes, which do not pass through the proxy", async () => {
    const origin = server.baseUrl.replace(/\/api\/v5$/, '');
    for (const probe of ['/healthz', '/readyz']) {
      const reply = await request(`${origin}${probe}`, {});
      assert.equal(reply.status, 200, probe);
    }
  });

  it('serves a request forwarded as HTTPS', async () => {
    const reply = await request(`${server.baseUrl}/users`, { token, headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), { results: [] });
  });

  it('stops on SIGTERM with exit code 0', async () => {
    assert.equal(await server.stop(), 0);
  });
});
