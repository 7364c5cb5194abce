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
  read: 'GET everything of the API',
  write: 'everything of the API',
  scim: 'the SCIM 2.0 provisioning API (/scim/v2), nothing of v5',
};

/** `read,write` or `read write` → the scopes named; an unknown or missing scope is refused. */
export function parseScopes(input: string): Scope[] {
  const scopes = [...new Set(input.split(/[\s,]+/).filter(Boolean))];
  const unknown = scopes.filter((scope) => !SCOPES.includes(scope as Scope));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new Error(`Scopes must be a comma-separated list of ${SCOPES.join(', ')} (got "${input}")`);
  }
  return scopes as Scope[];
}
