import type { Paging } from '../lib/paging.js';

const PAGE = 100;

/**
 * Every item of a service's list, page by page. A service answers up to `limit + 1` items, the last
 * only telling that a next page exists; the next page starts after the `limit` kept.
 */
export async function everyItem<T>(list: (paging: Paging) => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await list({ limit: PAGE, offset });
    all.push(...page.slice(0, PAGE));
    if (page.length <= PAGE) return all;
  }
}
