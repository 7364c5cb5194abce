import { asRefusal, unrendered, type DomainError, type FieldErrors } from './domain-errors.js';

/**
 * The error catalogue: every refusal the API gives is made here, so status and body always match
 * the v5 shapes (`fieldErrors` for 400, `errors` for everything else).
 */

export interface ErrorBody {
  message?: string;
  fieldErrors?: FieldErrors;
  errors?: string[];
  error?: string;
  error_description?: string;
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message ?? body.errors?.join(' ') ?? `HTTP ${statusCode}`);
    this.name = 'ApiError';
  }
}

export const REALM = 'Bearer realm="training-api"';

/** When a client should try again after a 503: the server reconnects on its own within seconds. */
const RETRY_UNAVAILABLE_AFTER_SECONDS = 2;

/** The request header that makes a POST safe to retry, as named in its refusals. */
const IDEMPOTENCY_KEY = 'Idempotency-Key';
/** When a client should retry a request whose Idempotency-Key another request still holds. */
const RETRY_IN_PROGRESS_AFTER_SECONDS = 1;

/** How many names a summary lists; a body can name thousands, and the summary stays one short line. */
const NAMES_IN_SUMMARY = 10;

function summarize(fieldErrors: FieldErrors): string {
  const names = Object.keys(fieldErrors).map((name) => name || '""');
  if (names.length === 1) return `${names[0]}: ${Object.values(fieldErrors)[0]}`;
  const more = names.length > NAMES_IN_SUMMARY ? ` and ${names.length - NAMES_IN_SUMMARY} more` : '';
  return `${names.length} properties are invalid: ${names.slice(0, NAMES_IN_SUMMARY).join(', ')}${more}`;
}

/**
 * RFC 6750 §3: the challenge names the error and says why. A description there may hold neither a double
 * quote nor a backslash, so those become apostrophes; the body keeps the description as written.
 */
function bearerChallenge(error: string, description: string): string {
  return `${REALM}, error="${error}", error_description="${description.replace(/["\\]/g, "'")}"`;
}

export const errors = {
  noSuchAddress: () => new ApiError(404, { errors: ['No resource exists at this address.'] }),
  fieldErrors: (fieldErrors: FieldErrors, message = summarize(fieldErrors)) => new ApiError(400, { message, fieldErrors }),
  badRequest: (problem: string) => new ApiError(400, { message: problem, errors: [problem] }),
  authenticationRequired: () => new ApiError(401, { errors: ['Authentication required'] }, { 'WWW-Authenticate': REALM }),
  invalidToken: (description: string) =>
    new ApiError(
      401,
      { errors: [description], error: 'invalid_token', error_description: description },
      { 'WWW-Authenticate': bearerChallenge('invalid_token', description) },
    ),
  insufficientScope: (scope: string) => {
    const description = `This token lacks the "${scope}" scope`;
    return new ApiError(
      403,
      { errors: [description], error: 'insufficient_scope', error_description: description },
      { 'WWW-Authenticate': `${bearerChallenge('insufficient_scope', description)}, scope="${scope}"` },
    );
  },
  httpsRequired: () => new ApiError(403, { errors: ['HTTPS is required'] }),
  unknownHost: (host: string) =>
    errors.badRequest(
      `The Host header names ${JSON.stringify(host)}, a host this server does not serve: set PUBLIC_URL to the address clients use, or add the host to ALLOWED_HOSTS`,
    ),
  otherPort: (host: string, port: number) =>
    errors.badRequest(
      `The Host header names ${JSON.stringify(host)}, but this server listens on port ${port}: name that port, or set PUBLIC_URL to the address clients use (behind a port mapping)`,
    ),
  notHttp: () => errors.badRequest('The request is not valid HTTP'),
  requestTimeout: () => new ApiError(408, { errors: ['The request did not arrive in time'] }),
  missingHost: () => errors.badRequest('An HTTP/1.1 request must carry a Host header'),
  duplicateHost: () => errors.badRequest('An HTTP request must carry exactly one Host header'),
  expectationFailed: () => new ApiError(417, { errors: ['The only expectation supported is Expect: 100-continue'] }),
  headersTooLarge: () => new ApiError(431, { errors: ['The request headers are too large'] }),
  methodNotAllowed: (method: string, allow: string[]) =>
    new ApiError(405, { errors: [`Method ${method} is not allowed here; allowed: ${allow.join(', ')}`] }, { Allow: allow.join(', ') }),
  notAcceptable: () => new ApiError(406, { errors: ['This API only produces application/json; the Accept header excludes it'] }),
  payloadTooLarge: (limit: number) => new ApiError(413, { errors: [`The request body exceeds the limit of ${limit} bytes`] }),
  unsupportedMediaType: (types: readonly string[] = ['application/json']) =>
    new ApiError(415, { errors: [`A request body must be sent with Content-Type: ${types.join(', ')}`] }),
  unsupportedContentEncoding: () =>
    new ApiError(415, { errors: ['A request body must be sent without Content-Encoding: compressed bodies are not supported'] }),
  tooManyRequests: (retryAfterSeconds: number) => new ApiError(429, { errors: ['Too many requests'] }, { 'Retry-After': String(retryAfterSeconds) }),
  invalidIdempotencyKey: () => errors.fieldErrors({ [IDEMPOTENCY_KEY]: 'must be 1 to 255 printable ASCII characters' }),
  idempotencyKeyReused: () =>
    errors.fieldErrors({
      [IDEMPOTENCY_KEY]: 'was already used with another request (method, path or body) in the last 24 hours; send a new key with a new request',
    }),
  idempotencyKeyInUse: () =>
    new ApiError(
      409,
      { errors: ['A request with this Idempotency-Key is still being processed; retry after it finishes'] },
      { 'Retry-After': String(RETRY_IN_PROGRESS_AFTER_SECONDS) },
    ),
  internal: () => new ApiError(500, { errors: ['Internal server error'] }),
  databaseUnavailable: () =>
    new ApiError(503, { errors: ['The database is unavailable'] }, { 'Retry-After': String(RETRY_UNAVAILABLE_AFTER_SECONDS) }),
  /** /readyz of an instance that is shutting down: the load balancer sends its requests elsewhere. */
  shuttingDown: () => new ApiError(503, { errors: ['The server is shutting down'] }, { 'Retry-After': String(RETRY_UNAVAILABLE_AFTER_SECONDS) }),
};

/** A service's refusal (lib/domain-errors.ts) in the v5 shapes: every kind has its answer. */
export function v5Refusal(error: DomainError): ApiError {
  const refusal = asRefusal(error);
  switch (refusal.kind) {
    case 'notFound':
      return new ApiError(404, { errors: [refusal.message] });
    case 'invalid':
      return errors.fieldErrors(refusal.fieldErrors, refusal.summary);
    case 'conflict':
      return errors.fieldErrors(refusal.fieldErrors);
    case 'preconditionFailed':
      return new ApiError(412, { errors: [refusal.message] });
    case 'malformed':
    case 'refused':
      return errors.badRequest(refusal.message);
    case 'unauthenticated':
      return errors.invalidToken(refusal.message);
    case 'throttled':
      return errors.tooManyRequests(Math.ceil(refusal.retryAfterMs / 1000));
  }
  return unrendered(refusal);
}
