import { setMaxListeners } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Agent, request } from 'undici';
import { isPostgres } from '../../db/locking.js';
import type { Database } from '../../db/schema.js';
import { guardedLookup, RefusedAddressError, urlProblem, type AddressPolicy } from './address-policy.js';
import { RETRY_PERIOD_MS } from './deliveries.js';
import { startScheduler, type SchedulerSettings } from './delivery-scheduler.js';
import { signedHeaders } from './signing.js';
import { deliveryQueue, instant, type AttemptRecord, type ClaimedDelivery, type Endpoint, type FinishedAttempt } from './webhooks.repository.js';

export interface WebhookSettings extends AddressPolicy, SchedulerSettings {
  /** The wait after the first failed attempt; each later one waits four times longer, up to six hours. */
  retryBaseMs: number;
  /** How long an attempt may take, connection to last byte. */
  timeoutMs: number;
}

const MAX_RETRY_DELAY_MS = 6 * 3_600_000;
/** Webhook URLs whose check is kept. */
const URL_VERDICTS_KEPT = 10_000;
/** What an attempt keeps of the receiver's answer. */
const RESPONSE_BODY_LIMIT = 512;
/** The wait before attempt `attempts + 1`, with a tenth of jitter so that failed deliveries do not return in step. */
function retryDelay(attempts: number, baseMs: number): number {
  const delay = Math.min(baseMs * 4 ** (attempts - 1), MAX_RETRY_DELAY_MS);
  return Math.round(delay * (1 + Math.random() / 10));
}

/** The start of a response body, read up to the limit and no further. */
async function readStart(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_BODY_LIMIT) break; // leaving the loop destroys the stream
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
}

