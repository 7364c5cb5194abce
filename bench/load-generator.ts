/**
 * The load generator: a process of its own (forked by the harness), so its CPU is never the
 * server's. Each message is one timed run of autocannon against one target; the answer is what
 * the run measured.
 */
import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { requestOf, type RequestPlan } from './scenarios.js';

export interface LoadJob {
  origin: string;
  token?: string;
  /** Identifies the plan across rounds: a consumed plan continues where the last run stopped. */
  planKey: string;
  plan: RequestPlan;
  connections: number;
  seconds: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** Responses outside 2xx (and the plan's expected status), by status code, and connection errors or timeouts. */
  failures: Record<string, number>;
  /** A consumed plan ran out of paths and started over (its later requests measure something else). */
  exhausted: boolean;
  /** The generator's own CPU time over the run, in percent of one core. */
  cpuPercent: number;
}

const cursors = new Map<string, number>();
let unique = 0;

async function runJob(job: LoadJob): Promise<LoadResult> {
  const { plan } = job;
  let cursor = cursors.get(job.planKey) ?? 0;
  const headers: Record<string, string> = {};
  if (job.token) headers.authorization = `Bearer ${job.token}`;
  if (plan.body !== undefined || plan.bodies !== undefined) headers['content-type'] = 'application/json';
  Object.assign(headers, plan.headers);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await autocannon({
    url: job.origin,
    connections: job.connections,
    duration: job.seconds,
    headers,
    requests: [
      {
        method: plan.method,
        setupRequest: (request) => {
          const { path, body, token } = requestOf(plan, cursor++, unique++);
          request.path = path;
          if (body !== undefined) request.body = body;
          if (token !== undefined) request.headers = { ...request.headers, authorization: `Bearer ${token}` };
          return request;
        },
      },
    ],
  });
  cursors.set(job.planKey, cursor);
  const cpu = process.cpuUsage(cpuBefore);
  const elapsedMs = performance.now() - started;
  const failures: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    if (!status.startsWith('2') && Number(status) !== plan.expect) failures[status] = count ?? 0;
  }
  if (result.errors) failures.errors = result.errors;
  if (result.timeouts) failures.timeouts = result.timeouts;
  const completed = result.requests.total;
  return {
    requests: completed,
    seconds: result.duration,
    rps: completed / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures,
    exhausted: plan.consume === true && cursor > plan.paths.length,
    cpuPercent: ((cpu.user + cpu.system) / 1000 / elapsedMs) * 100,
  };
}

process.on('message', (message: { id: number; job: LoadJob }) => {
  runJob(message.job).then(
    (result) => process.send!({ id: message.id, result }),
    (error: Error) => process.send!({ id: message.id, error: error.stack ?? String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
