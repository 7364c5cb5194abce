/**
 * A sliding window of request counts: the window is cut into SLOTS slots, and a request is admitted
 * while the slots that overlap the last window hold fewer than `max` requests. The oldest slot,
 * partly outside the window, is counted whole, so the count never falls short: no interval as long
 * as the window ever admits more than `max` (a fixed window lets twice that through across its edge).
 * The price is that a slot's requests are forgotten up to 1/SLOTS of the window late.
 */
export const SLOTS = 20;

export interface Limit {
  /** Requests per window. */
  max: number;
  windowMs: number;
}

export interface Decision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Milliseconds until a slot's requests are forgotten (a refused request may then be admitted). */
  resetMs: number;
}

/** A slot's index and its count. */
export type Slot = readonly [index: number, count: number];

export function slotWidth(limit: Limit): number {
  return limit.windowMs / SLOTS;
}

export function slotIndex(limit: Limit, at: number): number {
  return Math.floor(at / slotWidth(limit));
}

/**
 * Slots with an index above this one still count at slot `current`: the last SLOTS slots and the one
 * before them, which the window's start falls into.
 */
export function oldestForgotten(current: number): number {
  return current - SLOTS - 1;
}

/**
 * The decision, from the counted slots as they are after it (the admitted request included):
 * how many are left, and when the oldest slots are forgotten far enough for one more request.
 */
export function decide(limit: Limit, at: number, slots: readonly Slot[], allowed: boolean): Decision {
  const width = slotWidth(limit);
  const ordered = [...slots].filter(([, count]) => count > 0).sort((a, b) => a[0] - b[0]);
  let total = ordered.reduce((sum, [, count]) => sum + count, 0);
  const remaining = Math.max(0, limit.max - total);
  // When the slot at index i stops counting: at the start of slot i + SLOTS + 1.
  const forgotten = (index: number) => Math.max(1, (index + SLOTS + 1) * width - at);
  let resetMs = ordered.length > 0 ? forgotten(ordered[0]![0]) : limit.windowMs;
  if (remaining === 0) {
    for (const [index, count] of ordered) {
      total -= count;
      resetMs = forgotten(index);
      if (total < limit.max) break;
    }
  }
  return { allowed, limit: limit.max, remaining, resetMs };
}

/** Counts requests per key; admitted requests are counted, refused ones are not. */
export interface WindowStore {
  take(key: string, limit: Limit, at: number): Promise<Decision>;
  /** What `take` would decide now, counting nothing. */
  peek(key: string, limit: Limit, at: number): Promise<Decision>;
  close(): Promise<void>;
}

/** Most keys one instance remembers: beyond it the least recently seen are dropped (a flood of addresses costs bounded memory). */
export const MAX_KEYS = 100_000;

/** The counters of one process, for a single instance. */
export function memoryStore(): WindowStore {
  const counters = new Map<string, Map<number, number>>();

  function slotsOf(key: string, current: number): Map<number, number> {
    const slots = counters.get(key) ?? new Map<number, number>();
    counters.delete(key); // re-inserted below: the Map's order is the order of last use
    for (const index of slots.keys()) if (index <= oldestForgotten(current)) slots.delete(index);
    counters.set(key, slots);
    if (counters.size > MAX_KEYS) counters.delete(counters.keys().next().value!);
    return slots;
  }

  return {
    async take(key, limit, at) {
      const current = slotIndex(limit, at);
      const slots = slotsOf(key, current);
      let total = 0;
      for (const count of slots.values()) total += count;
      const allowed = total < limit.max;
      if (allowed) slots.set(current, (slots.get(current) ?? 0) + 1);
      return decide(limit, at, [...slots], allowed);
    },
    async peek(key, limit, at) {
      const slots = [...(counters.get(key) ?? [])].filter(([index]) => index > oldestForgotten(slotIndex(limit, at)));
      const total = slots.reduce((sum, [, count]) => sum + count, 0);
      return decide(limit, at, slots, total < limit.max);
    },
    async close() {
      counters.clear();
    },
  };
}
