/**
 * What a token may do: `read` every GET of the v5 API, `write` everything else there; `scim` the
 * provisioning API (/scim/v2) and nothing of v5. A token may carry both kinds.
 */
export const SCOPES = ['read', 'write', 'scim'] as const;
export type Scope = (typeof SCOPES)[number];
/** What a token gets when no scope is asked for: the v5 API, not provisioning. */
export const DEFAULT_SCOPES: readonly Scope[] = ['read', 'write'];

/** What each scope allows, for the OpenAPI document. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  read: 'the operations of the v5 API that only read',
  write: 'every operation of the v5 API, those that read included',
  scim: 'the SCIM 2.0 provisioning API (/scim/v2), nothing of v5',
};

/**
 * What a route needs of the caller's access token, declared by the route itself (`config: { scope }`)
 * and read by the authentication plugin and the OpenAPI document alike: a scope, or `none` for a route
 * that takes no access token of the API (the OpenAPI document; health probes, OAuth's endpoints and the
 * metrics, which authenticate their callers their own way or not at all).
 */
export type RouteScope = Scope | 'none';

/** The scopes of a token that grant each scope a route may declare: a token that may write may also read. */
export const GRANTED_BY: Record<Scope, readonly Scope[]> = { read: ['read', 'write'], write: ['write'], scim: ['scim'] };

/** `read,write` or `read write` → the scopes named; an unknown or missing scope is refused. */
export function parseScopes(input: string): Scope[] {
  const scopes = [...new Set(input.split(/[\s,]+/).filter(Boolean))];
  const unknown = scopes.filter((scope) => !SCOPES.includes(scope as Scope));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new Error(`Scopes must be a comma-separated list of ${SCOPES.join(', ')} (got "${input}")`);
  }
  return scopes as Scope[];
}
