/** Items per statement that lists them: far below both engines' limits on bound parameters (SQLite: 32,766). */
const BATCH = 500;

/** `items` in slices of at most BATCH. */
export function batches<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += BATCH) result.push(items.slice(start, start + BATCH));
  return result;
}

/** The rows `query` finds for each slice of `items`, one statement after another, all together. */
export async function findInBatches<T, R>(items: readonly T[], query: (batch: T[]) => Promise<R[]>): Promise<R[]> {
  const rows: R[] = [];
  for (const batch of batches(items)) rows.push(...(await query(batch)));
  return rows;
}
