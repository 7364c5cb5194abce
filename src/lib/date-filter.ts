/**
 * Parser for date filters in collection query strings (createdDate, updatedDate, lastLoginDate,
 * beginDate, endDate, lastActiveDate).
 *
 * Stored timestamps use the fixed UTC form yyyy-mm-ddThh:mm:ssZ, so a filter is turned into a
 * half-open interval of such strings that can be compared lexically: from <= stored < to.
 */

/** Half-open interval [from, to) in stored timestamp form; a missing end is open. */
export interface DateRange {
  from?: string;
  to?: string;
}

export const DATE_FILTER_HINT =
  'must be a date such as 2013-10-23T00:48:50Z, 2013, 2013-10, 2013-10-23, 2013-10-23T00 or 2013-10-23T00:48, ' +
  'or a range from/to of those where either end may be ..; a time may carry fractional seconds and an offset such as +02:00 instead of Z';

/**
 * The same forms as regular expressions, for the OpenAPI document's `pattern`s (JSON Schema cannot
 * call the parser): a year 0001-9999, a month, a real day of that month (29 February in leap years
 * only), hours 00-23, minutes and seconds 00-59, offsets to ±23:59. What they cannot say is left to
 * the parser: a range whose end comes before its start, and a moment that an offset moves out of the
 * years 0001-9999.
 */
const YEAR = '(?:000[1-9]|00[1-9]\\d|0[1-9]\\d{2}|[1-9]\\d{3})';
const MONTH = '(?:0[1-9]|1[0-2])';
const LEAP_YEAR = '(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)';
/** A month and a real day of it, `separator` between them. */
const monthDay = (separator: string) =>
  `(?:(?:0[13578]|1[02])${separator}(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)${separator}(?:0[1-9]|[12]\\d|30)|02${separator}(?:0[1-9]|1\\d|2[0-8]))`;
/** yyyy-mm-dd, a real day. */
const DATE_PATTERN_PART = `(?:${YEAR}-${monthDay('-')}|${LEAP_YEAR}-02-29)`;
const HOUR = '(?:[01]\\d|2[0-3])';
const SIXTY = '[0-5]\\d';
/** Z or an offset; `space` lets a space stand for the `+` of a query string. */
const zone = (space: boolean) => `(?:Z|[+${space ? ' ' : ''}-]${HOUR}(?::?${SIXTY})?)`;
/** yyyy-mm-ddThh:mm:ss[.f] with a zone: a precise timestamp as a body gives one. */
export const TIMESTAMP_PATTERN_PART = `${DATE_PATTERN_PART}T${HOUR}:${SIXTY}:${SIXTY}(?:\\.\\d{1,9})?${zone(false)}`;
const PERIOD_PATTERN =
  `(?:${YEAR}(?:-${MONTH})?|${DATE_PATTERN_PART}` +
  `(?:T${HOUR}(?::${SIXTY})?${zone(true)}?|T${HOUR}:${SIXTY}:${SIXTY}(?:\\.\\d{1,9})?${zone(true)})?)`;
/** mm/dd/yyyy, a real day: the dates of date userfields. */
export const US_DATE_PATTERN = `^(?:${monthDay('/')}/${YEAR}|02/29/${LEAP_YEAR})$`;
/** A date filter: a period, or a range of two where either end may be `..`. */
export const DATE_FILTER_PATTERN = `^(?:${PERIOD_PATTERN}(?:/(?:${PERIOD_PATTERN}|\\.\\.))?|\\.\\./${PERIOD_PATTERN})$`;

/**
 * yyyy[-mm[-dd[Thh[:mm[:ss[.fff]]][zone]]]] where zone is Z or a numeric offset (±hh:mm, ±hhmm, ±hh).
 * A zone only after a time, and required after seconds. A space stands for the `+` of an offset:
 * an unencoded `+` in a query string arrives as one.
 */
const PERIOD = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?(Z|[+\- ]\d{2}(?::?\d{2})?)?)?)?)?$/;

/** Date/time fields, most significant first: year, month, day, hour, minute, second. */
type Fields = [number, number, number, number, number, number];

interface Period {
  /** First second of the period, in UTC milliseconds. */
  startMs: number;
  /** First second after the period, in UTC milliseconds. */
  endMs: number;
}

