import type { FastifyInstance } from 'fastify';
import { errors } from '../lib/errors.js';
import { sendError } from './errors.js';

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
 * Routes are remembered as they are added, and the not-found handler tells the two cases apart.
 */
export function registerNotFound(app: FastifyInstance): void {
  const routes = new Map<string, RoutePattern>();
  app.addHook('onRoute', (route) => {
    const entry = routes.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) entry.methods.add(method);
    routes.set(route.url, entry);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0]!;
    const allowed = new Set<string>();
    for (const { pattern, methods } of routes.values()) {
      if (pattern.test(path)) for (const method of methods) allowed.add(method);
    }
    if (allowed.size === 0) return sendError(reply, errors.noSuchAddress());
    if (allowed.has('GET')) allowed.add('HEAD');
    return sendError(reply, errors.methodNotAllowed(request.method, [...allowed].sort()));
  });
}
