import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Harness, RequestOptions } from './harness.js';

let counter = 0;

/** A name no other test of the file uses, so tests sharing one database stay independent. */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix} ${counter}`;
}

/** Every item of a collection, read page by page in the collection's order. */
export async function listAll(h: Harness, collection: string, query: Record<string, string> = {}, options: RequestOptions = {}) {
  const items: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const response = await h.get(collection, { ...options, query: { ...query, limit: '100', offset: String(offset) } });
    assert.equal(response.statusCode, 200, response.body);
    const page = response.json();
    items.push(...page.results);
    if (!page.next) return items;
  }
}

/** List order and orderIndex agree, and orderIndex runs 0..n-1 without gaps or repeats. */
export function assertDense(items: { orderIndex: number }[], message?: string): void {
  assert.deepEqual(
    items.map((item) => item.orderIndex),
    items.map((_, index) => index),
    message,
  );
}

/** A user with a unique email; returns its id. */
export async function createUser(h: Harness, options?: RequestOptions): Promise<string> {
  return h.create('users', { email: `${unique('user').replace(' ', '')}@example.com` }, options);
}

/** An item without its updatedDate, which any write may move, for comparing what a write was meant to change. */
export function withoutUpdatedDate<T extends { updatedDate?: string }>(item: T): Omit<T, 'updatedDate'> {
  const { updatedDate: _updatedDate, ...rest } = item;
  return rest;
}

/** A moment long before any test runs: a row set back to it has visibly changed once its updatedDate moves. */
export const LONG_AGO = '2001-02-03T04:05:06Z';

/** Sets rows' updated_date directly, so tests need not wait for the clock to pass a second. */
export async function setUpdated(h: Harness, table: string, ids: readonly string[], at = LONG_AGO): Promise<void> {
  await sql`update ${sql.table(table)} set updated_date = ${at} where id in (${sql.join(ids)})`.execute(h.database.db);
}
