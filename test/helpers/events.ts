import assert from 'node:assert/strict';
import type { Harness } from './harness.js';

/** Every event of the organization after `after`, read page by page through `next`. */
export async function eventsAfter(h: Harness, after?: string, token?: string): Promise<any[]> {
  const events: any[] = [];
  let query: Record<string, string> = { limit: '7', ...(after ? { after } : {}) };
  for (;;) {
    const response = await h.get('events', { query, ...(token ? { token } : {}) });
    assert.equal(response.statusCode, 200, response.body);
    const page = response.json();
    events.push(...page.results);
    if (!page.next) return events;
    query = Object.fromEntries(new URL(page.next).searchParams);
  }
}
