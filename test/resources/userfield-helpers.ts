import assert from 'node:assert/strict';
import type { Harness, RequestOptions } from '../helpers/harness.js';

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

/** The fields of one category, in list order. */
export async function fieldsIn(h: Harness, categoryId: string, options: RequestOptions = {}) {
  return (await listAll(h, 'userfields', {}, options)).filter((field) => field.categoryId === categoryId);
}

/** List order and orderIndex agree, and orderIndex runs 0..n-1 without gaps or repeats. */
export function assertDense(items: { orderIndex: number }[], message?: string): void {
  assert.deepEqual(
    items.map((item) => item.orderIndex),
    items.map((_, index) => index),
    message,
  );
}

export function createCategory(h: Harness, type: 'public' | 'private' = 'public', name = unique('Category'), options?: RequestOptions) {
  return h.create('userfieldcategories', { name, type }, options);
}

/** A text field in the category, named uniquely unless `name` is given. */
export function createTextField(h: Harness, categoryId: string, extra: Record<string, unknown> = {}, options?: RequestOptions) {
  return h.create('userfields', { type: 'text', name: unique('Field'), categoryId, ...extra }, options);
}

export async function createUser(h: Harness, options?: RequestOptions): Promise<string> {
  return h.create('users', { email: `${unique('user').replace(' ', '')}@example.com` }, options);
}
