import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../lib/errors.js';

const JSON_RANGES = new Set(['*/*', 'application/*', 'application/json']);

/** Absent, `*\/*`, `application/*` or `application/json` (with any non-zero q) accept JSON. */
export function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return JSON_RANGES.has(type!.trim()) && (!q || Number(q.slice(2)) > 0);
  });
}

export function isApiPath(url: string): boolean {
  return url.startsWith('/api/v5') || url.startsWith('/dc/api/v5');
}

/**
 * Protocol rules that apply before any handler: X-Request-Id on every response, HTTPS behind a
 * proxy, and Accept negotiation (after routing, so an unknown address is still a 404 first).
 */
export function registerProtocol(app: FastifyInstance, options: { trustProxy: boolean }): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    if (options.trustProxy && request.headers['x-forwarded-proto'] !== 'https') throw errors.httpsRequired();
  });
}

export function registerAcceptCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (!request.is404 && !acceptsJson(request.headers.accept)) throw errors.notAcceptable();
  });
}

/** Bodies are JSON; an empty body (a DELETE sent with a JSON content type) is simply no body. */
export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json']);
  const defaultParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    defaultParser(request, body as string, done);
  });
}
