import type { Kysely } from 'kysely';
import { signInsPerDay } from '../../accounts/sign-in-days.js';
import type { Database } from '../../db/schema.js';
import { ACCOUNT_TYPES, type AccountType } from '../../resources/users/users.schemas.js';
import { ACCOUNT_KIND_NAMES } from '../people/person-form.js';
import { EVERY_ADMINISTRATOR, ORGANIZATION_ADMINISTRATORS } from '../sections.js';
import { dayAfter, GRADE_BANDS, reportFigures, STATUSES, type DayRange, type Status } from './report-figures.js';

/** A chart and the table of its figures: the first column labels, each other one a series. */
export interface Chart {
  id: string;
  caption: string;
  type: 'bar' | 'line';
  /** Series stacked on each other (parts of a whole), and bars laid along the horizontal axis (long labels). */
  stacked?: boolean;
  horizontal?: boolean;
  headings: readonly string[];
  rows: readonly (readonly (string | number)[])[];
  /** What the chart leaves out, said under it. */
  note?: string;
}

/** A report as drawn: its charts, and its CSV (every figure, one per row). */
export interface ReportView {
  charts: Chart[];
  csv: { columns: readonly string[]; rows: readonly (readonly (string | number)[])[] };
}

/** One of the console's reports: who may read it, and how its figures are drawn from the database. */
export interface Report {
  id: string;
  title: string;
  hint: string;
  /** Whether the range of days applies (a snapshot of now does not). */
  ranged: boolean;
  allowed: readonly AccountType[];
  view(figures: Figures, orgId: string, range: DayRange): Promise<ReportView>;
}

interface Figures {
  db: Kysely<Database>;
  read: ReturnType<typeof reportFigures>;
}

/** Offerings drawn as a series of their own over time; the others are summed. */
const SERIES = 5;
/** Offerings drawn as bars; the CSV has them all. */
const BARS = 20;
/** Longer ranges are drawn per month. */
const DAILY_UP_TO = 92;

/** Every day of the range, or every month (`yyyy-mm`) it touches. */
export function periodsOf(range: DayRange, periodLength: 7 | 10): string[] {
  const periods: string[] = [];
  for (let day = range.from; day <= range.to; day = dayAfter(day)) {
    const period = day.slice(0, periodLength);
    if (periods.at(-1) !== period) periods.push(period);
  }
  return periods;
}

export const daysIn = (range: DayRange) => (Date.parse(range.to) - Date.parse(range.from)) / 86_400_000 + 1;

