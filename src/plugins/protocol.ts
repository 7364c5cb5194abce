import type { FastifyInstance, FastifyRequest, FastifySchemaValidationError, preParsingHookHandler } from 'fastify';
import { validationError } from '../http/validation-errors.js';
import { ApiError, errors } from '../lib/errors.js';
import { textErrors } from './validation.js';

const JSON_RANGES = new Set(['*/*', 'application/*', 'application/json']);

/**
 * Absent, `*\/*`, `application/*` or `application/json` (with any non-zero q) accept JSON; `ranges`
 * widens that (SCIM's own `application/scim+json`).
 */
export function acceptsJson(accept: string | undefined, ranges: ReadonlySet<string> = JSON_RANGES): boolean {
  if (!accept) return true;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return ranges.has(type!.trim()) && (!q || Number(q.slice(2)) > 0);
  });
}

export const SCIM_MEDIA_TYPE = 'application/scim+json';
export const SCIM_RANGES: ReadonlySet<string> = new Set([...JSON_RANGES, SCIM_MEDIA_TYPE]);

const API_PATH = /^(?:\/dc)?\/api\/v5(?:\/|$)/;

export function isApiPath(path: string): boolean {
  return API_PATH.test(path);
}

const SCIM_PATH = /^\/scim\/v2(?:\/|$)/;

/** The provisioning API (SCIM 2.0), which follows RFC 7644 instead of the v5 protocol rules. */
export function isScimPath(path: string): boolean {
  return SCIM_PATH.test(path);
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The pattern of the route matched (`''` for none), once read: see `matchedRoute`. */
    matchedRouteUrl: string | null;
  }
}

/**
 * The pattern of the route the request matched, `''` when none did. Read once per request: the
 * hooks ask several times each, and Fastify's `request.routeOptions` builds a new object of a dozen
 * properties at every read.
 */
function matchedRoute(request: FastifyRequest): string {
  let url = request.matchedRouteUrl;
  if (url == null) url = request.matchedRouteUrl = request.is404 ? '' : (request.routeOptions.url ?? '');
  return url;
}

/** No route of ours matched: Fastify's 404, or the catch-all OPTIONS route of CORS (plugins/cors.ts), which only answers preflights. */
export function isUnrouted(request: FastifyRequest): boolean {
  return !isOwnRoute(matchedRoute(request));
}

/** A pattern of one of our routes: not none (`''`), nor the catch-all OPTIONS route of CORS (`*`). */
function isOwnRoute(url: string): boolean {
  return url !== '' && url !== '*';
}

/**
 * The path the router sees: the matched route's pattern, or for an unmatched address the
 * percent-decoded path, so an encoded prefix (`/api/%765/users`) cannot slip past a check on it.
 */
export function routedPath(request: FastifyRequest): string {
  const url = matchedRoute(request);
  if (isOwnRoute(url)) return url;
  const raw = request.url.split('?', 1)[0]!;
  try {
    return decodeURI(raw);
  } catch {
    return raw;
  }
}

/** The people's pages (sign-in, account), under /o: they answer an unknown address with a page of their own. */
export function isPagePath(path: string): boolean {
  return path.startsWith('/o/');
}

/** Health probes of a load balancer arrive straight, not through the TLS-terminating proxy, and are never rate limited. */
const PROBES = new Set(['/healthz', '/readyz']);

export function isProbePath(path: string): boolean {
  return PROBES.has(path);
}

/** The OAuth 2.0 endpoints (/oauth/token, /oauth/revoke), which answer in RFC 6749's shapes. */
export function isOAuthPath(path: string): boolean {
  return path.startsWith('/oauth/');
}

/** Node keeps the first of several Host headers: they are counted in the raw ones. */
function hostHeaderCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    // Only a name of four letters can be Host: the others are not lowercased to find out.
    const name = rawHeaders[index]!;
    if (name.length === 4 && name.toLowerCase() === 'host') count += 1;
  }
  return count;
}

/**
 * Protocol rules that apply before any handler: X-Request-Id on every response, one Host on every
 * HTTP/1.1 request (RFC 9112 §3.2: none or several is a 400), HTTPS behind a proxy, and Accept negotiation (after routing, so
 * an unknown address is still a 404 first).
 */
