import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { startScheduler, type SchedulerOptions } from '../../src/events/webhooks/delivery-scheduler.js';
import { leaseMs, sharedDeadline, startsWithinLease } from '../../src/events/webhooks/delivery-worker.js';
import type { Endpoint } from '../../src/events/webhooks/webhooks.repository.js';
import { sleep } from '../helpers/load.js';

// How much the scheduler claims ahead of its free slots: a slot's worth, or, for endpoints whose attempts are
// quick, as many as their slots start within half of the time a claimed delivery may wait to start, so that a fast
// receiver's deliveries cost one claim (and one commit) per many rounds; never more than the claim's share of twice
// the process's slots.

const log = { error() {}, warn() {}, info() {} } as unknown as FastifyBaseLogger;

interface Claim {
  endpoint: string;
  /** Slots free for the endpoint when it claimed. */
  missing: number;
  count: number;
  /** Deliveries claimed and not started yet, of every endpoint, with those of this claim beyond its free slots. */
  held: number;
}

/**
 * Drains `perEndpoint` deliveries from each of `endpoints` endpoints, each attempt taking `attemptMs`, and returns
 * every count claimed with the slots the endpoint had free.
 */
async function drain(
  endpoints: number,
  perEndpoint: number,
  attemptMs: number,
  settings: { concurrency: number; endpointConcurrency: number },
  options: SchedulerOptions,
): Promise<Claim[]> {
  const left = new Map(Array.from({ length: endpoints }, (_, n) => [`org/${n}`, perEndpoint]));
  const claims: Claim[] = [];
  let inFlight = new Map<string, number>();
  let delivered = 0;
  let claimedInAll = 0;
  let started = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const scheduler = startScheduler<string>(
    { ...settings, pollIntervalMs: 10_000 },
    {
      due: async () => [...left.keys()].map((key) => ({ orgId: 'org', webhookId: key.slice('org/'.length) }) satisfies Endpoint),
      async claim(wants) {
        return wants.map(({ endpoint, count }) => {
          const key = `${endpoint.orgId}/${endpoint.webhookId}`;
          const free = settings.endpointConcurrency - (inFlight.get(key) ?? 0);
          const taken = Math.min(count, left.get(key) ?? 0);
          claimedInAll += taken;
          claims.push({ endpoint: key, missing: free, count, held: claimedInAll - started - Math.min(free, taken) });
          left.set(key, (left.get(key) ?? 0) - taken);
          return Array.from({ length: taken }, () => key);
        });
      },
      async attempt(key) {
        started++;
        inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
        await sleep(attemptMs);
        inFlight.set(key, inFlight.get(key)! - 1);
        if (++delivered === endpoints * perEndpoint) done();
      },
    },
    log,
    options,
  );
  await finished;
  await scheduler.stop();
  inFlight = new Map();
  return claims;
}

describe('the delivery scheduler’s claims ahead', () => {
  const settings = { concurrency: 200, endpointConcurrency: 8 };

  it('takes a slot’s worth ahead when the time to start is not given', async () => {
    const claims = await drain(1, 400, 1, settings, {});
    assert.ok(claims.length > 0);
    for (const claim of claims) assert.ok(claim.count <= claim.missing + 8, `a claim of ${claim.count} with ${claim.missing} slots free`);
  });

  it('takes many rounds ahead for an endpoint that answers at once, within a bound', async () => {
    const claims = await drain(1, 2000, 1, settings, { startWithinMs: 10_000 });
    const largest = Math.max(...claims.map((claim) => claim.count - claim.missing));
    assert.ok(largest > 8, `at most ${largest} claimed ahead`);
    assert.ok(largest <= 16 * 8, `${largest} claimed ahead`);
    // The first claim knows nothing of the endpoint yet: a slot's worth.
    assert.ok(claims[0]!.count <= claims[0]!.missing + 8);
    // Fewer claims than one per slot's worth: 2,000 deliveries in 16 at a time would be 125.
    assert.ok(claims.length < 60, `${claims.length} claims`);
  });

  it('takes a slot’s worth ahead for an endpoint whose attempts take long against the time to start', async () => {
    const claims = await drain(1, 60, 30, settings, { startWithinMs: 100 });
    for (const claim of claims) assert.ok(claim.count <= claim.missing + 8, `a claim of ${claim.count} with ${claim.missing} slots free`);
  });

  it('holds ahead, across endpoints, at most twice the process’s slots beyond a slot’s worth each', async () => {
    const claims = await drain(100, 100, 1, settings, { startWithinMs: 10_000 });
    const most = Math.max(...claims.map((claim) => claim.held));
    assert.ok(most <= 2 * 200 + 8 * 100, `${most} claimed and not started`);
    // Endpoints asking alone still take more than a slot's worth.
    assert.ok(
      claims.some((claim) => claim.count - claim.missing > 8),
      'no endpoint claimed more than a slot’s worth ahead',
    );
  });
});

describe('a delivery claimed ahead', () => {
  it('starts only while its lease outlasts an attempt and the commit of its record', () => {
    const timeoutMs = 10_000;
    const claimedAt = Date.parse('2026-11-29T20:00:00.000Z');
    const leaseEnd = new Date(claimedAt + leaseMs(timeoutMs)).toISOString();
    assert.equal(startsWithinLease(leaseEnd, claimedAt, timeoutMs), true);
    assert.equal(startsWithinLease(leaseEnd, claimedAt + timeoutMs, timeoutMs), true, 'one timeout after its claim');
    assert.equal(startsWithinLease(leaseEnd, claimedAt + timeoutMs + 1, timeoutMs), false, 'past one timeout after its claim');
    // The attempt started last ends a margin before the lease.
    assert.ok(claimedAt + timeoutMs + timeoutMs < Date.parse(leaseEnd));
  });
});

describe('the deadline of an attempt', () => {
  it('is shared by the attempts started within a window, and never later than a timeout after each start', async () => {
    let now = 1000;
    const timeoutMs = 300;
    const deadline = sharedDeadline(timeoutMs, () => now);
    const first = deadline();
    now += 2; // a window is a hundredth of the timeout (3 ms here), at least 1 ms and at most 100
    assert.equal(deadline(), first, 'an attempt started within the window shares the signal');
    now += 1;
    const next = deadline();
    assert.notEqual(next, first, 'one started a window later has a signal of its own');
    // The shared signal ends a timeout after the first attempt of its window: never after a later one's timeout.
    const created = performance.now();
    // The signal's timer keeps no process alive: this one does meanwhile.
    const alive = setTimeout(() => {}, timeoutMs + 2000);
    const aborted = await new Promise<number>((resolve) => first.addEventListener('abort', () => resolve(performance.now())));
    clearTimeout(alive);
    assert.ok(aborted - created < timeoutMs + 1000, `ended ${(aborted - created).toFixed(0)} ms after it was made`);
    assert.ok(aborted - created >= timeoutMs - 5, `ended ${(aborted - created).toFixed(0)} ms after it was made, before the timeout`);
    assert.equal((first.reason as Error).name, 'TimeoutError');
    // Many attempts of one window listen to it without a warning of a leak.
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    for (let n = 0; n < 50; n++) next.addEventListener('abort', () => {});
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    assert.deepEqual(
      warnings.map((warning) => warning.name),
      [],
    );
  });
});
