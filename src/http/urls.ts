import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Origin for absolute URLs (PUBLIC_URL), when configured. */
    publicUrl?: string;
  }
}

export function requestOrigin(request: FastifyRequest): string {
  return request.server.publicUrl ?? `${request.protocol}://${request.host}`;
}

/** Absolute URL of an item under the base path the request used (`/api/v5` or its `/dc/api/v5` alias). */
export function itemUrl(request: FastifyRequest, collection: string, id: string): string {
  const route = request.routeOptions.url ?? '';
  const base = route.slice(0, route.indexOf('/api/v5') + '/api/v5'.length);
  return `${requestOrigin(request)}${base}/${collection}/${id}`;
}
