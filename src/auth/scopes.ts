/** What a token may do: `read` every GET, `write` everything else. */
export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope allows, for the OpenAPI document. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  read: 'GET everything of the API',
  write: 'everything of the API',
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
