import type { FastifyRequest } from 'fastify';
import type { JsonItems, PageBody, Paging } from '../lib/paging.js';
import { requestOrigin } from './urls.js';

function pageUrl(request: FastifyRequest, limit: number, offset: number, origin: string): string {
  const [path, query = ''] = request.url.split('?', 2) as [string, string?];
  const params = new URLSearchParams(query);
  params.set('limit', String(limit));
  params.set('offset', String(offset));
  return `${origin}${path}?${params.toString()}`;
}

/** The links of a page's envelope, in the order the Page schema lists them. */
function pageLinks(request: FastifyRequest, more: boolean, paging: Paging): Omit<PageBody<never>, 'results'> {
  const { limit, offset } = paging;
  const links: Omit<PageBody<never>, 'results'> = {};
  const origin = requestOrigin(request);
  if (more) links.next = pageUrl(request, limit, offset + limit, origin);
  if (offset > 0) links.prev = links.previous = pageUrl(request, limit, Math.max(0, offset - limit), origin);
  return links;
}

/**
 * Builds the envelope from up to `limit + 1` rows read at `offset`: the extra row only tells that a
 * next page exists, so no count query is needed.
 */
export function pageOf<T>(request: FastifyRequest, rows: T[], paging: Paging): PageBody<T> {
  return { results: rows.slice(0, paging.limit), ...pageLinks(request, rows.length > paging.limit, paging) };
}

/**
 * The same envelope as JSON text around items the database wrote as JSON already: byte for byte
 * what the response serializer writes for `pageOf` (properties in the Page schema's order).
 */
export function pageJsonOf(request: FastifyRequest, items: JsonItems, paging: Paging): string {
  let body = `{"results":${items.json}`;
  for (const [name, link] of Object.entries(pageLinks(request, items.more, paging))) body += `,"${name}":${JSON.stringify(link)}`;
  return `${body}}`;
}
