/** How often `eventually` looks again. */
const INTERVAL_MS = 20;

/**
 * Looks at `read` until `done` holds of what it gives, and gives that; fails after `timeoutMs` with
 * the last value seen. For work a request starts in the background (an import job).
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Still not done after ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
  }
}
