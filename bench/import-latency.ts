/**
 * `npm run bench:import-latency`: the API's create latency while an import runs beside it. The server
 * runs as users run it (`training-api serve`, its own process); WRITERS clients (default 4) create users
 * one after another over HTTPS with keep-alive, in the organization being imported into. Each round:
 *
 * - the creates alone for ALONE_SECONDS (default 5), their p50 and p99;
 * - `training-api import users` of a file of USERS people (default 3,000, new ones each round) in a
 *   process of its own, as an operator runs it, with the creates running until it ends;
 * - the same import of another file with no creates beside it: the import's own time, to show what
 *   the API's share costs it.
 *
 * Target (issue 39): the creates' p99 during the import at most 2x their p99 alone, judged when the
 * alone figure is under 15 ms. Medians of ROUNDS rounds (default 3), the ratio taken within each round.
 *
 *   npm run bench:import-latency                                            # SQLite, and PostgreSQL when BENCH_POSTGRES_URL is set
 *   ENGINES=postgres BENCH_POSTGRES_URL=postgres://... npm run bench:import-latency
 *   BATCH_TIMES=40ms,20ms npm run bench:import-latency                     # each IMPORT_BATCH_TIME in every round, side by side
 *   PROFILE_DIR=/tmp/profiles npm run bench:import-latency                  # CPU profiles of the server and of each import
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { tokensService } from '../src/auth/tokens.service.js';
import { migrateToLatest, openDatabase } from '../src/db/database.js';
import { organizationsRepository } from '../src/tenancy/organizations.repository.js';
import { ensureSelfSignedCertificate } from '../src/server/tls-certificate.js';
import type { Engine } from './options.js';
import { postgresDatabase, ROOT, runCli, startApiServer } from './processes.js';
import { loadAverage, median } from './stats.js';

const USERS = Number(process.env.USERS ?? 3000);
const WRITERS = Number(process.env.WRITERS ?? 4);
const ALONE_SECONDS = Number(process.env.ALONE_SECONDS ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
/** IMPORT_BATCH_TIME values to compare, each measured in every round (the import's own setting when not told). */
const BATCH_TIMES: (string | undefined)[] = process.env.BATCH_TIMES ? process.env.BATCH_TIMES.split(',') : [undefined];
/** The target's ratio, and the alone p99 under which it is judged (issue 39). */
const TARGET_RATIO = 2;
const JUDGED_UNDER_MS = 15;

function percentile(sortedMs: readonly number[], fraction: number): number {
  return sortedMs[Math.min(sortedMs.length - 1, Math.floor(sortedMs.length * fraction))]!;
}

/** POST /users over one kept-alive connection; the milliseconds to the end of the answer. */
function createUser(agent: https.Agent, origin: string, token: string, email: string): Promise<number> {
  const body = JSON.stringify({ email, firstName: 'Api', lastName: 'Writer', tags: ['api'] });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = https.request(
      `${origin}/api/v5/users`,
      {
        method: 'POST',
        agent,
        rejectUnauthorized: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          if (response.statusCode !== 201) reject(new Error(`POST /users answered ${response.statusCode}: ${Buffer.concat(chunks).toString()}`));
          else resolve(performance.now() - started);
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** WRITERS clients creating users one after another until `until` settles; every create's milliseconds, sorted. */
async function createsUntil(origin: string, token: string, tag: string, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  const stop = () => (done = true);
  until.then(stop, stop);
  const agent = new https.Agent({ keepAlive: true, maxSockets: WRITERS });
  const times: number[] = [];
  try {
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        for (let n = 0; !done; n++) times.push(await createUser(agent, origin, token, `${tag}-${writer}-${n}@api.example`));
      }),
    );
  } finally {
    agent.destroy();
  }
  return times.sort((a, b) => a - b);
}

function peopleFile(dir: string, tag: string): string {
  const file = path.join(dir, `${tag}.csv`);
  const rows = Array.from({ length: USERS }, (_, n) => `${tag}${n}@import.example,Person,Number ${n},imported`);
  writeFileSync(file, ['email,firstName,lastName,tags', ...rows].join('\n'));
  return file;
}

interface Round {
  /** The import's IMPORT_BATCH_TIME. */
  batchTime: string;
  aloneP50: number;
  aloneP99: number;
  duringP50: number;
  duringP99: number;
  aloneCreates: number;
  duringCreates: number;
  /** Seconds of the import beside the creates, and of the same import alone. */
  importBeside: number;
  importAlone: number;
}

