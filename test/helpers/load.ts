import assert from 'node:assert/strict';
import { newId } from '../../src/lib/ids.js';
import { createdId, type Reply, type ServerProcess } from './server-process.js';

export interface Outcome extends Reply {
  /** What the worker did ('create', 'read', ...). */
  kind: string;
  worker: number;
  /** When the request was sent, in ms on the `performance.now()` clock. */
  sentAt: number;
}

export type Operation = (worker: number, step: number) => Promise<{ kind: string; reply: Reply }>;

/**
 * `workers` concurrent clients each running `operation` again and again while `during` runs (the
 * fault); then every client finishes the request it has in flight. Returns every outcome. `during`
 * is given `served()`, the number of requests answered so far, to wait for progress rather than time.
 */
export async function underLoad(workers: number, operation: Operation, during: (served: () => number) => Promise<void>): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let stopped = false;
  const loop = async (worker: number) => {
    for (let step = 0; !stopped; step += 1) {
      const sentAt = performance.now();
      const { kind, reply } = await operation(worker, step);
      outcomes.push({ ...reply, kind, worker, sentAt });
    }
  };
  const running = Array.from({ length: workers }, (_, worker) => loop(worker));
  try {
    await during(() => outcomes.length);
  } finally {
    stopped = true;
    await Promise.all(running);
  }
  return outcomes;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How many outcomes had each status, as `{ "201": 40, "503": 3 }`. */
export function statusCounts(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) counts[outcome.status] = (counts[outcome.status] ?? 0) + 1;
  return counts;
}

/** The body of the documented 503 while the database does not answer. */
const UNAVAILABLE = '{"errors":["The database is unavailable"]}';

/** The only answers a client may see during a database fault: success, or the documented 503 with Retry-After and its request id. */
export function assertOnlySuccessOrUnavailable(outcomes: readonly Outcome[]): void {
  for (const outcome of outcomes) {
    if (outcome.status >= 200 && outcome.status < 300) continue;
    assert.equal(outcome.status, 503, `${outcome.kind}: ${outcome.status} ${outcome.body}`);
    assert.equal(outcome.body, UNAVAILABLE);
    assert.ok(Number(outcome.headers['retry-after']) > 0, 'Retry-After');
    assert.ok(outcome.headers['x-request-id'], 'X-Request-Id');
  }
}

/** A load's create: a user with an email of its own, whose id joins `created` once it is acknowledged with 201. */
export async function createUserUnderLoad(server: ServerProcess, token: string, worker: number, step: number, created: Set<string>) {
  const reply = await server.request('POST', 'users', {
    token,
    body: { email: `w${worker}-${step}-${newId()}@example.com`, firstName: `Worker ${worker}` },
    timeoutMs: 15_000,
  });
  const id = createdId(reply);
  if (id) created.add(id);
  return { kind: 'create', reply };
}
