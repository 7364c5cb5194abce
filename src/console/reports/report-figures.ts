import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/** Days from `from` to `to` (`yyyy-mm-dd`, both included), UTC. */
export interface DayRange {
  from: string;
  to: string;
}

/** The day after `day`: the range's end as a bound that timestamps of its last day sort before. */
export const dayAfter = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** Rows created within the range: `created_date` (`yyyy-mm-ddThh:mm:ssZ`) sorts as its time does. */
const createdWithin = (range: DayRange) => [range.from, dayAfter(range.to)] as const;

/** A registration status, as the API names it. */
export const STATUSES = ['active', 'passed', 'failed', 'ejected'] as const;
export type Status = (typeof STATUSES)[number];

/** Grades in bands of ten, the last one taking 100: band `n` holds grades from 10n up to 10n + 10. */
export const GRADE_BANDS = 10;
const gradeBand = sql<number | null>`case when grade is null then null ${sql.join(
  Array.from({ length: GRADE_BANDS - 1 }, (_, band) => sql`when grade < ${sql.lit((band + 1) * 10)} then ${sql.lit(band)}`),
  sql` `,
)} else ${sql.lit(GRADE_BANDS - 1)} end`;

const counted = (count: number | string | bigint) => Number(count);

/**
 * The aggregates the console's reports draw, each scoped by organization and read through an index that
 * starts with the organization (registrations and deliveries by their creation within the range), so
 * that one organization's figures cost what its own rows do, whatever the others hold.
 */
export function reportFigures(db: Kysely<Database>) {
  return {
    /** Registrations made within the range, per offering and period (`yyyy-mm-dd` or `yyyy-mm`, `periodLength` 10 or 7 characters). */
    async registrationsOverTime(orgId: string, range: DayRange, periodLength: 7 | 10) {
      const [from, until] = createdWithin(range);
      const period = sql<string>`substr(created_date, 1, ${sql.lit(periodLength)})`;
      const rows = await db
        .selectFrom('registrations')
        .select([period.as('period'), 'offering_id', (eb) => eb.fn.countAll<number>().as('count')])
        .where('org_id', '=', orgId)
        .where('created_date', '>=', from)
        .where('created_date', '<', until)
        .groupBy([period, 'offering_id'])
        .execute();
      return rows.map((row) => ({ period: row.period, offeringId: row.offering_id, count: counted(row.count) }));
    },

    /** Registrations made within the range, per offering, status and grade band (null: no grade). */
    async outcomes(orgId: string, range: DayRange) {
      const [from, until] = createdWithin(range);
      const rows = await db
        .selectFrom('registrations')
        .select(['offering_id', 'status', gradeBand.as('band'), (eb) => eb.fn.countAll<number>().as('count')])
        .where('org_id', '=', orgId)
        .where('created_date', '>=', from)
        .where('created_date', '<', until)
        // Grouped by offering last: first, SQLite would read the whole organization by offering (registrations_offering).
        .groupBy(['status', gradeBand, 'offering_id'])
        .execute();
      return rows.map((row) => ({
        offeringId: row.offering_id,
        status: row.status,
        band: row.band === null ? null : Number(row.band),
        count: counted(row.count),
      }));
    },

    /** The titles of the organization's offerings of `ids`. */
    async offeringTitles(orgId: string, ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await db.selectFrom('offerings').select(['id', 'title']).where('org_id', '=', orgId).where('id', 'in', ids).execute();
      return new Map(rows.map((row) => [row.id, row.title]));
    },

    /** The organization's people now, per kind of account, active or deactivated. */
    async people(orgId: string) {
      const rows = await db
        .selectFrom('users')
        .select(['account_type', 'active', (eb) => eb.fn.countAll<number>().as('count')])
        .where('org_id', '=', orgId)
        .groupBy(['account_type', 'active'])
        .execute();
      return rows.map((row) => ({
        accountType: row.account_type ?? 'learner',
        active: row.active === true || Number(row.active) === 1,
        count: counted(row.count),
      }));
    },

    /** The webhook deliveries queued within the range, per endpoint and status (those the server still keeps). */
    async deliveries(orgId: string, range: DayRange) {
      const [from, until] = createdWithin(range);
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select(['webhook_id', 'status', (eb) => eb.fn.countAll<number>().as('count')])
        .where('org_id', '=', orgId)
        .where('created_date', '>=', from)
        .where('created_date', '<', until)
        .groupBy(['webhook_id', 'status'])
        .execute();
      return rows.map((row) => ({ webhookId: row.webhook_id, status: row.status, count: counted(row.count) }));
    },

    /** The organization's webhook endpoints, oldest first. */
    endpoints: (orgId: string) =>
      db.selectFrom('webhooks').select(['id', 'url']).where('org_id', '=', orgId).orderBy('created_date').orderBy('id').execute(),
  };
}

export type ReportFigures = ReturnType<typeof reportFigures>;
