import type { Scope } from './scopes.js';

/** Who is calling: every service method takes this first, and every query is scoped by its orgId. */
export interface Caller {
  orgId: string;
  tokenId: string;
  /** The OAuth client the token was issued to, when it came from POST /oauth/token. */
  clientId?: string;
  scopes: readonly Scope[];
}

/** Turns the secret a request presents into its caller, or throws the 401 that says why not. */
export interface Authenticator {
  authenticate(token: string): Promise<Caller>;
}
