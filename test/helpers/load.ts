import type { Reply } from './server-process.js';

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
