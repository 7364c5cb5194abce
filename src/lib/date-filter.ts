/**
 * Parser for date filters in collection query strings (createdDate,
 * lastLoginDate, beginDate, endDate, lastActiveDate).
 *
 * Stored timestamps use the fixed UTC form yyyy-mm-ddThh:mm:ssZ, so a filter
 * is turned into a half-open interval of such strings that can be compared
 * lexically: from <= stored < to.
 */

/** Half-open interval [from, to) in stored timestamp form; a missing end is open. */
export interface DateRange {
  from?: string;
  to?: string;
}

export const DATE_FILTER_HINT =
  'must be a date such as 2013-10-23T00:48:50Z, 2013, 2013-10, 2013-10-23, 2013-10-23T00 or 2013-10-23T00:48, ' +
  'or a range from/to of those where either end may be ..';

/** yyyy[-mm[-dd[Thh[:mm[:ss]]][Z]]]; a trailing Z only after a time, and required after seconds. */
const PERIOD = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2}))?)?(Z?))?)?)?$/;

/** Date/time fields, most significant first: year, month, day, hour, minute, second. */
type Fields = [number, number, number, number, number, number];

interface Period {
  /** First second of the period. */
  start: Fields;
  /** How many fields were given (1 = year only ... 6 = to the second). */
  precision: number;
}

const MAX = [9999, 12, 0, 23, 59, 59]; // day maximum depends on year and month

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

function parsePeriod(text: string): Period | undefined {
  const m = PERIOD.exec(text);
  if (!m) return undefined;
  const given = m.slice(1, 7).filter((part) => part !== undefined);
  // Seconds need the Z of the stored form; Z is otherwise optional.
  if (given.length === 6 && m[7] !== 'Z') return undefined;
  const start: Fields = [1, 1, 1, 0, 0, 0];
  for (let i = 0; i < given.length; i++) start[i] = Number(given[i]);
  for (let i = 0; i < 6; i++) {
    if (start[i]! < minOf(i) || start[i]! > maxOf(start, i)) return undefined;
  }
  return { start, precision: given.length };
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

function format(f: Fields): string {
  return `${pad(f[0], 4)}-${pad(f[1], 2)}-${pad(f[2], 2)}T${pad(f[3], 2)}:${pad(f[4], 2)}:${pad(f[5], 2)}Z`;
}

/**
 * First second after the period, or undefined when that would fall after
 * year 9999 (it could not be compared as a string, and no stored value can
 * be that late, so the end is simply left open).
 */
function endOfPeriod({ start, precision }: Period): string | undefined {
  const next: Fields = [...start];
  // Increment the least significant given field, carrying upwards.
  for (let i = precision - 1; i >= 0; i--) {
    if (next[i]! < maxOf(next, i)) {
      next[i]!++;
      return format(next);
    }
    if (i === 0) return undefined;
    next[i] = minOf(i);
  }
  return undefined;
}

/** Parses a date filter; returns undefined when the input is invalid. */
export function parseDateFilter(input: string): DateRange | undefined {
  const parts = input.split('/');
  if (parts.length === 1) {
    const period = parsePeriod(input);
    if (!period) return undefined;
    return withoutUndefined({ from: format(period.start), to: endOfPeriod(period) });
  }
  if (parts.length !== 2) return undefined;
  const [first, last] = parts as [string, string];
  if (first === '..' && last === '..') return undefined;
  const startPeriod = first === '..' ? null : parsePeriod(first);
  const endPeriod = last === '..' ? null : parsePeriod(last);
  if (startPeriod === undefined || endPeriod === undefined) return undefined;
  const from = startPeriod ? format(startPeriod.start) : undefined;
  const to = endPeriod ? endOfPeriod(endPeriod) : undefined;
  // Both ends inclusive: the range is invalid when it contains no second.
  if (from !== undefined && to !== undefined && from >= to) return undefined;
  return withoutUndefined({ from, to });
}

function withoutUndefined(range: DateRange): DateRange {
  const result: DateRange = {};
  if (range.from !== undefined) result.from = range.from;
  if (range.to !== undefined) result.to = range.to;
  return result;
}
