/** Timestamps are stored and returned as UTC `yyyy-mm-ddThh:mm:ssZ`, so text order is time order. */
export function toTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19) + 'Z';
}

export function now(): string {
  return toTimestamp(new Date());
}
