import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Bindings, Logger } from 'pino';
import { SECRET_IN_TEXT } from '../auth/secrets.js';

const REDACTED = '[redacted]';

/** Query parameter names that announce a secret, whatever their case, separators or percent-encoding. */
const SECRET_NAME = /token|secret|passw|pwd|apikey|api_key|api-key|auth|credential|session|signature/i;

/** Anything in a text that looks like one of our secrets (tpa_, tpo_, tpcs_ and their 256 random bits). */
function holdsSecret(text: string): boolean {
  return text.search(SECRET_IN_TEXT) !== -1;
}

/** Percent-decoded as often as it stays decodable (a secret may be encoded twice); the raw text when it is malformed. */
function decoded(text: string): string {
  let current = text;
  for (let round = 0; round < 3; round += 1) {
    try {
      const next = decodeURIComponent(current.replace(/\+/g, ' '));
      if (next === current) break;
      current = next;
    } catch {
      break;
    }
  }
  return current;
}

/** Whether decoding could change the text: without `%` or `+` it is already what `decoded` gives. */
const ENCODED = /[%+]/;

function maskedPath(path: string): string {
  // A secret never spans a `/`, so a path that decodes to itself and holds none anywhere has none to mask.
  if (!ENCODED.test(path) && !holdsSecret(path)) return path;
  return path
    .split('/')
    .map((segment) => (holdsSecret(decoded(segment)) ? REDACTED : segment))
    .join('/');
}

function maskedQuery(query: string): string {
  // Likewise for the query, whose names are also tested for a secret's name: either anywhere sends it part by part.
  if (!ENCODED.test(query) && !holdsSecret(query) && !SECRET_NAME.test(query)) return query;
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      const value = equals === -1 ? '' : pair.slice(equals + 1);
      if (holdsSecret(decoded(name))) return REDACTED;
      return SECRET_NAME.test(decoded(name)) || holdsSecret(decoded(value)) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * A URL fit for the log: the values of secret-named query parameters (names compared decoded, so
 * `%61ccess_token` is `access_token`), and every path segment or query part that holds something
 * shaped like one of our secrets, masked.
 */
export function loggableUrl(url: string): string {
  const question = url.indexOf('?');
  if (question === -1) return maskedPath(url);
  return `${maskedPath(url.slice(0, question))}?${maskedQuery(url.slice(question + 1))}`;
}

/** Request log fields without headers (no Authorization) and with secrets in the URL masked. */
export const logSerializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: loggableUrl(request.url),
      remoteAddress: request.ip,
    };
  },
};

/**
 * One line per request, when it completes, carrying what Fastify's "incoming request" line would
 * have said (method, masked URL, address): half the logging work of a request. A request that never
 * completes is told by the server's timeouts instead.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/**
 * Adds fields to every later line of a request. The request's own logger (a pino child Fastify made
 * for it) takes them in place, which costs a fraction of making another child; a disabled logger
 * has no bindings to add to.
 */
export function addLogBindings(request: FastifyRequest, reply: FastifyReply, bindings: Bindings): void {
  const log = request.log as FastifyBaseLogger & Partial<Pick<Logger, 'setBindings'>>;
  if (log.setBindings) log.setBindings(bindings);
  else request.log = reply.log = request.log.child(bindings);
}
