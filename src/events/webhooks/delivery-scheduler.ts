import type { FastifyBaseLogger } from 'fastify';
import type { Endpoint } from './webhooks.repository.js';

export interface SchedulerSettings {
  /** Deliveries in flight at once in this process, to all endpoints. */
  concurrency: number;
  /** Deliveries in flight at once in this process to one endpoint. */
  endpointConcurrency: number;
  /** How often the database is asked which endpoints have deliveries due. */
  pollIntervalMs: number;
}

/** What the scheduler drives: the database's queue and the attempts. */
interface DeliveryWork<T> {
  /** The endpoints with deliveries due now. */
  due(): Promise<Endpoint[]>;
  /** Claims up to `count` of each endpoint's due deliveries (fewer when it has no more): those of each, in the order asked. */
  claim(wants: readonly { endpoint: Endpoint; count: number }[]): Promise<T[][]>;
  /** Makes one attempt; resolves once its slot may go to another (its record may still be under way); never rejects. */
  attempt(item: T): Promise<void>;
}

/** One endpoint's queue, as this process sees it. */
interface Queue<T> {
  endpoint: Endpoint;
  inFlight: number;
  /** Whether it may have a delivery due: set by the poll and whenever one of its attempts ends. */
  due: boolean;
  /**
   * Claimed ahead, not started yet: each claim takes more than the free slots, so that one statement (and, with the
   * records it shares a transaction with, one commit) serves several rounds of attempts.
   */
  claimed: T[];
  /** How long its attempts have held a slot, on average (the last ones counting most); undefined before the first. */
  meanMs: number | undefined;
}

/** Extra options of the scheduler. */
export interface SchedulerOptions {
  /**
   * How long after its claim a delivery may still start: an endpoint claims ahead at most what its slots are
   * expected to start within half of it, at its attempts' mean duration. Without it, a slot's worth.
   */
  startWithinMs?: number;
}

/** An endpoint claims ahead at most this many slots' worth. */
const MAX_AHEAD_ROUNDS = 16;
/** Claimed ahead in the process, across endpoints, at most (but for a slot's worth each): this many times its slots. */
const AHEAD_PER_SLOT = 2;
/** The weight of the last attempt in an endpoint's mean duration. */
const MEAN_WEIGHT = 0.2;

const keyOf = (endpoint: Endpoint): string => `${endpoint.orgId}/${endpoint.webhookId}`;

/**
 * Runs the deliveries of every endpoint, each endpoint a queue of its own: a slow, hanging or failing
 * endpoint holds at most `endpointConcurrency` of the process's `concurrency` slots, and only delays
 * itself. Scheduling is continuous: when an attempt ends, its slot goes at once to the next endpoint
 * in turn (round robin) that has a delivery due and a slot of its own free; the poll finds the
 * endpoints whose deliveries became due meanwhile (new events, retries, other instances' leases).
 */