async function measureEngine(engine: Engine, runDir: string, tls: { certFile: string; keyFile: string }): Promise<Round[]> {
  const postgres = engine === 'postgres' ? await postgresDatabase(process.env.BENCH_POSTGRES_URL!, 'import_latency') : undefined;
  const databaseUrl = postgres?.url ?? `sqlite:${path.join(runDir, 'import-latency.db')}`;
  try {
    const handle = openDatabase(databaseUrl);
    await migrateToLatest(handle.db);
    const org = await organizationsRepository(handle.db).create('Import latency');
    const { token } = await tokensService(handle.db).create(org.id, { scopes: ['read', 'write'] });
    await handle.close();

    const profile = (name: string) => (process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.env.PROFILE_DIR, name)}`] : []);
    const server = await startApiServer({
      databaseUrl,
      dataDir: path.join(runDir, `data-${engine}`),
      ...tls,
      // A SQLite write waits for the import's batch to commit; on a loaded machine past the default 10 s.
      env: { DATABASE_STATEMENT_TIMEOUT: '60s' },
      nodeArgs: profile(`${engine}-server`),
    });
    const importFile = (file: string, batchTime: string | undefined) =>
      runCli(
        ['import', 'users', '--org', org.id, file],
        { DATABASE_URL: databaseUrl, ...(batchTime ? { IMPORT_BATCH_TIME: batchTime } : {}) },
        false,
        profile(`${engine}-import`),
      );
    try {
      // Warm-up: the server's statements prepared and its code compiled before anything is timed.
      await createsUntil(server.origin, token, 'warm', new Promise((resolve) => setTimeout(resolve, 1000)));
      const rounds: Round[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const batchTime of BATCH_TIMES) {
          const tag = `${round}-${batchTime ?? 'default'}`.replace(/[^a-z0-9-]/gi, '');
          const alone = await createsUntil(server.origin, token, `alone${tag}`, new Promise((resolve) => setTimeout(resolve, ALONE_SECONDS * 1000)));
          const started = performance.now();
          let importBeside = 0;
          const importing = importFile(peopleFile(runDir, `beside${tag}`), batchTime).then(
            () => (importBeside = (performance.now() - started) / 1000),
          );
          const during = await createsUntil(server.origin, token, `during${tag}`, importing);
          await importing;
          const importStarted = performance.now();
          await importFile(peopleFile(runDir, `alone${tag}`), batchTime);
          const importAlone = (performance.now() - importStarted) / 1000;
          const figures: Round = {
            batchTime: batchTime ?? 'default',
            aloneP50: percentile(alone, 0.5),
            aloneP99: percentile(alone, 0.99),
            duringP50: percentile(during, 0.5),
            duringP99: percentile(during, 0.99),
            aloneCreates: alone.length,
            duringCreates: during.length,
            importBeside,
            importAlone,
          };
          console.log(
            `  ${engine} round ${round + 1}, IMPORT_BATCH_TIME ${figures.batchTime}: creates alone p50 ${figures.aloneP50.toFixed(1)} ms, p99 ${figures.aloneP99.toFixed(1)} ms (${alone.length}); ` +
              `during the import p50 ${figures.duringP50.toFixed(1)} ms, p99 ${figures.duringP99.toFixed(1)} ms (${during.length}); ` +
              `import ${importBeside.toFixed(1)} s beside the creates, ${importAlone.toFixed(1)} s alone; load average ${os.loadavg()[0]!.toFixed(2)}`,
          );
          rounds.push(figures);
        }
      }
      return rounds;
    } finally {
      await server.stop();
    }
  } finally {
    await postgres?.drop();
  }
}

const engines: Engine[] = process.env.ENGINES
  ? (process.env.ENGINES.split(',') as Engine[])
  : process.env.BENCH_POSTGRES_URL
    ? ['sqlite', 'postgres']
    : ['sqlite'];
const runDir = mkdtempSync(path.join(os.tmpdir(), 'import-latency-'));
const loadAtStart = os.loadavg();
const results: {
  engine: Engine;
  batchTime: string;
  rounds: Round[];
  aloneP99: number;
  duringP99: number;
  ratio: number;
  importRatio: number;
  importAlone: number;
}[] = [];
try {
  await ensureSelfSignedCertificate(path.join(runDir, 'tls'));
  const tls = { certFile: path.join(runDir, 'tls', 'cert.pem'), keyFile: path.join(runDir, 'tls', 'key.pem') };
  console.log(
    `API creates during an import: ${engines.join(' and ')}, ${USERS} people, ${WRITERS} writers, ${ROUNDS} rounds; ` +
      `load average ${loadAtStart.map((load) => load.toFixed(2)).join(' ')}`,
  );
  for (const engine of engines) {
    const measured = await measureEngine(engine, runDir, tls);
    for (const batchTime of new Set(measured.map((round) => round.batchTime))) {
      const rounds = measured.filter((round) => round.batchTime === batchTime);
      const result = {
        engine,
        batchTime,
        rounds,
        aloneP99: median(rounds.map((round) => round.aloneP99)),
        duringP99: median(rounds.map((round) => round.duringP99)),
        ratio: median(rounds.map((round) => round.duringP99 / round.aloneP99)),
        importRatio: median(rounds.map((round) => round.importBeside / round.importAlone)),
        importAlone: median(rounds.map((round) => round.importAlone)),
      };
      results.push(result);
      const judged =
        result.aloneP99 < JUDGED_UNDER_MS ? (result.ratio <= TARGET_RATIO ? 'met' : 'NOT met') : `not judged (alone p99 >= ${JUDGED_UNDER_MS} ms)`;
      console.log(
        `${engine.padEnd(8)} IMPORT_BATCH_TIME ${batchTime}: POST /users p99 alone ${result.aloneP99.toFixed(1)} ms, during a ${USERS}-user import ` +
          `${result.duringP99.toFixed(1)} ms: ${result.ratio.toFixed(2)}x (target <= ${TARGET_RATIO}x: ${judged}); the import alone ` +
          `${result.importAlone.toFixed(1)} s, beside the creates ${result.importRatio.toFixed(2)}x that`,
      );
    }
  }
} finally {
  rmSync(runDir, { recursive: true, force: true });
}
const outDir = path.join(ROOT, 'bench', 'results');
mkdirSync(outDir, { recursive: true });
const file = path.join(outDir, `import-latency-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.json`);
writeFileSync(
  file,
  `${JSON.stringify({ users: USERS, writers: WRITERS, rounds: ROUNDS, loadavg: { start: loadAtStart, end: os.loadavg() }, results }, null, 2)}\n`,
);
console.log(`Load average at the end ${loadAverage()}; written to ${path.relative(process.cwd(), file)}`);
