import { NotFound } from './domain-errors.js';
import { isId } from './ids.js';

/** The row, or the 404 of v5 when there is none. */
export function found<T>(row: T | undefined): T {
  if (row === undefined) throw new NotFound();
  return row;
}

/**
 * The row `find` gives for `id`, or the 404 of v5. An id of any other form than ours does not
 * exist, and is not found without a query.
 */
export async function findById<T>(id: string, find: (id: string) => Promise<T | undefined>): Promise<T> {
  if (!isId(id)) throw new NotFound();
  return found(await find(id));
}
