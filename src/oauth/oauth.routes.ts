import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SCOPES } from '../auth/scopes.js';
import { operationId } from '../http/resource-routes.js';
import { requestOrigin } from '../http/urls.js';
import type { ApiTag } from '../lib/openapi.js';
import { refusalFor, sendError } from '../plugins/errors.js';
import { hasBody } from '../plugins/protocol.js';
import type { ClientBudget } from '../plugins/rate-limit.js';
import { namedClientId } from './client-authentication.js';
import { oauthErrors, oauthRefusal, NO_STORE } from './oauth-errors.js';
import { OAuthErrorResponse, RevocationRequest, RevocationResponse, ServerMetadata, TokenRequest, TokenResponse } from './oauth.schemas.js';
import type { OAuthService } from './oauth.service.js';

export const TOKEN_PATH = '/oauth/token';
const REVOCATION_PATH = '/oauth/revoke';
const FORM = 'application/x-www-form-urlencoded';

export const oauthTag: ApiTag = {
  name: 'OAuth',
  description: 'OAuth 2.0 client credentials: a client made with `training-api clients create` gets expiring access tokens here, and revokes them.',
};
const AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];

/**
 * RFC 6749 §3.2: form-encoded, each parameter at most once, and a parameter without a value is as
 * if it were not sent.
 */
function parseForm(text: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (value === '') continue;
    if (Object.hasOwn(form, name)) throw oauthErrors.invalidRequest(`The parameter ${name} is given more than once`);
    form[name] = value;
  }
  return form;
}

const CLIENT_AUTHENTICATED: Record<string, string[]>[] = [{ clientBasic: [] }];

/**
 * Hands a request to the OpenID Connect provider (oidc/), with its body as it arrived; `path` replaces
 * the request's own. The token and revocation endpoints are shared: what a client that signs people in
 * sends is the provider's to answer, the client credentials grant the API's.
 */
export type OAuthDelegate = (request: FastifyRequest, reply: FastifyReply, body?: Buffer, path?: string) => Promise<void>;

/** Each form's body as it arrived, for the provider, which reads a body itself. */
const rawForms = new WeakMap<FastifyRequest, Buffer>();
const REFUSALS = { 400: OAuthErrorResponse, 401: OAuthErrorResponse };

/** The OAuth 2.0 endpoints: client credentials tokens, their revocation, and the server's metadata. */
export const oauthRoutes: FastifyPluginAsyncTypebox<{ service: OAuthService; clientBudget?: ClientBudget; delegate?: OAuthDelegate }> = async (
  app,
  { service, clientBudget, delegate },
) => {
  /** Whether the request's client signs people in: its requests are the provider's. */
  const forProvider = async (request: FastifyRequest, form: { client_id?: string }) => {
    if (!delegate) return false;
    const clientId = namedClientId(request.headers.authorization, form);
    return clientId !== undefined && (await service.signsPeopleIn(clientId));
  };
  // The services' refusals by their kind (oauthRefusal); the shared refusals of a 400 (a form parameter holding NUL fails
  // the body's schema) become invalid_request, in RFC 6749's shape.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const refusal = refusalFor(error, request, oauthRefusal);
    sendError(reply, refusal.statusCode === 400 && refusal.body.error === undefined ? oauthErrors.invalidRequest(refusal.message) : refusal);
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(FORM, { parseAs: 'buffer' }, (request, body, done) => {
    try {
      rawForms.set(request, body as Buffer);
      done(null, parseForm((body as Buffer).toString('utf8')));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser('*', (request, _payload, done) => {
    done(hasBody(request) ? oauthErrors.invalidRequest(`The request body must be ${FORM}`) : null, undefined);
  });

  app.post(
    TOKEN_PATH,
    {
      schema: {
        operationId: operationId('oauthTokens', 'create'),
        tags: [oauthTag.name],
        summary: 'Get an access token (client credentials grant, RFC 6749 §4.4)',
        description:
          'Authenticate the client with HTTP Basic (`client_id:client_secret`) or, if it cannot, with `client_id` and `client_secret` ' +
          'in the form. The token expires after `expires_in` seconds and is used like any other: `Authorization: Bearer <token>`.',
        consumes: [FORM],
        security: CLIENT_AUTHENTICATED,
        body: TokenRequest,
        response: { 200: TokenResponse, ...REFUSALS },
      },
      config: { scope: 'none' },
    },
    async (request, reply) => {
      const form = request.body ?? {};
      if (await forProvider(request, form)) return delegate!(request, reply, rawForms.get(request));
      const client = await service.authenticatedClient(request.headers.authorization, form);
      await clientBudget?.(reply, client.id);
      const response = await service.token(client, form);
      request.log.info({ orgId: client.orgId, clientId: client.id, scope: response.scope }, 'access token issued');
      return reply.headers(NO_STORE).send(response);
    },
  );

  app.post(
    REVOCATION_PATH,
    {
      schema: {
        operationId: operationId('oauthTokens', 'revoke'),
        tags: [oauthTag.name],
        summary: 'Revoke an access token (RFC 7009)',
        description:
          'Answers 200 with an empty JSON object, also for a token that does not exist or was already revoked; 400 for a token issued to another client.',
        consumes: [FORM],
        security: CLIENT_AUTHENTICATED,
        body: RevocationRequest,
        response: { 200: RevocationResponse, ...REFUSALS },
      },
      config: { scope: 'none' },
    },
    async (request, reply) => {
      if (await forProvider(request, request.body ?? {})) return delegate!(request, reply, rawForms.get(request));
      const client = await service.revoke(request.headers.authorization, request.body ?? {});
      request.log.info({ orgId: client.orgId, clientId: client.id }, 'access token revocation');
      // An empty JSON object rather than an empty body: clients that read every answer as JSON (simple-oauth2) accept it too.
      return reply.code(200).headers(NO_STORE).send({});
    },
  );

  app.get(
    '/.well-known/oauth-authorization-server',
    { config: { scope: 'none' }, schema: { hide: true, response: { 200: ServerMetadata } } },
    async (request, reply) => {
      // One authorization server: with the OpenID Connect provider, its document (which tells of the client credentials too).
      if (delegate) return delegate(request, reply, undefined, '/.well-known/openid-configuration');
      const issuer = requestOrigin(request);
      return {
        issuer,
        token_endpoint: `${issuer}${TOKEN_PATH}`,
        revocation_endpoint: `${issuer}${REVOCATION_PATH}`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: AUTH_METHODS,
        revocation_endpoint_auth_methods_supported: AUTH_METHODS,
        scopes_supported: [...SCOPES],
        response_types_supported: [],
      };
    },
  );
};