const MAX = [9999, 12, 0, 23, 59, 59]; // day maximum depends on year and month
/** The first and last second a stored timestamp can name. */
const FIRST_MS = utcMs([1, 1, 1, 0, 0, 0]);
const LAST_MS = utcMs([9999, 12, 31, 23, 59, 59]);

export function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function maxOf(fields: Fields, index: number): number {
  return index === 2 ? daysInMonth(fields[0], fields[1]) : MAX[index]!;
}

function minOf(index: number): number {
  return index <= 2 ? 1 : 0; // year, month and day start at 1
}

/** Milliseconds since the epoch of UTC fields; months and days past their end carry over. */
function utcMs(f: Fields): number {
  // Date.UTC reads years 0-99 as 1900-1999; setUTCFullYear takes them as they are.
  return new Date(0).setUTCFullYear(f[0], f[1] - 1, f[2]) + ((f[3] * 60 + f[4]) * 60 + f[5]) * 1000;
}

/** `Z` → 0; `+02:00`, `-0530`, `+01` (or ` 01`, an unencoded `+`) → the offset in milliseconds. */
function offsetMs(zone: string | undefined): number | undefined {
  if (zone === undefined || zone === 'Z') return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = zone.length > 3 ? Number(zone.slice(-2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
}

function parsePeriod(text: string): Period | undefined {
  const m = PERIOD.exec(text);
  if (!m) return undefined;
  const given = m.slice(1, 7).filter((part) => part !== undefined);
  const zone = m[7];
  // Seconds need a zone, as in the stored form; it is otherwise optional.
  if (given.length === 6 && zone === undefined) return undefined;
  const offset = offsetMs(zone);
  if (offset === undefined) return undefined;
  const start: Fields = [1, 1, 1, 0, 0, 0];
  for (let i = 0; i < given.length; i++) start[i] = Number(given[i]);
  for (let i = 0; i < 6; i++) {
    if (start[i]! < minOf(i) || start[i]! > maxOf(start, i)) return undefined;
  }
  const next: Fields = [...start];
  next[given.length - 1]!++; // utcMs carries the overflow into the larger fields
  const period = { startMs: utcMs(start) - offset, endMs: utcMs(next) - offset };
  // Fractional seconds fall within their second: the stored form has no finer unit.
  return period.startMs < FIRST_MS || period.startMs > LAST_MS ? undefined : period;
}

/** The stored form of a moment within the years 0001-9999. */
function format(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The stored form of a period's end, or undefined (open) when no stored timestamp can be that late. */
function formatEnd(ms: number): string | undefined {
  return ms > LAST_MS ? undefined : format(ms);
}

/**
 * A single moment to the second (`2013-10-23T00:48:50Z`, `2013-10-23T02:48:50.120+02:00`) in the
 * stored form, normalised to UTC; undefined for anything else.
 */
export function parseTimestamp(input: string): string | undefined {
  const period = PERIOD.exec(input)?.[6] === undefined ? undefined : parsePeriod(input);
  return period && format(period.startMs);
}

/** The range of an optional, already validated filter parameter. */
export function dateRangeOf(filter: string | undefined): DateRange | undefined {
  return filter === undefined ? undefined : parseDateFilter(filter);
}

/** Parses a date filter; returns undefined when the input is invalid. */
export function parseDateFilter(input: string): DateRange | undefined {
  const parts = input.split('/');
  if (parts.length === 1) {
    const period = parsePeriod(input);
    if (!period) return undefined;
    return withoutUndefined({ from: format(period.startMs), to: formatEnd(period.endMs) });
  }
  if (parts.length !== 2) return undefined;
  const [first, last] = parts as [string, string];
  if (first === '..' && last === '..') return undefined;
  const startPeriod = first === '..' ? null : parsePeriod(first);
  const endPeriod = last === '..' ? null : parsePeriod(last);
  if (startPeriod === undefined || endPeriod === undefined) return undefined;
  // Both ends inclusive: the range is invalid when it contains no second.
  if (startPeriod && endPeriod && startPeriod.startMs >= endPeriod.endMs) return undefined;
  return withoutUndefined({
    from: startPeriod ? format(startPeriod.startMs) : undefined,
    to: endPeriod ? formatEnd(endPeriod.endMs) : undefined,
  });
}

function withoutUndefined(range: DateRange): DateRange {
  const result: DateRange = {};
  if (range.from !== undefined) result.from = range.from;
  if (range.to !== undefined) result.to = range.to;
  return result;
}
