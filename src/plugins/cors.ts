import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** What a browser client may send and read: Location after a create, the request id, a safe retry's key and whether it was replayed, the reasons behind a refusal. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-Request-Id', 'Idempotency-Key'];
const EXPOSED_HEADERS = ['Location', 'X-Request-Id', 'Retry-After', 'WWW-Authenticate', 'Allow', 'Idempotent-Replayed'];
/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

/**
 * Cross-origin requests from browser applications at `origins` (CORS_ORIGINS). A preflight is
 * answered here, before authentication: the browser sends it without the Authorization header. A
 * request from any other origin gets no CORS headers, so browsers keep it from the page, and its
 * OPTIONS goes on to the usual 401/405. Tokens travel in a header, never in cookies: no credentials.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  const allowed = new Set(origins);
  await app.register(cors, {
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    strictPreflight: false,
    hideOptionsRoute: true,
  });
}
