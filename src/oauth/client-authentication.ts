import { oauthErrors } from './oauth-errors.js';

export interface ClientCredentials {
  id: string;
  secret: string;
}

/** The form encoding RFC 6749 §2.3.1 applies to the id and secret before they are joined for HTTP Basic. */
function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw oauthErrors.invalidClient('The HTTP Basic credentials are not validly form-encoded');
  }
}

const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;

/**
 * The client's id and secret, from HTTP Basic (client_secret_basic) or from the form
 * (client_secret_post); RFC 6749 §2.3 forbids using both at once.
 */
export function clientCredentials(authorization: string | undefined, form: { client_id?: string; client_secret?: string }): ClientCredentials {
  if (authorization !== undefined) {
    if (form.client_secret !== undefined) {
      throw oauthErrors.invalidRequest('Authenticate the client one way only: HTTP Basic or client_secret in the body, not both');
    }
    const basic = BASIC.exec(authorization);
    if (!basic) throw oauthErrors.invalidClient('The Authorization header must be HTTP Basic with the client id and secret');
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw oauthErrors.invalidClient('The HTTP Basic credentials must be "<client id>:<client secret>"');
    const credentials = { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
    if (form.client_id !== undefined && form.client_id !== credentials.id) {
      throw oauthErrors.invalidRequest('client_id in the body names another client than the Authorization header');
    }
    return credentials;
  }
  if (form.client_id !== undefined && form.client_secret !== undefined) return { id: form.client_id, secret: form.client_secret };
  throw oauthErrors.invalidClient('Client authentication is required: HTTP Basic with the client id and secret');
}

/** The id a request names its client by (HTTP Basic's user, else `client_id` in the form), unchecked; undefined when it names none readably. */
export function namedClientId(authorization: string | undefined, form: { client_id?: string }): string | undefined {
  const basic = authorization === undefined ? undefined : BASIC.exec(authorization);
  if (!basic) return form.client_id;
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  try {
    return colon < 0 ? undefined : decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
