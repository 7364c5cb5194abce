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

/** One page of the feed: GET /events with `query`, from the harness or a server process. */
export type FeedPage = (query: Record<string, string>) => Promise<{ status: number; body: any }>;

export const harnessFeed =
  (h: Harness): FeedPage =>
  async (query) => {
    const response = await h.get('events', { query });
    return { status: response.statusCode, body: response.json() };
  };

/** A consumer of the feed as a sync job runs one: it reads on after its cursor, and keeps every event in the order it read them. */
export class FeedConsumer {
  readonly events: any[] = [];
  /** `cursor`: the id of the last event read before, as a job that ran before knows it. */
  constructor(
    private readonly page: FeedPage,
    private cursor?: string,
  ) {}

  /** Reads every event after the cursor, page by page; returns those. */
  async poll(): Promise<any[]> {
    const read: any[] = [];
    for (;;) {
      const { status, body } = await this.page({ limit: '100', ...(this.cursor ? { after: this.cursor } : {}) });
      assert.equal(status, 200, JSON.stringify(body));
      read.push(...body.results);
      this.cursor = body.results.at(-1)?.id ?? this.cursor;
      if (!body.next) break;
    }
    this.events.push(...read);
    return read;
  }

  /** Every event read twice or more. */
  duplicates(): string[] {
    const seen = new Set<string>();
    return this.events.map((event) => event.id).filter((id) => seen.has(id) || !seen.add(id));
  }
}