/** What went wrong, in words for the deliveries list (never the secret, nor the body sent). */
function describe(error: unknown): string {
  if (error instanceof RefusedAddressError) return error.message;
  const { name, message, code, cause } = error as { name?: string; message?: string; code?: string; cause?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError') return 'timed out';
  if (cause) return describe(cause);
  return code ? `${code}: ${message}` : (message ?? String(error));
}

/**
 * The worker's transactions running at once on PostgreSQL: each is several round trips, and one at a
 * time would bound the rate by their latency; more would take connections of the pool from the API's
 * requests. SQLite runs one at a time anyway.
 */
const POSTGRES_WRITERS = 4;
/** Attempts recorded in one transaction at most. */
const RECORDS_PER_BATCH = 100;
/**
 * Attempts whose records may be under way while their slots already serve others: a slot is the
 * receiver's (a request in flight), and waiting for the commit of its record would bound one
 * endpoint's rate by the database's commit time instead (8 slots and a 20 ms commit: 400 a second).
 * Past this many, an attempt keeps its slot until its record is written, so that the records cannot
 * pile up faster than they are written.
 */
const UNRECORDED_LIMIT = 2 * RECORDS_PER_BATCH;
/** What a lease leaves, past the longest attempt, for its record to commit. */
const LEASE_MARGIN_MS = 5000;

/** Attempts started within this share of the timeout share one deadline. */
const DEADLINE_WINDOW_SHARE = 0.01;

/**
 * The signal that ends an attempt started now: one `AbortSignal.timeout` for every attempt started
 * within a window (a hundredth of the timeout, at most 100 ms), ending `timeoutMs` after the first
 * of them. An attempt is so cut at `timeoutMs` after its start or up to a window sooner, never
 * later, as the leases need (an attempt lasts `timeoutMs` at most); and a fan-out of thousands of
 * attempts a second sets a few timers, not one (and a signal and its listeners) each. undici's own
 * headers and body timeouts bound the wait for each phase; this bounds the whole, connection and
 * name lookup included.
 */
export function sharedDeadline(timeoutMs: number, clock: () => number = () => performance.now()): () => AbortSignal {
  const windowMs = Math.max(1, Math.min(100, Math.floor(timeoutMs * DEADLINE_WINDOW_SHARE)));
  let signal: AbortSignal | undefined;
  let until = 0;
  return () => {
    const at = clock();
    if (!signal || at >= until) {
      signal = AbortSignal.timeout(timeoutMs);
      // Every attempt of the window listens to it (undici removes its listener when the request ends).
      setMaxListeners(0, signal);
      until = at + windowMs;
    }
    return signal;
  };
}

/** A claim's lease: the wait to start (up to `timeoutMs`), the attempt (`timeoutMs` at most), and the margin. */
export const leaseMs = (timeoutMs: number): number => 2 * timeoutMs + LEASE_MARGIN_MS;

/**
 * Whether an attempt started at `now` on a lease ending at `leaseEnd` ends, and its record commits, before the
 * lease does: a delivery claimed ahead that waited longer is not attempted.
 */
export function startsWithinLease(leaseEnd: string, now: number, timeoutMs: number): boolean {
  return Date.parse(leaseEnd) - now >= timeoutMs + LEASE_MARGIN_MS;
}

type Claims = readonly { endpoint: Endpoint; count: number }[];

/**
 * The worker's writes: the records of the attempts that ended and the scheduler's claim, together,
 * so that a round of attempts and the claim of the next cost one commit (on SQLite an fsync that
 * holds the event loop), not one each. At most `parallel` transactions run at once; what comes
 * while they are written goes in the next. A transaction waits for the end of the event loop's
 * turn, so that the attempts ending together and the claim they prompt meet. One that fails is
 * written again item by item, so that one bad record fails alone.
 */
function deliveryWriter(queue: ReturnType<typeof deliveryQueue>, leaseMs: number, parallel: number) {
  let records: { attempt: FinishedAttempt; written: () => void; failed: (error: unknown) => void }[] = [];
  /** The scheduler claims one round at a time. */
  let claim: { wants: Claims; claimed: (deliveries: ClaimedDelivery[]) => void; failed: (error: unknown) => void } | undefined;
  let running = 0;
  let starting = false;
  const write = (attempts: readonly FinishedAttempt[], wants: Claims) =>
    queue.recordAndClaim(attempts, instant(Date.now() - RETRY_PERIOD_MS), wants, leaseMs);

  async function flush(): Promise<void> {
    running++;
    while (records.length > 0 || claim) {
      const batch = records.slice(0, RECORDS_PER_BATCH);
      records = records.slice(RECORDS_PER_BATCH);
      const asked = claim;
      claim = undefined;
      if (records.length > 0) start();
      try {
        const claimed = await write(
          batch.map((entry) => entry.attempt),
          asked?.wants ?? [],
        );
        for (const entry of batch) entry.written();
        asked?.claimed(claimed);
      } catch {
        for (const entry of batch) await write([entry.attempt], []).then(entry.written, entry.failed);
        if (asked) await write([], asked.wants).then(asked.claimed, asked.failed);
      }
    }
    running--;
  }
  function start(): void {
    if (starting || running >= parallel) return;
    starting = true;
    setImmediate(() => {
      starting = false;
      void flush();
    });
  }

  return {
    /** Resolves once the attempt's record has committed. */
    record: (attempt: FinishedAttempt) =>
      new Promise<void>((written, failed) => {
        records.push({ attempt, written, failed });
        start();
      }),
    /** The deliveries claimed, once their leases have committed. */
    claim: (wants: Claims) =>
      new Promise<ClaimedDelivery[]>((claimed, failed) => {
        claim = { wants, claimed, failed };
        start();
      }),
  };
}

/** How a delivery attempt ended: delivered, failed and to be retried, or failed for good. */
export type DeliveryResult = 'delivered' | 'retrying' | 'failed';

/** Told of every attempt (the metrics). */
export type DeliveryObserver = (result: DeliveryResult, durationMs: number) => void;

/** The delivery worker of one server process; `stop` waits for the attempts under way. */
export function startDeliveryWorker(
  db: Kysely<Database>,
  settings: WebhookSettings,
  log: FastifyBaseLogger,
  observe: DeliveryObserver = () => {},
): { stop(): Promise<void> } {
  // Redirects are not followed (undici's request never does): a 3xx is a failed attempt. undici (~70 modules) is loaded
  // at the first attempt, not at every start: most processes (a command, most tests) never deliver anything.
  let client: Promise<{ agent: Agent; request: typeof request }> | undefined;
  const httpClient = () =>
    (client ??= import('undici').then((undici) => ({
      agent: new undici.Agent({
        connect: { lookup: guardedLookup(settings) },
        headersTimeout: settings.timeoutMs,
        bodyTimeout: settings.timeoutMs,
      }),
      request: undici.request,
    })));
  const queue = deliveryQueue(db);
  // A claimed delivery may start until `timeoutMs` after its claim, and its attempt lasts `timeoutMs` at most: its
  // lease covers both, and the commit of its record. One claimed ahead that could not start in time is left for its
  // lease to end (and the claim of this process or another), never attempted on a lease that could end during the
  // attempt: another worker could then deliver it, and the next of its resource, meanwhile.
  const writer = deliveryWriter(queue, leaseMs(settings.timeoutMs), isPostgres(db) ? POSTGRES_WRITERS : 1);
  // The rules are this process's settings: a URL's verdict holds for the process's life, and each endpoint's URL is
  // parsed once, not at every attempt.
  const deadline = sharedDeadline(settings.timeoutMs);
  const urlVerdicts = new Map<string, string | undefined>();
  const checkUrl = (url: string): string | undefined => {
    if (!urlVerdicts.has(url)) {
      if (urlVerdicts.size >= URL_VERDICTS_KEPT) urlVerdicts.clear();
      urlVerdicts.set(url, urlProblem(url, settings, 'delivery'));
    }
    return urlVerdicts.get(url);
  };

  async function post(delivery: ClaimedDelivery): Promise<AttemptRecord> {
    const started = Date.now();
    const outcome = (fields: Partial<AttemptRecord>): AttemptRecord => ({
      statusCode: null,
      error: null,
      responseBody: null,
      durationMs: Date.now() - started,
      ...fields,
    });
    // The URL was checked when it was saved; the rules may have changed since (the address a name resolves to is
    // checked as the connection is made).
    const problem = checkUrl(delivery.url);
    if (problem) return outcome({ error: `The URL is refused: it ${problem}` });
    try {
      const { agent, request } = await httpClient();
      const response = await request(delivery.url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'training-api-webhooks',
          ...signedHeaders(delivery.secret, delivery.event_id, Math.floor(started / 1000), delivery.payload),
        },
        body: delivery.payload,
        signal: deadline(),
      });
      const responseBody = await readStart(response.body);
      return outcome({ statusCode: response.statusCode, responseBody });
    } catch (error) {
      return outcome({ error: describe(error) });
    }
  }

  /** Records the attempt (done, retried later, or failed for good; the webhook disabled after a day of failures). */
  async function record(delivery: ClaimedDelivery, attempt: AttemptRecord): Promise<DeliveryResult> {
    const succeeded = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
    const retryAt = Date.now() + retryDelay(delivery.attempts + 1, settings.retryBaseMs);
    const final = succeeded || retryAt > Date.parse(delivery.give_up_at);
    const last = attempt.statusCode === null ? attempt.error : `HTTP ${attempt.statusCode}`;
    await writer.record({
      delivery,
      attempt,
      succeeded,
      retryAt: final ? null : retryAt,
      disabledReason: `Every delivery attempt failed for 24 hours (the last: ${last})`,
    });
    return succeeded ? 'delivered' : final ? 'failed' : 'retrying';
  }

  /** Records under way of attempts that gave their slots back. */
  const unrecorded = new Set<Promise<void>>();
  const scheduler = startScheduler<ClaimedDelivery>(
    settings,
    {
      due: () => queue.endpointsDue(instant(Date.now())),
      async claim(wants) {
        const claimed = await writer.claim(wants);
        const byEndpoint = new Map(wants.map(({ endpoint }) => [`${endpoint.orgId}/${endpoint.webhookId}`, [] as ClaimedDelivery[]]));
        // The statement returns them in no set order (and all with the lease's end): each endpoint's in the order queued.
        claimed.sort((a, b) => Number(a.seq) - Number(b.seq));
        for (const delivery of claimed) byEndpoint.get(`${delivery.org_id}/${delivery.webhook_id}`)!.push(delivery);
        return [...byEndpoint.values()];
      },
      async attempt(delivery) {
        if (!startsWithinLease(delivery.next_attempt_at!, Date.now(), settings.timeoutMs)) {
          log.warn({ webhookId: delivery.webhook_id, deliveryId: delivery.id }, 'webhook delivery left for its lease to end');
          return;
        }
        const attempt = await post(delivery);
        // The delivery keeps its lease until its record commits: no one claims it again meanwhile, and the next
        // delivery of its resource is released only by that record.
        const recorded = record(delivery, attempt).then(
          (result) => {
            observe(result, attempt.durationMs);
            // The record may have released the next delivery of its resource.
            scheduler.wake({ orgId: delivery.org_id, webhookId: delivery.webhook_id });
            log.info(
              {
                webhookId: delivery.webhook_id,
                deliveryId: delivery.id,
                eventType: delivery.event_type,
                statusCode: attempt.statusCode,
                error: attempt.error,
              },
              'webhook delivery attempted',
            );
          },
          (error: unknown) => {
            // Its lease ends and it is claimed again.
            log.error({ err: error, webhookId: delivery.webhook_id, deliveryId: delivery.id }, 'recording a webhook delivery failed');
          },
        );
        unrecorded.add(recorded);
        void recorded.finally(() => unrecorded.delete(recorded));
        if (unrecorded.size > UNRECORDED_LIMIT) await recorded;
      },
    },
    log,
    { startWithinMs: settings.timeoutMs },
  );

  return {
    async stop() {
      await scheduler.stop();
      await Promise.all(unrecorded);
      if (client) await (await client).agent.close();
    },
  };
}