export function registerProtocol(app: FastifyInstance, options: { trustProxy: boolean }): void {
  // Every request has the property from the start, so that its objects keep one shape.
  app.decorateRequest('matchedRouteUrl', null);
  app.addHook('onRequest', (request, reply, done) => {
    // Lower case, as Fastify keeps header names (security-headers.ts says why).
    reply.header('x-request-id', request.id);
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      reply.header('Connection', 'close');
      return done(errors.missingHost());
    }
    if (hostHeaderCount(request.raw.rawHeaders) > 1) {
      reply.header('Connection', 'close');
      return done(errors.duplicateHost());
    }
    if (options.trustProxy && request.protocol !== 'https' && !isProbePath(routedPath(request))) {
      return done(errors.httpsRequired());
    }
    done();
  });
}

/** Only the API is JSON-only; the /docs page is for browsers. */
export function registerAcceptCheck(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    done(!isUnrouted(request) && isApiPath(routedPath(request)) && !acceptsJson(request.headers.accept) ? errors.notAcceptable() : undefined);
  });
}

/** Keys that would reach an object's prototype if a body were ever merged into one. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Bodies without this cannot hold a forbidden key (a `\u` escape could spell one), so they skip the slower check. */
const MAY_HOLD_FORBIDDEN_KEY = /__proto__|constructor|prototype|\\u/;

function rejectForbiddenKeys(key: string, value: unknown): unknown {
  if (FORBIDDEN_KEYS.has(key)) throw errors.badRequest(`The property name "${key}" is not allowed`);
  return value;
}

/** Whether a request carries a body at all (a DELETE may name a Content-Type and send nothing). */
export function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const INVALID_UTF8 = 'The request body is not valid UTF-8';
/** What invalid UTF-8 decodes to when it is replaced instead of refused. */
const REPLACEMENT = '\uFFFD';

/**
 * The 400 for a body that is not UTF-8, naming the texts that hold the invalid bytes where they
 * are in texts (a body that also sends U+FFFD itself may get that text named as well).
 */
function invalidUtf8(bytes: Buffer): ApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return errors.badRequest(INVALID_UTF8);
  }
  const found = textErrors(parsed, (text) => (text.includes(REPLACEMENT) ? 'must be valid UTF-8' : undefined));
  return found.length > 0 ? validationError(found as FastifySchemaValidationError[], 'body') : errors.badRequest(INVALID_UTF8);
}

/** A JSON body in UTF-8, with forbidden keys refused; an empty body is no body. */
export function parseJsonBody(_request: FastifyRequest, body: string | Buffer, done: (error: Error | null, value?: unknown) => void): void {
  const bytes = body as Buffer;
  if (bytes.length === 0) return done(null, undefined);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return done(invalidUtf8(bytes), undefined);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, MAY_HOLD_FORBIDDEN_KEY.test(text) ? rejectForbiddenKeys : undefined);
  } catch (error) {
    return done(error instanceof ApiError ? error : errors.badRequest('The request body is not valid JSON'), undefined);
  }
  done(null, parsed);
}

/** Bodies are sent as they are: a compressed one would otherwise be read as text. */
function contentEncodingRefusal(request: FastifyRequest): Error | undefined {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity' && hasBody(request)) return errors.unsupportedContentEncoding();
  return undefined;
}

/** Fastify reads no body for these methods, so there is none to refuse. */
const BODILESS_METHODS = new Set(['GET', 'HEAD']);

/**
 * Bodies are JSON and nothing else (Fastify would also parse text/plain). A request without a body
 * (a DELETE sent with some content type) is simply bodiless, whatever its Content-Type. The JSON
 * parser's own message is not passed on: it may quote the body, and a refusal's message is logged.
 * The Content-Encoding check is a hook of the routes that may read a body only: a GET's body is
 * never read, and its route runs no preParsing hook at all.
 */
export function registerJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const refuseEncoded: preParsingHookHandler = (request, _reply, payload, done) => {
    const refusal = contentEncodingRefusal(request);
    if (refusal) done(refusal);
    else done(null, payload);
  };
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().every((method) => BODILESS_METHODS.has(method))) return;
    route.preParsing = [...[route.preParsing ?? []].flat(), refuseEncoded];
  });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJsonBody);
  app.addContentTypeParser('*', (request, _payload, done) => {
    done(hasBody(request) ? errors.unsupportedMediaType() : null, undefined);
  });
}
