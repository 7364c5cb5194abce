/** Timestamps are stored and returned as UTC `yyyy-mm-ddThh:mm:ssZ`, so text order is time order. */
export function toTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19) + 'Z';
}

let nowSecond = Number.NaN;
let nowText = '';

/** The current time as a timestamp; made once per second (every request asks for it). */
export function now(): string {
  const millis = Date.now();
  const second = Math.floor(millis / 1000);
  if (second !== nowSecond) {
    nowSecond = second;
    nowText = toTimestamp(new Date(millis));
  }
  return nowText;
}

/** `work`'s outcome, or a rejection once `ms` have passed without one. */
export function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The current time with its milliseconds (`2026-11-29T06:07:16.123Z`): for instants compared with each other, never shown. */
export function preciseNow(): string {
  return new Date().toISOString();
}
