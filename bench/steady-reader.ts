/**
 * Another organization's reads, from a process of its own (forked by a bench), for as long as the
 * bench needs them: between a `start` and a `stop` message, `connections` loops each send GET
 * requests in turn from the paths given (a user by id, a page of the list), with the organization's
 * own token, paced to `rate` requests a second in all (as fast as they are answered when the server
 * falls behind). `stop` answers what was measured: latency by kind, the worst p99 of any window of
 * `windowSeconds`, and every answer other than 200 counted as a failure by status.
 */
import https from 'node:https';
import { performance } from 'node:perf_hooks';

export interface SteadyReadJob {
  origin: string;
  token: string;
  /** Paths of each kind, taken in turn (kinds alternate request by request). */
  paths: Record<string, string[]>;
  connections: number;
  /** Requests a second across all connections. */
  rate: number;
  windowSeconds?: number;
}

export interface LatencySummary {
  requests: number;
  p50: number;
  p99: number;
  max: number;
}

export interface SteadyReadResult {
  seconds: number;
  rps: number;
  all: LatencySummary;
  byKind: Record<string, LatencySummary>;
  /** The highest p99 of any window (of `windowSeconds`) with at least 10 requests. */
  worstWindowP99: number;
  /** Answers other than 200, by status, and request errors. */
  failures: Record<string, number>;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

export function summarize(latencies: readonly number[]): LatencySummary {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { requests: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? Number.NaN };
}

interface Sample {
  kind: string;
  at: number;
  ms: number;
}

/** Summarizes samples taken from `startedAt` to `endedAt` (performance.now() milliseconds). */
export function summarizeSamples(
  samples: readonly Sample[],
  failures: Record<string, number>,
  startedAt: number,
  endedAt: number,
  windowSeconds: number,
): SteadyReadResult {
  const kinds = new Map<string, number[]>();
  for (const sample of samples) {
    if (!kinds.has(sample.kind)) kinds.set(sample.kind, []);
    kinds.get(sample.kind)!.push(sample.ms);
  }
  const windows = new Map<number, number[]>();
  for (const sample of samples) {
    const window = Math.floor((sample.at - startedAt) / (windowSeconds * 1000));
    if (!windows.has(window)) windows.set(window, []);
    windows.get(window)!.push(sample.ms);
  }
  let worstWindowP99 = 0;
  for (const latencies of windows.values()) {
    if (latencies.length >= 10) worstWindowP99 = Math.max(worstWindowP99, summarize(latencies).p99);
  }
  const seconds = (endedAt - startedAt) / 1000;
  return {
    seconds,
    rps: samples.length / seconds,
    all: summarize(samples.map((sample) => sample.ms)),
    byKind: Object.fromEntries([...kinds].map(([kind, latencies]) => [kind, summarize(latencies)])),
    worstWindowP99,
    failures,
  };
}

let running: { stop(): Promise<SteadyReadResult> } | undefined;

function start(job: SteadyReadJob): { stop(): Promise<SteadyReadResult> } {
  const agent = new https.Agent({ keepAlive: true, maxSockets: job.connections, rejectUnauthorized: false });
  const samples: Sample[] = [];
  const failures: Record<string, number> = {};
  const kinds = Object.keys(job.paths);
  const cursors = new Map(kinds.map((kind) => [kind, 0]));
  let turn = 0;
  let stopping = false;
  const startedAt = performance.now();
  const interval = (1000 * job.connections) / job.rate;
  const next = (): { kind: string; path: string } => {
    const kind = kinds[turn++ % kinds.length]!;
    const paths = job.paths[kind]!;
    const cursor = cursors.get(kind)!;
    cursors.set(kind, cursor + 1);
    return { kind, path: paths[cursor % paths.length]! };
  };
  const once = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const request = https.request(
        `${job.origin}${path}`,
        { agent, headers: { authorization: `Bearer ${job.token}`, accept: 'application/json' } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end();
    });
  const loop = async (offset: number) => {
    let due = performance.now() + offset;
    while (!stopping) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (stopping) break;
      const { kind, path } = next();
      const sent = performance.now();
      try {
        const status = await once(path);
        const at = performance.now();
        if (status === 200) samples.push({ kind, at, ms: at - sent });
        else failures[status] = (failures[status] ?? 0) + 1;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        failures[code] = (failures[code] ?? 0) + 1;
      }
      due = Math.max(due + interval, performance.now() - interval);
    }
  };
  const loops = Array.from({ length: job.connections }, (_, n) => loop((n * interval) / job.connections));
  return {
    async stop() {
      stopping = true;
      await Promise.all(loops);
      agent.destroy();
      return summarizeSamples(samples, failures, startedAt, performance.now(), job.windowSeconds ?? 1);
    },
  };
}

// Only as a forked worker: the functions above are also imported by tests.
if (process.send) {
  process.on('message', (message: { id: number; start?: SteadyReadJob; stop?: boolean }) => {
    const answer = (result: unknown) => process.send!({ id: message.id, result });
    const fail = (error: unknown) =>
      process.send!({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    if (message.start) {
      if (running) return fail(new Error('already reading'));
      running = start(message.start);
      return answer({ started: true });
    }
    if (message.stop) {
      if (!running) return fail(new Error('not reading'));
      const reading = running;
      running = undefined;
      reading.stop().then(answer, fail);
    }
  });
  process.on('disconnect', () => process.exit(0));
}
