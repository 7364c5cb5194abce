import { listAll, unique } from './collections.js';
import type { Harness, RequestOptions } from './harness.js';

/** The fields of one category, in list order. */
export async function fieldsIn(h: Harness, categoryId: string, options: RequestOptions = {}) {
  return (await listAll(h, 'userfields', {}, options)).filter((field) => field.categoryId === categoryId);
}

export function createCategory(h: Harness, type: 'public' | 'private' = 'public', name = unique('Category'), options?: RequestOptions) {
  return h.create('userfieldcategories', { name, type }, options);
}

/** A text field in the category, named uniquely unless `name` is given. */
export function createTextField(h: Harness, categoryId: string, extra: Record<string, unknown> = {}, options?: RequestOptions) {
  return h.create('userfields', { type: 'text', name: unique('Field'), categoryId, ...extra }, options);
}
