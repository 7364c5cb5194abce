import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/** The interactive reference for people; everything else the server answers is API data. */
const DOCS_PATH = /^\/docs(?:[/?]|$)/;

/**
 * API answers are JSON that nothing may embed or run, hence a CSP that allows nothing. The /docs
 * page brings its own policy (see plugins/openapi.ts).
 */
const HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
};

/**
 * The headers helmet sets with our options. They depend on the options alone, so they are read
 * once, by running helmet's middleware against a response that only records them, instead of
 * building and running that middleware on every request.
 */
function helmetHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name];
    },
  };
  helmet(HELMET_OPTIONS)({} as IncomingMessage, recorder as unknown as ServerResponse, () => {});
  return Object.freeze(headers);
}

/** The headers every API answer carries: helmet's, and no caching of what holds personal data. */
export function apiResponseHeaders(headers = helmetHeaders()): Readonly<Record<string, string>> {
  return Object.freeze({ ...headers, 'Cache-Control': 'no-store' });
}

/**
 * `headers` with their names in lower case, as Fastify keeps (and sends) them: `reply.header`
 * lowercases every name it is given, and a name in another case then becomes a new string, looked
 * up again in V8's string table, on every response (about 2 µs a response for these thirteen).
 */
function asFastifyKeepsThem(headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  return Object.freeze(Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])));
}

/**
 * Security headers on every response (helmet: Strict-Transport-Security, X-Content-Type-Options:
 * nosniff, a frame ban, ...), and no caching of API answers: they carry personal data. Registered
 * first, so that every refusal carries them too.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  const headers = helmetHeaders();
  const apiHeaders = asFastifyKeepsThem(apiResponseHeaders(headers));
  // The page, its assets and the document change with the server's version under the same addresses:
  // a browser may keep them, and asks whether they changed before using them again.
  const docsHeaders = asFastifyKeepsThem({ ...headers, 'Cache-Control': 'no-cache' });
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(DOCS_PATH.test(request.url) ? docsHeaders : apiHeaders);
    done();
  });
}
