import type { FastifyBaseLogger } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { Agent, request } from 'undici';
import { isPostgres, lockRow } from '../../db/locking.js';
import type { Database, WebhookDeliveriesTable } from '../../db/schema.js';
import { now } from '../../lib/time.js';
import { guardedLookup, RefusedAddressError, urlProblem, type AddressPolicy } from './address-policy.js';
import { instant, RETRY_PERIOD_MS } from './deliveries.js';
import { signedHeaders } from './signing.js';

export interface WebhookSettings extends AddressPolicy {
  /** The wait after the first failed attempt; each later one waits four times longer, up to six hours. */
  retryBaseMs: number;
  /** How long an attempt may take, connection to last byte. */
  timeoutMs: number;
  /** How often each instance looks for due deliveries. */
  pollIntervalMs: number;
}

/** Deliveries one instance claims at a time; it claims again at once while it finds this many. */
const BATCH = 10;
const MAX_RETRY_DELAY_MS = 6 * 3_600_000;
/** What an attempt keeps of the receiver's answer. */
const RESPONSE_BODY_LIMIT = 512;

interface Outcome {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
}

type Claimed = WebhookDeliveriesTable & { url: string; secret: string };

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

/**
 * Claims due deliveries: each is pushed past the lease (while its attempt runs), so no other worker
 * takes it, and becomes due again when the lease ends without an outcome (the process died). On
 * PostgreSQL, FOR UPDATE SKIP LOCKED lets several instances claim side by side without waiting
 * for one another; on SQLite the statement runs alone.
 */
async function claim(db: Kysely<Database>, leaseMs: number): Promise<Claimed[]> {
  const at = Date.now();
  let due = db
    .selectFrom('webhook_deliveries as d')
    .select(['d.org_id', 'd.id'])
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', instant(at))
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('webhooks as w')
          .select('w.id')
          .whereRef('w.org_id', '=', 'd.org_id')
          .whereRef('w.id', '=', 'd.webhook_id')
          .where('w.disabled_date', 'is', null),
      ),
    )
    .orderBy('d.next_attempt_at')
    .limit(BATCH);
  if (isPostgres(db)) due = due.forUpdate().skipLocked();
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: instant(at + leaseMs) })
    .where(sql<boolean>`(org_id, id) in (${due})`)
    .returningAll()
    .execute();
  if (claimed.length === 0) return [];
  const webhooks = await db
    .selectFrom('webhooks')
    .select(['org_id', 'id', 'url', 'secret'])
    .where(
      'id',
      'in',
      claimed.map((delivery) => delivery.webhook_id),
    )
    .execute();
  const byId = new Map(webhooks.map((webhook) => [`${webhook.org_id}/${webhook.id}`, webhook]));
  return claimed.flatMap((delivery) => {
    const webhook = byId.get(`${delivery.org_id}/${delivery.webhook_id}`);
    return webhook ? [{ ...delivery, url: webhook.url, secret: webhook.secret }] : [];
  });
}

/** What went wrong, in words for the deliveries list (never the secret, nor the body sent). */
function describe(error: unknown): string {
  if (error instanceof RefusedAddressError) return error.message;
  const { name, message, code, cause } = error as { name?: string; message?: string; code?: string; cause?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError') return 'timed out';
  if (cause) return describe(cause);
  return code ? `${code}: ${message}` : (message ?? String(error));
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
  const leaseMs = 2 * settings.timeoutMs + 5000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();

  async function post(delivery: Claimed): Promise<Outcome> {
    const started = Date.now();
    const outcome = (fields: Partial<Outcome>): Outcome => ({
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

  /** Records the attempt and its consequences: done, retried later, failed for good; the webhook disabled after a day of failures. */
  async function record(delivery: Claimed, outcome: Outcome): Promise<DeliveryResult> {
    const succeeded = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const at = Date.now();
    const attempts = delivery.attempts + 1;
    const nextAttempt = at + retryDelay(attempts, settings.retryBaseMs);
    const final = succeeded || nextAttempt > Date.parse(delivery.give_up_at);
    await db.transaction().execute(async (trx) => {
      // The webhook's row first, as its deletion (cascading to deliveries and attempts) takes it first: the two
      // then wait for each other instead of deadlocking, and the attempt of a webhook deleted meanwhile goes with it.
      if (!(await lockRow(trx, 'webhooks', delivery.org_id, delivery.webhook_id))) return;
      await trx
        .insertInto('webhook_attempts')
        .values({
          org_id: delivery.org_id,
          delivery_id: delivery.id,
          attempt: attempts,
          attempted_date: now(),
          duration_ms: outcome.durationMs,
          status_code: outcome.statusCode,
          error: outcome.error,
          response_body: outcome.responseBody,
        })
        .execute();
      await trx
        .updateTable('webhook_deliveries')
        .set({
          attempts,
          status: succeeded ? 'succeeded' : final ? 'failed' : 'pending',
          next_attempt_at: final ? null : instant(nextAttempt),
          updated_date: now(),
        })
        .where('org_id', '=', delivery.org_id)
        .where('id', '=', delivery.id)
        .execute();
      const webhook = trx.updateTable('webhooks').where('org_id', '=', delivery.org_id).where('id', '=', delivery.webhook_id);
      if (succeeded) {
        await webhook.set({ failing_since: null }).execute();
        return;
      }
      await webhook
        .set({ failing_since: instant(at) })
        .where('failing_since', 'is', null)
        .execute();
      const reason = `Every delivery attempt failed for 24 hours (the last: ${outcome.statusCode === null ? outcome.error : `HTTP ${outcome.statusCode}`})`;
      await webhook
        .set({ disabled_date: now(), disabled_reason: reason, updated_date: now() })
        .where('disabled_date', 'is', null)
        .where('failing_since', '<=', instant(at - RETRY_PERIOD_MS))
        .execute();
    });
    return succeeded ? 'delivered' : final ? 'failed' : 'retrying';
  }

  async function deliver(delivery: Claimed): Promise<void> {
    const outcome = await post(delivery);
    observe(await record(delivery, outcome), outcome.durationMs);
    log.info(
      {
        webhookId: delivery.webhook_id,
        deliveryId: delivery.id,
        eventType: delivery.event_type,
        statusCode: outcome.statusCode,
        error: outcome.error,
      },
      'webhook delivery attempted',
    );
  }

  async function runRound(): Promise<void> {
    let claimed: Claimed[] = [];
    try {
      claimed = await claim(db, leaseMs);
      await Promise.all(claimed.map(deliver));
    } catch (error) {
      log.error({ err: error }, 'webhook deliveries failed');
    }
    if (!stopped) timer = setTimeout(schedule, claimed.length === BATCH ? 0 : settings.pollIntervalMs);
  }

  function schedule(): void {
    round = runRound();
  }

  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round;
      await agent.close();
    },
  };
}
