import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { toTimestamp } from '../../lib/time.js';

/** How far back the health of an endpoint looks. */
export const HEALTH_HOURS = 24;
/** The attempts the latency's percentile is taken from, at most: the latest of the period. */
const LATENCY_SAMPLE = 1000;

/** How an endpoint has fared over the last HEALTH_HOURS, and what waits for it. */
export interface EndpointHealth {
  attempts: number;
  /** Attempts answered 2xx. */
  succeeded: number;
  averageMs: number | null;
  maxMs: number | null;
  /** Deliveries pending: due, waiting for an earlier one of their resource, or held while the endpoint is disabled. */
  backlog: number;
  /** When the oldest of them was queued. */
  oldestPending: string | null;
}

const NO_HEALTH: EndpointHealth = { attempts: 0, succeeded: 0, averageMs: null, maxMs: null, backlog: 0, oldestPending: null };

const since = () => toTimestamp(new Date(Date.now() - HEALTH_HOURS * 3_600_000));

/**
 * Read-only figures of an organization's webhook endpoints, from the deliveries and attempts the
 * delivery worker records: the console's health of each endpoint. Nothing here writes, and nothing of
 * the delivery worker's own statements is used.
 */
export function endpointHealth(db: Kysely<Database>) {
  /** The attempts of the organization's deliveries over the period (an attempt updates its delivery, so older deliveries are passed over). */
  const recentAttempts = (orgId: string, from: string) =>
    db
      .selectFrom('webhook_attempts as a')
      .innerJoin('webhook_deliveries as d', (join) => join.onRef('d.org_id', '=', 'a.org_id').onRef('d.id', '=', 'a.delivery_id'))
      .where('a.org_id', '=', orgId)
      .where('d.org_id', '=', orgId)
      .where('d.updated_date', '>=', from)
      .where('a.attempted_date', '>=', from);

  return {
    /** The health of each of the organization's endpoints named, by id (an endpoint without deliveries has zeros). */
    async of(orgId: string, webhookIds: readonly string[]): Promise<Map<string, EndpointHealth>> {
      const health = new Map(webhookIds.map((id) => [id, { ...NO_HEALTH }]));
      if (webhookIds.length === 0) return health;
      const from = since();
      const [attempts, pending] = await Promise.all([
        recentAttempts(orgId, from)
          .where('d.webhook_id', 'in', webhookIds)
          .select((eb) => [
            'd.webhook_id',
            eb.fn.countAll().as('attempts'),
            eb.fn.sum(sql<number>`case when a.status_code between 200 and 299 then 1 else 0 end`).as('succeeded'),
            eb.fn.avg('a.duration_ms').as('average'),
            eb.fn.max('a.duration_ms').as('max'),
          ])
          .groupBy('d.webhook_id')
          .execute(),
        db
          .selectFrom('webhook_deliveries')
          .where('org_id', '=', orgId)
          .where('webhook_id', 'in', webhookIds)
          .where('status', '=', 'pending')
          .select((eb) => ['webhook_id', eb.fn.countAll().as('backlog'), eb.fn.min('created_date').as('oldest')])
          .groupBy('webhook_id')
          .execute(),
      ]);
      // PostgreSQL reads counts and sums as strings.
      for (const row of attempts) {
        Object.assign(health.get(row.webhook_id)!, {
          attempts: Number(row.attempts),
          succeeded: Number(row.succeeded),
          averageMs: Math.round(Number(row.average)),
          maxMs: Number(row.max),
        });
      }
      for (const row of pending) Object.assign(health.get(row.webhook_id)!, { backlog: Number(row.backlog), oldestPending: row.oldest });
      return health;
    },

    /** The 95th percentile of the endpoint's answer times over the period, from its latest attempts; null without any. */
    async p95(orgId: string, webhookId: string): Promise<number | null> {
      const rows = await recentAttempts(orgId, since())
        .where('d.webhook_id', '=', webhookId)
        .select('a.duration_ms')
        .orderBy('a.attempted_date', 'desc')
        .limit(LATENCY_SAMPLE)
        .execute();
      if (rows.length === 0) return null;
      const sorted = rows.map((row) => row.duration_ms).sort((a, b) => a - b);
      return sorted[Math.ceil(sorted.length * 0.95) - 1]!;
    },
  };
}
