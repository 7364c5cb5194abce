import { asRefusal, unrendered, type DomainError } from '../lib/domain-errors.js';
import { ApiError, v5Refusal } from '../lib/errors.js';

/** Token endpoint answers are never cached (RFC 6749 §5.1), refusals included. */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

function oauthError(statusCode: number, error: string, description: string, headers: Record<string, string> = {}): ApiError {
  return new ApiError(statusCode, { error, error_description: description }, { ...NO_STORE, ...headers });
}

/** The OAuth endpoints' refusals, in the JSON shape of RFC 6749 §5.2 instead of the v5 one. */
export const oauthErrors = {
  invalidRequest: (description: string) => oauthError(400, 'invalid_request', description),
  invalidClient: (description: string) => oauthError(401, 'invalid_client', description, { 'WWW-Authenticate': 'Basic realm="training-api"' }),
  unauthorizedClient: (description: string) => oauthError(400, 'unauthorized_client', description),
  unsupportedGrantType: (grantType: string) =>
    oauthError(400, 'unsupported_grant_type', `The grant type "${grantType}" is not supported; use client_credentials`),
  invalidScope: (description: string) => oauthError(400, 'invalid_scope', description),
};

/**
 * A service's refusal at the OAuth endpoints, by its kind: what the request gets wrong is RFC 6749's
 * `invalid_request`; the refusals HTTP itself words (not found, a failed precondition, a refused
 * token, too many attempts) keep the status and headers v5 gives them.
 */
export function oauthRefusal(error: DomainError): ApiError {
  const refusal = asRefusal(error);
  switch (refusal.kind) {
    case 'invalid':
    case 'conflict':
    case 'malformed':
    case 'refused':
      return oauthErrors.invalidRequest(v5Refusal(refusal).message);
    case 'notFound':
    case 'preconditionFailed':
    case 'unauthenticated':
    case 'throttled':
      return v5Refusal(refusal);
  }
  return unrendered(refusal);
}
