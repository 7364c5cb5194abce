import { setTimeout as delay } from 'node:timers/promises';

export interface EventuallyOptions {
  /** What is awaited, for the failure's message. */
  what: string;
  /** How long it may take: generous, as the machines are shared. */
  timeoutMs?: number;
  /** How often to look again. */
  intervalMs?: number;
}

/**
 * Waits until `check` gives a value other than undefined or false, and returns that value; looks
 * again every `intervalMs`, and fails naming `what` (and the last value seen) after `timeoutMs`.
 * Tests wait for a state, never for a fixed time.
 */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, options: EventuallyOptions): Promise<T> {
  const { what, timeoutMs = 30_000, intervalMs = 50 } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(intervalMs);
  }
}
