/**
 * `npm run bench`: the API server as users run it (its own process, HTTPS, keep-alive), loaded by
 * autocannon from another process, side by side with its floor (a bare node:https server answering
 * the same bytes, or the raw password hash rate) in interleaved rounds: floor, server, floor,
 * server... Medians and paired ratios go to a table and a JSON file under bench/results/.
 * `--profile` instead records CPU profiles of the server under load and summarizes them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureSelfSignedCertificate } from '../src/server/tls-certificate.js';
import { ensureDataset, LARGE, sampleOf, SMALL, workingCopy, type WorkingCopy } from './datasets.js';
import type { FloorAnswer, HashRate } from './floor-server.js';
import type { LoadJob, LoadResult } from './load-generator.js';
import { parseOptions, USAGE, type BenchOptions, type Engine } from './options.js';
import { cpuSeconds, forkWorker, ROOT, rssBytes, startApiServer, type ApiServer, type Worker } from './processes.js';
import { summarizeProfile, formatSummary, type ProfileSummary } from './profile-summary.js';
import { newReport, summarize, tableOf, writeReport, type Round, type RunReport, type ScenarioResult, type TargetKind } from './report.js';
import { requestOf, selectScenarios, type RequestPlan, type Sample, type Scenario } from './scenarios.js';

/** The scenarios the profiles are taken of. */
const PROFILED = ['get-user', 'list-100', 'create-user'];

interface Context {
  options: BenchOptions;
  runDir: string;
  certFile: string;
  keyFile: string;
  floor: Worker;
  floorOrigin: string;
  load: Worker;
  runTag: string;
  /** The floor answers every scenario with the same code: warmed up once, in the first scenario. */
  floorWarm?: boolean;
}

