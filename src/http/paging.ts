import type { FastifyRequest } from 'fastify';
import type { PageBody, Paging } from '../lib/paging.js';
import { requestOrigin } from './urls.js';

function pageUrl(request: FastifyRequest, limit: number, offset: number, origin: string): string {
  const [path, query = ''] = request.url.split('?', 2) as [string, string?];
  const params = new URLSearchParams(query);
  params.set('limit', String(limit));
  params.set('offset', String(offset));
  return `${origin}${path}?${params.toString()}`;
}

/**
 * Builds the envelope from up to `limit + 1` rows read at `offset`: the extra row only tells that a
 * next page exists, so no count query is needed.
 */
export function pageOf<T>(request: FastifyRequest, rows: T[], paging: Paging): PageBody<T> {
  const { limit, offset } = paging;
  const page: PageBody<T> = { results: rows.slice(0, limit) };
  const origin = requestOrigin(request);
  if (rows.length > limit) page.next = pageUrl(request, limit, offset + limit, origin);
  if (offset > 0) page.prev = page.previous = pageUrl(request, limit, Math.max(0, offset - limit), origin);
  return page;
}
