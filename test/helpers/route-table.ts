import { channel } from 'node:diagnostics_channel';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';

/**
 * The routes of every app built in this process, as Fastify registered them: a subscriber to
 * Fastify's `fastify.initialization` channel adds an `onRoute` hook before the app adds any route,
 * so tests driven by this table cover a new route without anyone writing its test.
 */
const registered = new WeakMap<FastifyInstance, RouteOptions[]>();

channel('fastify.initialization').subscribe((message) => {
  const { fastify } = message as { fastify: FastifyInstance };
  const routes: RouteOptions[] = [];
  registered.set(fastify, routes);
  fastify.addHook('onRoute', (route) => {
    routes.push(route);
  });
});

export type Api = 'v5' | 'scim';

export interface ApiRoute {
  api: Api;
  method: string;
  /** As registered, with its prefix: `/dc/api/v5/users/:id`. */
  url: string;
  /** The route without the v5 base path (`PUT /users/:id`); SCIM routes keep theirs (`GET /scim/v2/Users`). */
  key: string;
  /** Read after the app is ready, so every `onRoute` hook has had its say (the default querystring). */
  schema: FastifySchema;
  /** The names of its path parameters, in order. */
  params: string[];
}

const V5_BASES = ['/api/v5', '/dc/api/v5'];
const SCIM_BASE = '/scim/v2';

/** Routes that take no bearer token, each with the reason; every other route must refuse a request without one. */
export const PUBLIC_ROUTES: { method: string; url: RegExp; reason: string }[] = [
  { method: 'GET', url: /^\/healthz$/, reason: 'liveness probe of a load balancer; answers {"status":"ok"} and nothing else' },
  { method: 'GET', url: /^\/readyz$/, reason: 'readiness probe of a load balancer; reveals only whether the database answers' },
  { method: 'GET', url: /^(\/dc)?\/api\/v5\/openapi\.json$/, reason: 'the public description of the API' },
  { method: 'GET', url: /^\/docs(\/.*)?$/, reason: 'the documentation page and its static files' },
  { method: 'GET', url: /^\/\.well-known\/oauth-authorization-server$/, reason: 'RFC 8414 metadata, public by definition' },
  { method: 'POST', url: /^\/oauth\/token$/, reason: 'authenticated by client credentials (RFC 6749 §4.4), not by a bearer token' },
  { method: 'POST', url: /^\/oauth\/revoke$/, reason: 'authenticated by client credentials (RFC 7009 §2.1)' },
];

export function isPublic(method: string, url: string): boolean {
  return PUBLIC_ROUTES.some((route) => route.method === method && route.url.test(url));
}

function apiOf(url: string): Api | undefined {
  if (V5_BASES.some((base) => url.startsWith(`${base}/`))) return 'v5';
  if (url.startsWith(`${SCIM_BASE}/`)) return 'scim';
  return undefined;
}

function keyOf(method: string, url: string): string {
  const base = V5_BASES.find((prefix) => url.startsWith(`${prefix}/`));
  return `${method} ${base ? url.slice(base.length) : url}`;
}

export interface RouteTable {
  /** Routes that require a token, under /api/v5, /dc/api/v5 and /scim/v2. */
  api: ApiRoute[];
  /** Every other route, as `METHOD url`; each must match a PUBLIC_ROUTES entry. */
  other: string[];
}

/** The routes of `app` (built after this module was loaded), HEAD aside: Fastify adds one to every GET. */
export function routeTable(app: FastifyInstance): RouteTable {
  const routes = registered.get(app);
  if (!routes) throw new Error('The app was built before test/helpers/route-table.js was loaded');
  const table: RouteTable = { api: [], other: [] };
  for (const route of routes) {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      const api = apiOf(route.url);
      if (!api || isPublic(method, route.url)) {
        table.other.push(`${method} ${route.url}`);
        continue;
      }
      const params = route.url.split('/').flatMap((segment) => (segment.startsWith(':') ? [segment.slice(1)] : []));
      table.api.push({ api, method, url: route.url, key: keyOf(method, route.url), schema: route.schema ?? {}, params });
    }
  }
  return table;
}

/** The URL of `route` with each path parameter given by `value(name, segment before it)`, encoded by `encode`. */
export function fillPath(
  route: ApiRoute,
  value: (param: string, kind: string) => string,
  encode: (segment: string) => string = encodeURIComponent,
): string {
  const segments = route.url.split('/');
  return segments.map((segment, index) => (segment.startsWith(':') ? encode(value(segment.slice(1), segments[index - 1]!)) : segment)).join('/');
}

export const isWrite = (route: ApiRoute) => route.method !== 'GET';
