import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { Agent, request } from 'undici';
import { isPostgres } from '../../db/locking.js';
import type { Database } from '../../db/schema.js';
import { guardedLookup, RefusedAddressError, urlProblem, type AddressPolicy } from './address-policy.js';
import { RETRY_PERIOD_MS } from './deliveries.js';
import { startScheduler, type SchedulerSettings } from './delivery-scheduler.js';
import { signedHeaders } from './signing.js';
import { deliveryQueue, instant, type AttemptRecord, type ClaimedDelivery, type FinishedAttempt } from './webhooks.repository.js';

export interface WebhookSettings extends AddressPolicy, SchedulerSettings {
  /** The wait after the first failed attempt; each later one waits four times longer, up to six hours. */
  retryBaseMs: number;
  /** How long an attempt may take, connection to last byte. */
  timeoutMs: number;
}

const MAX_RETRY_DELAY_MS = 6 * 3_600_000;
/** What an attempt keeps of the receiver's answer. */
const RESPONSE_BODY_LIMIT = 512;
/**
 * Statements of the worker (claims, outcomes) running at once on PostgreSQL: attempts end in bursts,
 * and their records must not take every connection of the pool from the API's requests. SQLite runs
 * one at a time anyway, and commits those of one event-loop turn together.
 */
const POSTGRES_TURNS = 4;

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

/** Runs `work` when fewer than `turns` others run. */
function turnTaker(turns: number): <R>(work: () => Promise<R>) => Promise<R> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (running >= turns) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/** Attempts recorded in one transaction at most. */
const RECORDS_PER_BATCH = 100;

/**
 * Writes items in batches, one batch at a time: those that come while a batch is being written go in
 * the next, so that a burst of attempts ending together costs a few transactions, not one each. A
 * batch that fails is written again item by item, so that one bad item fails alone. Each call
 * resolves once its item is written.
 */
function batched<I>(write: (items: I[]) => Promise<void>): (item: I) => Promise<void> {
  let waiting: { item: I; written: () => void; failed: (error: unknown) => void }[] = [];
  let writing = false;
  async function flush(): Promise<void> {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting.slice(0, RECORDS_PER_BATCH);
      waiting = waiting.slice(RECORDS_PER_BATCH);
      try {
        await write(batch.map((entry) => entry.item));
        for (const entry of batch) entry.written();
      } catch {
        for (const entry of batch) await write([entry.item]).then(entry.written, entry.failed);
      }
    }
    writing = false;
  }
  return (item) =>
    new Promise<void>((written, failed) => {
      waiting.push({ item, written, failed });
      if (!writing) void flush();
    });
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
  // Redirects are not followed (undici's request never does): a 3xx is a failed attempt.
  const agent = new Agent({
    connect: { lookup: guardedLookup(settings) },
    headersTimeout: settings.timeoutMs,
    bodyTimeout: settings.timeoutMs,
  });
  const queue = deliveryQueue(db);
  const inTurn = isPostgres(db) ? turnTaker(POSTGRES_TURNS) : <R>(work: () => Promise<R>) => work();
  const leaseMs = 2 * settings.timeoutMs + 5000;

  async function post(delivery: ClaimedDelivery): Promise<AttemptRecord> {
    const started = Date.now();
    const outcome = (fields: Partial<AttemptRecord>): AttemptRecord => ({
      statusCode: null,
      error: null,
      responseBody: null,
      durationMs: Date.now() - started,
      ...fields,
    });
    // The URL was checked when it was saved; the rules (and the address a name resolves to) may have changed since.
    const problem = urlProblem(delivery.url, settings);
    if (problem) return outcome({ error: `The URL is refused: it ${problem}` });
    try {
      const response = await request(delivery.url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'training-api-webhooks',
          ...signedHeaders(delivery.secret, delivery.event_id, Math.floor(started / 1000), delivery.payload),
        },
        body: delivery.payload,
        signal: AbortSignal.timeout(settings.timeoutMs),
      });
      const responseBody = await readStart(response.body);
      return outcome({ statusCode: response.statusCode, responseBody });
    } catch (error) {
      return outcome({ error: describe(error) });
    }
  }

  const recordInBatches = batched<FinishedAttempt>((attempts) => queue.recordAll(attempts, instant(Date.now() - RETRY_PERIOD_MS)));

  /** Records the attempt (done, retried later, or failed for good; the webhook disabled after a day of failures). */
  async function record(delivery: ClaimedDelivery, attempt: AttemptRecord): Promise<DeliveryResult> {
    const succeeded = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
    const retryAt = Date.now() + retryDelay(delivery.attempts + 1, settings.retryBaseMs);
    const final = succeeded || retryAt > Date.parse(delivery.give_up_at);
    const last = attempt.statusCode === null ? attempt.error : `HTTP ${attempt.statusCode}`;
    await recordInBatches({
      delivery,
      attempt,
      succeeded,
      retryAt: final ? null : retryAt,
      disabledReason: `Every delivery attempt failed for 24 hours (the last: ${last})`,
    });
    return succeeded ? 'delivered' : final ? 'failed' : 'retrying';
  }

  const scheduler = startScheduler<ClaimedDelivery>(
    settings,
    {
      due: () => inTurn(() => queue.endpointsDue(instant(Date.now()))),
      claim: (endpoint, count) =>
        inTurn(() => {
          const at = Date.now();
          return queue.claim(endpoint, count, instant(at), instant(at + leaseMs));
        }),
      async attempt(delivery) {
        try {
          const attempt = await post(delivery);
          observe(await record(delivery, attempt), attempt.durationMs);
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
        } catch (error) {
          // Its lease ends and it is claimed again.
          log.error({ err: error, webhookId: delivery.webhook_id, deliveryId: delivery.id }, 'recording a webhook delivery failed');
        }
      },
    },
    log,
  );

  return {
    async stop() {
      await scheduler.stop();
      await agent.close();
    },
  };
}
