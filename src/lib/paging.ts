import { Type, type TProperties, type TSchema } from '@sinclair/typebox';

export const DEFAULT_LIMIT = 15;
const MAX_LIMIT = 100;
/** Larger numbers are no longer exact in JavaScript, nor an OFFSET either database accepts. */
const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

export const PagingQuery = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, errorMessage: `must be an integer from 1 to ${MAX_LIMIT}` }),
  ),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, errorMessage: `must be an integer from 0 to ${MAX_OFFSET}` })),
};

/** The query string of a paged list: limit and offset, then the list's own filters; any other parameter is a 400. */
export function ListQuery<F extends TProperties>(filters: F) {
  return Type.Object({ ...PagingQuery, ...filters }, { additionalProperties: false });
}

export interface Paging {
  limit: number;
  offset: number;
}

export function pagingOf(query: { limit?: number; offset?: number }): Paging {
  return { limit: query.limit ?? DEFAULT_LIMIT, offset: query.offset ?? 0 };
}

/** The paged envelope of v5; `previous` repeats `prev` for clients that read that name. */
export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    results: Type.Array(item),
    next: Type.Optional(Type.String({ format: 'uri', description: 'Present when more items follow' })),
    prev: Type.Optional(Type.String({ format: 'uri', description: 'Present when offset > 0' })),
    previous: Type.Optional(Type.String({ format: 'uri', description: 'Same as prev' })),
  });
}

/** A page's items as JSON text (`[{...},...]`), and whether a next page exists. */
export interface JsonItems {
  json: string;
  more: boolean;
}

export interface PageBody<T> {
  results: T[];
  next?: string;
  prev?: string;
  previous?: string;
}
