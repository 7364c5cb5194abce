/**
 * Reads while passwords are hashed: GET /users/{id} latency alone, then during a burst of
 * POST /users with a password, against `training-api serve` on a fresh SQLite file (or on
 * PostgreSQL with `--postgres-url`). The load runs in two generator processes of their own.
 *
 * Usage: node dist/bench/password-burst.js [--seconds 10] [--readers 10] [--writers 50] [--postgres-url postgres://...]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureSelfSignedCertificate } from '../src/server/tls-certificate.js';
import type { LoadJob, LoadResult } from './load-generator.js';
import { forkWorker, postgresDatabase, runCli, startApiServer } from './processes.js';
import { loadAverage } from './stats.js';

const API = '/api/v5';

function post(origin: string, token: string, path: string, body: object): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      `${origin}${path}`,
      { method: 'POST', rejectUnauthorized: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (response) => {
        response.resume();
        if (response.statusCode !== 201) reject(new Error(`POST ${path} answered ${response.statusCode}`));
        else resolve(String(response.headers.location));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '10' },
      readers: { type: 'string', default: '10' },
      writers: { type: 'string', default: '50' },
      'postgres-url': { type: 'string' },
    },
  });
  const seconds = Number(values.seconds);
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'training-api-password-burst-'));
  const postgres = values['postgres-url'] ? await postgresDatabase(values['postgres-url'], 'password_burst') : undefined;
  const databaseUrl = postgres?.url ?? `sqlite:${path.join(runDir, 'burst.db')}`;
  const env = { DATABASE_URL: databaseUrl, DATA_DIR: runDir };
  await ensureSelfSignedCertificate(path.join(runDir, 'tls'));
  await runCli(['migrate'], env);
  const orgId = (await runCli(['orgs', 'create', '--name', 'Password burst'], env)).trim();
  const token = (await runCli(['tokens', 'create', '--org', orgId], env)).trim();
  const server = await startApiServer({
    databaseUrl,
    dataDir: runDir,
    certFile: path.join(runDir, 'tls', 'cert.pem'),
    keyFile: path.join(runDir, 'tls', 'key.pem'),
  });
  const readers = forkWorker('load-generator.js');
  const writers = forkWorker('load-generator.js');
  try {
    const userIds: string[] = [];
    for (let i = 0; i < 100; i += 1) {
      const location = await post(server.origin, token, `${API}/users`, { email: `reader.${i}@example.com` });
      userIds.push(location.split('/').pop()!);
    }
    const read: LoadJob = {
      origin: server.origin,
      token,
      planKey: 'read',
      plan: { method: 'GET', paths: userIds.map((id) => `${API}/users/${id}`) },
      connections: Number(values.readers),
      seconds,
    };
    const write: LoadJob = {
      origin: server.origin,
      token,
      planKey: 'write',
      plan: { method: 'POST', paths: [`${API}/users`], body: JSON.stringify({ email: 'burst.{n}@example.com', password: 'burst1234' }) },
      connections: Number(values.writers),
      seconds,
    };
    const alone = await readers.call<LoadResult>({ job: read });
    const [during, burst] = await Promise.all([readers.call<LoadResult>({ job: read }), writers.call<LoadResult>({ job: write })]);
    const line = (label: string, result: LoadResult) =>
      `${label.padEnd(40)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${String(result.p50).padStart(5)} ms  p99 ${String(result.p99).padStart(5)} ms` +
      `${Object.keys(result.failures).length ? `  failures ${JSON.stringify(result.failures)}` : ''}`;
    console.log(
      `${postgres ? 'PostgreSQL' : 'SQLite'}, ${seconds} s per phase, ${read.connections} readers, ${write.connections} writers; ` +
        `load average ${loadAverage()}`,
    );
    console.log(line('GET /users/{id} alone', alone));
    console.log(line('GET /users/{id} during the burst', during));
    console.log(line('POST /users with a password (burst)', burst));
  } finally {
    await readers.stop();
    await writers.stop();
    await server.stop();
    await postgres?.drop();
    rmSync(runDir, { recursive: true, force: true });
  }
}

await main();
