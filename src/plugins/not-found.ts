import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors, type ApiError } from '../lib/errors.js';
import { sendError } from './errors.js';
import { isPagePath, isUnrouted, routedPath } from './protocol.js';

interface RoutePattern {
  pattern: RegExp;
  methods: Set<string>;
}

function patternOf(url: string): RegExp {
  const source = url
    .replace(/\/$/, '')
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * Fastify answers 404 for a known path with an unknown method; v5 clients deserve 405 with `Allow`.
 * Routes are remembered as they are added, so an unmatched request can be told apart. The answer is
 * given in `onRequest` (registered after authentication, so 401 still comes first): an unknown
 * address is refused before its body is read or parsed.
 */
export function registerNotFound(app: FastifyInstance): void {
  const routes = new Map<string, RoutePattern>();
  app.addHook('onRoute', (route) => {
    const entry = routes.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) entry.methods.add(method);
    routes.set(route.url, entry);
  });

  function addressError(request: FastifyRequest): ApiError {
    const path = routedPath(request);
    const allowed = new Set<string>();
    for (const { pattern, methods } of routes.values()) {
      if (pattern.test(path)) for (const method of methods) allowed.add(method);
    }
    if (allowed.size === 0) return errors.noSuchAddress();
    if (allowed.has('GET')) allowed.add('HEAD');
    return errors.methodNotAllowed(request.method, [...allowed].sort());
  }

  app.addHook('onRequest', (request, _reply, done) => {
    done(isUnrouted(request) && !isPagePath(routedPath(request)) ? addressError(request) : undefined);
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, addressError(request)));
}