/** Count of each key, the largest first (ties by name), with their names. */
function ranked(totals: Map<string, number>, names: Map<string, string>): { id: string; name: string; total: number }[] {
  return [...totals]
    .map(([id, total]) => ({ id, name: names.get(id) ?? id, total }))
    .sort((a, b) => b.total - a.total || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

const add = <K>(map: Map<K, number>, key: K, count: number) => map.set(key, (map.get(key) ?? 0) + count);

const bandName = (band: number) => `${band * 10}-${band === GRADE_BANDS - 1 ? 100 : band * 10 + 9}`;
const STATUS_NAMES: Record<Status, string> = { active: 'Active', passed: 'Passed', failed: 'Failed', ejected: 'Ejected' };
const shownOf = (count: number) =>
  count > BARS ? `The ${BARS} offerings with the most registrations are drawn; the CSV has all ${count}.` : undefined;

const registrations: Report = {
  id: 'registrations',
  title: 'Registrations per offering over time',
  hint: 'Registrations made on each day (each month, beyond three months), per offering, whatever their status now.',
  ranged: true,
  allowed: EVERY_ADMINISTRATOR,
  async view({ read }, orgId, range) {
    const periodLength = daysIn(range) > DAILY_UP_TO ? 7 : 10;
    const counts = await read.registrationsOverTime(orgId, range, periodLength);
    const totals = new Map<string, number>();
    for (const row of counts) add(totals, row.offeringId, row.count);
    const offerings = ranked(totals, await read.offeringTitles(orgId, [...totals.keys()]));
    const drawn = offerings.slice(0, SERIES);
    const others = offerings.length > SERIES;
    const cells = new Map(counts.map((row) => [`${row.period} ${row.offeringId}`, row.count]));
    const perPeriod = new Map<string, number>();
    for (const row of counts) add(perPeriod, row.period, row.count);
    const rows = periodsOf(range, periodLength).map((period) => {
      const series = drawn.map((offering) => cells.get(`${period} ${offering.id}`) ?? 0);
      const drawnSum = series.reduce((sum, count) => sum + count, 0);
      return [period, ...series, ...(others ? [(perPeriod.get(period) ?? 0) - drawnSum] : [])];
    });
    const order = new Map(offerings.map((offering, index) => [offering.id, index]));
    const names = new Map(offerings.map((offering) => [offering.id, offering.name]));
    return {
      charts: [
        {
          id: 'registrations',
          caption: `Registrations per ${periodLength === 10 ? 'day' : 'month'}`,
          type: 'line',
          headings: [periodLength === 10 ? 'Day' : 'Month', ...drawn.map((offering) => offering.name), ...(others ? ['Other offerings'] : [])],
          rows: offerings.length === 0 ? [] : rows,
          note: others ? `The ${SERIES} offerings with the most registrations are drawn, the others summed; the CSV has each.` : undefined,
        },
      ],
      csv: {
        columns: ['period', 'offeringId', 'offering', 'registrations'],
        rows: [...counts]
          .sort((a, b) => a.period.localeCompare(b.period) || order.get(a.offeringId)! - order.get(b.offeringId)!)
          .map((row) => [row.period, row.offeringId, names.get(row.offeringId)!, row.count]),
      },
    };
  },
};

const outcomes: Report = {
  id: 'outcomes',
  title: 'Status and grades per offering',
  hint: 'The registrations made within the dates, per offering: their status now, and the grades of those graded.',
  ranged: true,
  allowed: EVERY_ADMINISTRATOR,
  async view({ read }, orgId, range) {
    const counts = await read.outcomes(orgId, range);
    const totals = new Map<string, number>();
    const byStatus = new Map<string, number>();
    const byBand = new Map<string, number>();
    for (const row of counts) {
      add(totals, row.offeringId, row.count);
      add(byStatus, `${row.offeringId} ${row.status}`, row.count);
      if (row.band !== null) add(byBand, `${row.offeringId} ${row.band}`, row.count);
    }
    const offerings = ranked(totals, await read.offeringTitles(orgId, [...totals.keys()]));
    const bands = Array.from({ length: GRADE_BANDS }, (_, band) => band);
    const statusesOf = (id: string) => STATUSES.map((status) => byStatus.get(`${id} ${status}`) ?? 0);
    const bandsOf = (id: string) => bands.map((band) => byBand.get(`${id} ${band}`) ?? 0);
    const drawn = offerings.slice(0, BARS);
    const note = shownOf(offerings.length);
    return {
      charts: [
        {
          id: 'statuses',
          caption: 'Registrations per offering, by status',
          type: 'bar',
          stacked: true,
          horizontal: true,
          headings: ['Offering', ...STATUSES.map((status) => STATUS_NAMES[status])],
          rows: drawn.map((offering) => [offering.name, ...statusesOf(offering.id)]),
          note,
        },
        {
          id: 'grades',
          caption: 'Grades per offering',
          type: 'bar',
          stacked: true,
          horizontal: true,
          headings: ['Offering', ...bands.map(bandName)],
          rows: drawn.filter((offering) => bandsOf(offering.id).some(Boolean)).map((offering) => [offering.name, ...bandsOf(offering.id)]),
          note,
        },
      ],
      csv: {
        columns: ['offeringId', 'offering', 'registrations', ...STATUSES, ...bands.map((band) => `grade ${bandName(band)}`)],
        rows: offerings.map((offering) => [offering.id, offering.name, offering.total, ...statusesOf(offering.id), ...bandsOf(offering.id)]),
      },
    };
  },
};

const signIns: Report = {
  id: 'sign-ins',
  title: 'Sign-ins per day',
  hint: 'Sign-ins that succeeded on each day (UTC), on the sign-in page and through applications signing people in.',
  ranged: true,
  allowed: ORGANIZATION_ADMINISTRATORS,
  async view({ db }, orgId, range) {
    const perDay = await signInsPerDay(db, orgId, range.from, range.to);
    const rows = periodsOf(range, 10).map((day) => [day, perDay.get(day) ?? 0] as const);
    return {
      charts: [{ id: 'sign-ins', caption: 'Sign-ins per day', type: 'bar', headings: ['Day', 'Sign-ins'], rows: perDay.size === 0 ? [] : rows }],
      csv: { columns: ['day', 'signIns'], rows },
    };
  },
};

const people: Report = {
  id: 'people',
  title: 'Active and deactivated people',
  hint: 'Everyone in the organization now, whatever the dates, by kind of account.',
  ranged: false,
  allowed: ORGANIZATION_ADMINISTRATORS,
  async view({ read }, orgId) {
    const counts = new Map<string, number>();
    for (const row of await read.people(orgId)) add(counts, `${row.accountType} ${row.active}`, row.count);
    const figures = ACCOUNT_TYPES.map((kind) => [kind, counts.get(`${kind} true`) ?? 0, counts.get(`${kind} false`) ?? 0] as const);
    return {
      charts: [
        {
          id: 'people',
          caption: 'People by kind of account',
          type: 'bar',
          stacked: true,
          headings: ['Kind of account', 'Active', 'Deactivated'],
          rows: figures.map(([kind, active, deactivated]) => [ACCOUNT_KIND_NAMES[kind], active, deactivated]),
        },
      ],
      csv: { columns: ['accountType', 'active', 'deactivated'], rows: figures },
    };
  },
};

const deliveries: Report = {
  id: 'webhook-deliveries',
  title: 'Webhook deliveries per endpoint',
  hint: 'Deliveries queued within the dates, per endpoint, by their status now. Finished deliveries are kept as long as events are (30 days unless the server says otherwise).',
  ranged: true,
  allowed: ORGANIZATION_ADMINISTRATORS,
  async view({ read }, orgId, range) {
    const [endpoints, counts] = await Promise.all([read.endpoints(orgId), read.deliveries(orgId, range)]);
    const cells = new Map(counts.map((row) => [`${row.webhookId} ${row.status}`, row.count]));
    const states = ['pending', 'succeeded', 'failed'] as const;
    const of = (id: string) => states.map((status) => cells.get(`${id} ${status}`) ?? 0);
    return {
      charts: [
        {
          id: 'webhook-deliveries',
          caption: 'Deliveries per endpoint, by status',
          type: 'bar',
          stacked: true,
          horizontal: true,
          headings: ['Endpoint', 'Pending', 'Succeeded', 'Failed'],
          rows: counts.length === 0 ? [] : endpoints.map((endpoint) => [endpoint.url, ...of(endpoint.id)]),
        },
      ],
      csv: { columns: ['webhookId', 'url', ...states], rows: endpoints.map((endpoint) => [endpoint.id, endpoint.url, ...of(endpoint.id)]) },
    };
  },
};

/** The console's reports, in the order of their page. */
export const REPORTS: readonly Report[] = [registrations, outcomes, signIns, people, deliveries];

export const figuresOf = (db: Kysely<Database>): Figures => ({ db, read: reportFigures(db) });