export function startScheduler<T>(
  settings: SchedulerSettings,
  work: DeliveryWork<T>,
  log: FastifyBaseLogger,
  options: SchedulerOptions = {},
): { stop(): Promise<void>; wake(endpoint: Endpoint): void } {
  const queues = new Map<string, Queue<T>>();
  /** Where the round robin resumes: the key of the queue served last. */
  let lastServed: string | undefined;
  let inFlight = 0;
  const attempts = new Set<Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let filling: Promise<void> | undefined;
  let fillAgain = false;
  let polling: Promise<void> = Promise.resolve();

  /**
   * The free slots handed out one at a time, in turn, to the endpoints with a delivery due and a slot
   * of their own free, from the one after the last served: how many each is to claim.
   */
  function allocate(): Map<Queue<T>, number> {
    const all = [...queues.values()];
    const start = lastServed === undefined ? 0 : all.findIndex((queue) => keyOf(queue.endpoint) === lastServed) + 1;
    const ready = [...all.slice(start), ...all.slice(0, start)].filter((queue) => queue.due || queue.claimed.length > 0);
    const plan = new Map<Queue<T>, number>();
    let free = settings.concurrency - inFlight;
    for (let given = true; given && free > 0;) {
      given = false;
      for (const queue of ready) {
        const planned = plan.get(queue) ?? 0;
        if (free === 0 || queue.inFlight + planned >= settings.endpointConcurrency) continue;
        plan.set(queue, planned + 1);
        lastServed = keyOf(queue.endpoint);
        free--;
        given = true;
      }
    }
    return plan;
  }

  /**
   * How many deliveries the endpoint claims beyond its free slots, in a claim serving `endpoints` endpoints: a
   * slot's worth, or, when its attempts are quick, as many as its slots will start within half of
   * `startWithinMs` at their mean duration (a fast receiver's deliveries then cost one claim and one commit per
   * many rounds), within its share of what the process may still hold ahead (`AHEAD_PER_SLOT` times its slots).
   */
  function ahead(queue: Queue<T>, endpoints: number, held: number): number {
    const slotsWorth = settings.endpointConcurrency;
    if (options.startWithinMs === undefined || queue.meanMs === undefined) return slotsWorth;
    const rounds = Math.min(MAX_AHEAD_ROUNDS, Math.floor(options.startWithinMs / 2 / Math.max(queue.meanMs, 1)));
    const share = Math.floor(Math.max(0, AHEAD_PER_SLOT * settings.concurrency - held) / endpoints);
    return Math.max(slotsWorth, Math.min(rounds * slotsWorth, share));
  }

  function begin(queue: Queue<T>, item: T): void {
    queue.inFlight++;
    inFlight++;
    const started = performance.now();
    const attempt = work.attempt(item).finally(() => {
      const heldMs = performance.now() - started;
      queue.meanMs = queue.meanMs === undefined ? heldMs : queue.meanMs + MEAN_WEIGHT * (heldMs - queue.meanMs);
      attempts.delete(attempt);
      queue.inFlight--;
      inFlight--;
      // The end of an attempt may have released the next delivery of its resource.
      queue.due = true;
      fill();
    });
    attempts.add(attempt);
  }

  /** Hands out the free slots, and claims for every endpoint given some in one statement. */
  async function fillSlots(): Promise<void> {
    for (let plan = allocate(); !stopped && plan.size > 0; plan = allocate()) {
      const wants: { queue: Queue<T>; missing: number; count: number }[] = [];
      for (const [queue, wanted] of plan) {
        const claimedAhead = queue.claimed.splice(0, wanted);
        for (const item of claimedAhead) begin(queue, item);
        const missing = wanted - claimedAhead.length;
        if (missing > 0 && queue.due) wants.push({ queue, missing, count: missing });
      }
      if (wants.length === 0) continue;
      let held = 0;
      for (const queue of queues.values()) held += queue.claimed.length;
      for (const want of wants) want.count += ahead(want.queue, wants.length, held);
      let claimed: T[][];
      try {
        claimed = await work.claim(wants.map(({ queue, count }) => ({ endpoint: queue.endpoint, count })));
      } catch (error) {
        log.error({ err: error }, 'claiming webhook deliveries failed');
        claimed = [];
      }
      for (const [index, { queue, missing, count }] of wants.entries()) {
        const items = claimed[index] ?? [];
        if (items.length < count) queue.due = false;
        for (const item of items.slice(0, missing)) begin(queue, item);
        queue.claimed.push(...items.slice(missing));
      }
    }
  }

  function fill(): void {
    if (filling) {
      fillAgain = true;
      return;
    }
    filling = fillSlots().finally(() => {
      filling = undefined;
      if (fillAgain && !stopped) {
        fillAgain = false;
        fill();
      }
    });
  }

  async function poll(): Promise<void> {
    try {
      const due = new Set<string>();
      for (const endpoint of await work.due()) {
        const key = keyOf(endpoint);
        due.add(key);
        const queue = queues.get(key);
        if (queue) queue.due = true;
        else queues.set(key, { endpoint, inFlight: 0, due: true, claimed: [], meanMs: undefined });
      }
      // Endpoints deleted, disabled or with nothing left are forgotten once idle.
      for (const [key, queue] of queues) if (!due.has(key) && !queue.due && queue.inFlight === 0 && queue.claimed.length === 0) queues.delete(key);
      fill();
    } catch (error) {
      log.error({ err: error }, 'looking for due webhook deliveries failed');
    }
    if (!stopped) {
      timer = setTimeout(() => {
        polling = poll();
      }, settings.pollIntervalMs);
    }
  }

  polling = poll();
  return {
    /** The endpoint may have a delivery due (a record released the next of its resource). */
    wake(endpoint: Endpoint) {
      const queue = queues.get(keyOf(endpoint));
      if (!queue || stopped) return;
      queue.due = true;
      fill();
    },
    /** Waits for the attempts under way. */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await polling;
      await filling;
      await Promise.all(attempts);
    },
  };
}