interface Response {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** One request, to learn what the server answers (and that it answers 2xx). */
function requestOnce(origin: string, token: string, method: string, pathname: string, body?: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      `${origin}${pathname}`,
      {
        method,
        rejectUnauthorized: false,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers[name] = value;
          resolve({ status: response.statusCode!, headers, body: Buffer.concat(chunks) });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

interface Target {
  name: string;
  kind: TargetKind;
  origin?: string;
  pid?: number;
  token?: string;
  plan: RequestPlan;
  planKey: string;
}

interface RunningDataset {
  label: string;
  copy: WorkingCopy;
  server: ApiServer;
  sample: Sample;
}

/** One round against one target, with the target's CPU and memory over that round. */
async function measure(context: Context, target: Target, seconds: number, connections = context.options.connections): Promise<Round> {
  if (target.kind === 'hash-floor') {
    const hash = await context.floor.call<HashRate>({ type: 'hash', seconds, concurrency: context.options.connections });
    return { rps: hash.rate, p50: Number.NaN, p99: Number.NaN, cpuPercent: hash.cpuPercent, failures: {} };
  }
  const cpuBefore = cpuSeconds(target.pid!);
  const started = performance.now();
  const job: LoadJob = {
    origin: target.origin!,
    token: target.token,
    planKey: target.planKey,
    plan: target.plan,
    connections,
    seconds,
  };
  const result = await context.load.call<LoadResult>({ job });
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = cpuSeconds(target.pid!);
  const rss = rssBytes(target.pid!);
  return {
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    cpuPercent: cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) / elapsed) * 100,
    rssMB: rss === undefined ? undefined : rss / 1024 ** 2,
    loadCpuPercent: result.cpuPercent,
    failures: result.exhausted ? { ...result.failures, exhausted: 1 } : result.failures,
  };
}

async function benchScenario(
  context: Context,
  engine: Engine,
  scenario: Scenario,
  datasets: RunningDataset[],
  references: Reference[],
): Promise<ScenarioResult> {
  const loadStart = os.loadavg();
  const [main, ...others] = datasets;
  const plan = scenario.plan(main!.sample, context.runTag);
  // A consumed plan's last path is spare: the probe may use it up.
  const probe = requestOf(plan, plan.consume ? plan.paths.length - 1 : 0, 'probe');
  const response = await requestOnce(main!.server.origin, main!.copy.dataset.token, plan.method, probe.path, probe.body);
  if (response.status >= 300) throw new Error(`${scenario.title} answered ${response.status}: ${response.body.toString()}`);

  const targets: Target[] = [];
  const planKey = (name: string) => `${engine}/${scenario.id}/${name}`;
  if (scenario.hashFloor) {
    targets.push({ name: 'hash floor', kind: 'hash-floor', plan, planKey: planKey('hash') });
  } else {
    const answer: FloorAnswer = { status: response.status, headers: {}, body: response.body };
    for (const header of ['content-type', 'location']) if (response.headers[header]) answer.headers[header] = response.headers[header]!;
    await context.floor.call({ type: 'answer', answer });
    targets.push({ name: 'floor', kind: 'floor', origin: context.floorOrigin, pid: context.floor.pid, plan, planKey: planKey('floor') });
  }
  for (const dataset of scenario.scale ? [main!, ...others] : [main!]) {
    targets.push({
      name: `server ${dataset.label}`,
      kind: 'server',
      origin: dataset.server.origin,
      pid: dataset.server.pid,
      token: dataset.copy.dataset.token,
      plan: dataset === main ? plan : scenario.plan(dataset.sample, context.runTag),
      planKey: planKey(dataset.label),
    });
  }
  for (const { scenarios, ...reference } of references) {
    if (scenarios.includes(scenario.id)) targets.push({ ...reference, plan, planKey: planKey(reference.name) });
  }

  const { rounds, seconds, warmupSeconds } = context.options;
  const connections = scenario.connections ?? context.options.connections;
  for (const target of targets) {
    if (target.kind === 'floor' && context.floorWarm) continue;
    await measure(context, target, warmupSeconds, connections);
  }
  context.floorWarm = true;
  const measured = new Map<Target, Round[]>(targets.map((target) => [target, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const target of targets) measured.get(target)!.push(await measure(context, target, seconds, connections));
  }

  const floorRounds = measured.get(targets[0]!)!;
  const hash = scenario.hashFloor ? await context.floor.call<HashRate>({ type: 'hash', seconds: 0.2, concurrency: 1 }) : undefined;
  return {
    engine,
    scenario: scenario.id,
    title: scenario.title,
    status: response.status,
    responseBytes: response.body.byteLength,
    ...(hash ? { hashScheme: hash.scheme } : {}),
    loadavg: { start: loadStart, end: os.loadavg() },
    targets: targets.map((target) => {
      const result = summarize(target.name, target.kind, measured.get(target)!, target === targets[0] ? undefined : floorRounds);
      if (result.failures.exhausted) result.exhausted = true;
      delete result.failures.exhausted;
      return result;
    }),
  };
}

async function startDataset(context: Context, engine: Engine, spec: typeof SMALL, report: RunReport, nodeArgs?: string[]): Promise<RunningDataset> {
  const { options } = context;
  const dataset = await ensureDataset(engine, spec, options.postgresUrl);
  report.datasets.push({
    engine,
    label: spec.label,
    users: spec.users,
    userfieldValues: spec.userfieldValues,
    registrations: spec.registrations,
    seedSeconds: dataset.seedSeconds,
  });
  const copy = await workingCopy(dataset, context.runDir, options.postgresUrl);
  const sampled = await sampleOf(copy);
  const server = await startApiServer({
    databaseUrl: copy.databaseUrl,
    dataDir: path.join(context.runDir, `data-${engine}-${spec.label}`),
    certFile: context.certFile,
    keyFile: context.keyFile,
    nodeArgs,
  });
  const values = await requestOnce(server.origin, dataset.token, 'GET', `/api/v5/users/${sampled.userIds[0]}/userfieldvalues`);
  return { label: spec.label, copy, server, sample: { ...sampled, userfieldValues: JSON.parse(values.body.toString()) as Record<string, unknown> } };
}

async function stopDataset(dataset: RunningDataset): Promise<void> {
  await dataset.server.stop();
  await dataset.copy.dispose();
}

/** The Fastify reference servers of each engine, with the scenarios each answers, on the small dataset. */
const REFERENCES = [
  { name: 'fastify+schema', mode: 'fastify', scenarios: ['get-user'] },
  { name: 'fastify+sqlite', mode: 'fastify-sqlite', scenarios: ['get-user', 'list-100', 'create-user'] },
  // Only the one with duties checks a token; the others are measured as they always were.
  { name: 'fastify+duties', mode: 'fastify-duties', scenarios: ['get-user', 'create-user'], token: true },
] as const;
const POSTGRES_REFERENCES = [
  { name: 'fastify+pg', mode: 'fastify-postgres', scenarios: ['get-user', 'list-100', 'create-user'] },
  { name: 'fastify+pg+duties', mode: 'fastify-postgres-duties', scenarios: ['get-user', 'create-user'], token: true },
] as const;

interface Reference extends Target {
  scenarios: readonly string[];
}

async function startReferences(
  context: Context,
  engine: Engine,
  main: RunningDataset,
  scenarios: Scenario[],
  nodeArgs: (mode: string) => string[] = () => [],
): Promise<{ targets: Reference[]; workers: Worker[] }> {
  const wanted = (engine === 'sqlite' ? REFERENCES : POSTGRES_REFERENCES).filter((reference) =>
    reference.scenarios.some((id) => scenarios.some((scenario) => scenario.id === id)),
  );
  if (wanted.length === 0) return { targets: [], workers: [] };
  const user = await requestOnce(main.server.origin, main.copy.dataset.token, 'GET', `/api/v5/users/${main.sample.userIds[0]}`);
  const database = engine === 'sqlite' ? main.copy.databaseUrl.slice('sqlite:'.length) : main.copy.databaseUrl;
  const args = [context.certFile, context.keyFile, user.body.toString(), database, main.copy.dataset.orgId];
  const workers = wanted.map((reference) => forkWorker('reference-server.js', [reference.mode, ...args], nodeArgs(reference.mode)));
  const targets: Reference[] = [];
  for (const [index, worker] of workers.entries()) {
    const reference = wanted[index]!;
    const { port } = (await worker.ready.catch(async (error: unknown) => {
      for (const other of workers) await other.stop();
      throw error;
    })) as { port: number };
    targets.push({
      name: reference.name,
      kind: 'reference',
      origin: `https://127.0.0.1:${port}`,
      pid: worker.pid,
      ...('token' in reference ? { token: main.copy.dataset.token } : {}),
      plan: { method: 'GET', paths: [] },
      planKey: reference.name,
      scenarios: reference.scenarios,
    });
  }
  return { targets, workers };
}

async function benchEngine(context: Context, engine: Engine, scenarios: Scenario[], report: RunReport): Promise<void> {
  const { options } = context;
  const datasets = [await startDataset(context, engine, SMALL, report)];
  const workers: Worker[] = [];
  try {
    if (options.scale && scenarios.some((scenario) => scenario.scale)) datasets.push(await startDataset(context, engine, LARGE, report));
    let references: Reference[] = [];
    if (options.references) {
      const started = await startReferences(context, engine, datasets[0]!, scenarios);
      references = started.targets;
      workers.push(...started.workers);
    }
    for (const scenario of scenarios) {
      const result = await benchScenario(context, engine, scenario, datasets, references);
      report.scenarios.push(result);
      console.log(tableOf([result]).split('\n').slice(1).join('\n'));
    }
  } finally {
    for (const worker of workers) await worker.stop();
    for (const dataset of datasets) await stopDataset(dataset);
  }
}

/** `target` under the scenario's load: the window of the measured part (the profile's clock) and its figures. */
async function loadWindow(context: Context, target: Target, seconds: number): Promise<{ window: [number, number]; round: Round }> {
  await measure(context, target, context.options.warmupSeconds);
  const start = Number(process.hrtime.bigint() / 1000n);
  const round = await measure(context, target, seconds);
  return { window: [start, Number(process.hrtime.bigint() / 1000n)], round };
}

/**
 * CPU profiles of the server under load, one server process per scenario, then of each platform
 * reference of the scenario under the same load; summaries printed and written beside them, with
 * a table of each one's busy time per request by module group, side by side.
 */
async function profileEngine(context: Context, engine: Engine, scenarios: Scenario[], report: RunReport, profileDir: string): Promise<void> {
  const seconds = context.options.quick ? 5 : 15;
  const profileArgs = (name: string) => ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', `${name}.cpuprofile`];
  for (const scenario of scenarios) {
    const name = `${engine}-${scenario.id}`;
    const referenceName = (mode: string) => `${name}-reference-${mode}`;
    const runs: { name: string; target: string; window: [number, number]; round: Round }[] = [];
    const dataset = await startDataset(context, engine, SMALL, report, profileArgs(name));
    const workers: Worker[] = [];
    try {
      const server: Target = {
        name: 'server',
        kind: 'server',
        origin: dataset.server.origin,
        pid: dataset.server.pid,
        token: dataset.copy.dataset.token,
        plan: scenario.plan(dataset.sample, context.runTag),
        planKey: `profile/${name}`,
      };
      runs.push({ name, target: 'the server', ...(await loadWindow(context, server, seconds)) });
      if (context.options.references) {
        // On the server's copy of the dataset, as in the measured runs; each reference loaded alone.
        const started = await startReferences(context, engine, dataset, [scenario], (mode) => profileArgs(referenceName(mode)));
        workers.push(...started.workers);
        for (const reference of started.targets) {
          if (!reference.scenarios.includes(scenario.id)) continue;
          const { mode } = (engine === 'sqlite' ? REFERENCES : POSTGRES_REFERENCES).find((known) => known.name === reference.name)!;
          const target = { ...reference, plan: scenario.plan(dataset.sample, context.runTag), planKey: `profile/${reference.name}/${scenario.id}` };
          runs.push({ name: referenceName(mode), target: reference.name, ...(await loadWindow(context, target, seconds)) });
        }
      }
    } finally {
      // Each profile is written as its process exits.
      for (const worker of workers) await worker.stop();
      await stopDataset(dataset);
    }
    const profiled = runs.map((run) => {
      const summary = summarizeProfile(path.join(profileDir, `${run.name}.cpuprofile`), run.window);
      writeProfile(profileDir, run.name, scenario, engine, seconds, context.options.connections, summary, run.round, run.target);
      return { name: run.target === 'the server' ? 'server' : run.target, summary, rps: run.round.rps };
    });
    if (profiled.length > 1) {
      const table = busyTimeTable(scenario.title, engine, profiled);
      writeFileSync(path.join(profileDir, `${name}-side-by-side.txt`), `${table}\n`);
      console.log(`\n${table}`);
    }
  }
}

function writeProfile(
  profileDir: string,
  name: string,
  scenario: Scenario,
  engine: Engine,
  seconds: number,
  connections: number,
  summary: ProfileSummary,
  round: Round,
  target = 'the server',
): void {
  const text = `${scenario.title} on ${engine}, ${target}: ${Math.round(round.rps)} req/s during the profile, ${seconds} s at ${connections} connections\n\n${formatSummary(summary)}\n`;
  writeFileSync(path.join(profileDir, `${name}.txt`), text);
  writeFileSync(
    path.join(profileDir, `${name}.json`),
    `${JSON.stringify({ scenario: scenario.id, engine, target, rps: round.rps, ...summary }, null, 2)}\n`,
  );
  console.log(`\n${text}`);
}

/** Each profiled target's busy time per request (µs), in all and by module group, side by side. */
function busyTimeTable(title: string, engine: Engine, profiled: { name: string; summary: ProfileSummary; rps: number }[]): string {
  const perRequest = ({ summary, rps }: (typeof profiled)[number]) =>
    (summary.windowMs * 1000 * (1 - summary.idlePercent / 100)) / (rps * (summary.windowMs / 1000));
  const groups = [...new Set(profiled.flatMap(({ summary }) => summary.groups.map((group) => group.name)))];
  const width = Math.max(...groups.map((group) => group.length));
  const cell = (value: number) => value.toFixed(1).padStart(18);
  const lines = [
    `${title} on ${engine}: busy time per request (µs of the main thread, from the profiles' samples)`,
    `${''.padEnd(width)}${profiled.map(({ name }) => name.padStart(18)).join('')}`,
    `${'all'.padEnd(width)}${profiled.map((target) => cell(perRequest(target))).join('')}`,
  ];
  for (const group of groups) {
    const shares = profiled.map(
      (target) => (perRequest(target) * (target.summary.groups.find((share) => share.name === group)?.selfPercent ?? 0)) / 100,
    );
    if (shares.every((share) => share < 0.05)) continue;
    lines.push(`${group.padEnd(width)}${shares.map(cell).join('')}`);
  }
  return lines.join('\n');
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2), process.env, path.join(ROOT, 'bench', 'results'));
  } catch (error) {
    console.error(`bench: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  const scenarios = selectScenarios(options.profile && options.scenarios.length === 0 ? PROFILED : options.scenarios);
  const report = newReport(options.quick ? 'quick' : 'full', process.argv.slice(2), {
    connections: options.connections,
    rounds: options.rounds,
    seconds: options.seconds,
    warmupSeconds: options.warmupSeconds,
  });
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'training-api-bench-'));
  await ensureSelfSignedCertificate(path.join(runDir, 'tls'));
  const floor = forkWorker('floor-server.js', [path.join(runDir, 'tls', 'cert.pem'), path.join(runDir, 'tls', 'key.pem')]);
  const load = forkWorker('load-generator.js');
  const context: Context = {
    options,
    runDir,
    certFile: path.join(runDir, 'tls', 'cert.pem'),
    keyFile: path.join(runDir, 'tls', 'key.pem'),
    floor,
    floorOrigin: `https://127.0.0.1:${((await floor.ready) as { port: number }).port}`,
    load,
    runTag: Date.now().toString(36),
  };
  console.log(
    `${options.profile ? 'Profiling' : 'Benchmark'}: ${options.engines.join(' and ')}; ${options.connections} connections; ` +
      `${options.rounds} interleaved rounds of ${options.seconds} s per target after ${options.warmupSeconds} s of warm-up; ` +
      `load average ${report.loadavg.start.map((load) => load.toFixed(2)).join(' ')}`,
  );
  try {
    if (options.profile) {
      const profileDir = path.join(options.outDir, 'profiles', report.startedAt.slice(0, 19).replace(/:/g, '-'));
      mkdirSync(profileDir, { recursive: true });
      for (const engine of options.engines) await profileEngine(context, engine, scenarios, report, profileDir);
      console.log(`Profiles and summaries in ${path.relative(process.cwd(), profileDir)}`);
      return 0;
    }
    console.log(tableOf([]));
    for (const engine of options.engines) await benchEngine(context, engine, scenarios, report);
  } finally {
    await floor.stop();
    await load.stop();
    rmSync(runDir, { recursive: true, force: true });
  }
  report.finishedAt = new Date().toISOString();
  report.loadavg.end = os.loadavg();
  const file = writeReport(report, options.outDir);
  console.log(
    `\n${tableOf(report.scenarios)}\n\nLoad average ${report.loadavg.start.map((l) => l.toFixed(2)).join(' ')} at the start, ${report.loadavg.end.map((l) => l.toFixed(2)).join(' ')} at the end.`,
  );
  console.log(`Written to ${path.relative(process.cwd(), file)}`);
  return 0;
}

process.exitCode = await main().catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
});
