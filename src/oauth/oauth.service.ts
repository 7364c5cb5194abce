import type { Kysely } from 'kysely';
import { SCOPES, type Scope } from '../auth/scopes.js';
import { hashSecret } from '../auth/secrets.js';
import type { Database } from '../db/schema.js';
import { now } from '../lib/time.js';
import { tokensRepository } from '../auth/tokens.repository.js';
import { clientCredentials } from './client-authentication.js';
import { clientsService, type ClientInfo } from './clients.service.js';
import { oauthErrors } from './oauth-errors.js';
import type { RevocationRequest, TokenRequest, TokenResponse } from './oauth.schemas.js';

/** The scopes a token request asks for: all of the client's when it names none (RFC 6749 §3.3). */
function grantedScopes(client: ClientInfo, requested: string | undefined): Scope[] {
  const names = [...new Set((requested ?? '').split(' ').filter(Boolean))];
  if (names.length === 0) return client.scopes;
  const unknown = names.filter((name) => !SCOPES.includes(name as Scope));
  if (unknown.length > 0) throw oauthErrors.invalidScope(`Unknown scope "${unknown[0]}"; scopes are ${SCOPES.join(', ')}`);
  const refused = names.filter((name) => !client.scopes.includes(name as Scope));
  if (refused.length > 0) throw oauthErrors.invalidScope(`This client may not ask for "${refused[0]}"; it may ask for ${client.scopes.join(', ')}`);
  return names as Scope[];
}

/** The token and revocation endpoints (RFC 6749 §4.4 and RFC 7009), over the organizations' OAuth clients. */
export function oauthService(db: Kysely<Database>, settings: { tokenLifetimeSeconds: number }) {
  const clients = clientsService(db);
  const tokens = tokensRepository(db);

  async function authenticatedClient(authorization: string | undefined, form: { client_id?: string; client_secret?: string }) {
    const credentials = clientCredentials(authorization, form);
    return clients.authenticate(credentials.id, credentials.secret);
  }

  return {
    /** The client making a request, from HTTP Basic or the form, or the `invalid_client` refusal. */
    authenticatedClient,

    /** Whether the client of this id signs people in (OpenID Connect): its token requests are the provider's. */
    async signsPeopleIn(clientId: string): Promise<boolean> {
      return (await clients.find(clientId))?.redirectUris !== undefined;
    },

    /** The token response for an authenticated client's grant request. */
    async token(client: ClientInfo, form: TokenRequest): Promise<TokenResponse> {
      if (form.grant_type === undefined) throw oauthErrors.invalidRequest('grant_type is required; use client_credentials');
      if (form.grant_type !== 'client_credentials') throw oauthErrors.unsupportedGrantType(form.grant_type);
      if (client.redirectUris)
        throw oauthErrors.unauthorizedClient('This client signs people in (authorization code); it gets no API token of its own');
      const issued = await clients.issueToken(client, grantedScopes(client, form.scope), settings.tokenLifetimeSeconds);
      return { access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn, scope: issued.scopes.join(' ') };
    },

    /** RFC 7009: an unknown token is no error (the client could do nothing about it); another client's token is refused. */
    async revoke(authorization: string | undefined, form: RevocationRequest): Promise<ClientInfo> {
      const client = await authenticatedClient(authorization, form);
      if (form.token === undefined) throw oauthErrors.invalidRequest('token is required');
      const row = await tokens.findByHash(hashSecret(form.token));
      if (!row) return client;
      if (row.client_id !== client.id) throw oauthErrors.unauthorizedClient('The token was not issued to this client');
      await tokens.revoke(row.org_id, row.id, now());
      return client;
    },
  };
}

export type OAuthService = ReturnType<typeof oauthService>;
