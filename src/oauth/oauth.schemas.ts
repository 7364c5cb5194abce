import { Type, type Static } from '@sinclair/typebox';
import { SCOPES } from '../auth/scopes.js';

const SCOPE_LIST = `Space-separated, among ${SCOPES.join(', ')}`;

/**
 * Form parameters as RFC 6749 names them. Every one is optional to the validator, and unknown ones
 * are ignored as the RFC asks: what is missing or wrong is answered in the RFC's own error shape.
 */
export const TokenRequest = Type.Object(
  {
    grant_type: Type.Optional(Type.String({ description: 'client_credentials' })),
    scope: Type.Optional(Type.String({ description: `${SCOPE_LIST}; narrows the client's scopes (default: all of them)` })),
    client_id: Type.Optional(Type.String({ description: 'With client_secret_post only; prefer HTTP Basic' })),
    client_secret: Type.Optional(Type.String({ description: 'With client_secret_post only; prefer HTTP Basic' })),
  },
  { additionalProperties: true },
);
export type TokenRequest = Static<typeof TokenRequest>;

export const RevocationRequest = Type.Object(
  {
    token: Type.Optional(Type.String({ description: 'The access token to revoke (required)' })),
    token_type_hint: Type.Optional(Type.String({ description: 'access_token (the only kind this server issues)' })),
    client_id: Type.Optional(Type.String({ description: 'With client_secret_post only; prefer HTTP Basic' })),
    client_secret: Type.Optional(Type.String({ description: 'With client_secret_post only; prefer HTTP Basic' })),
  },
  { additionalProperties: true },
);
export type RevocationRequest = Static<typeof RevocationRequest>;

export const RevocationResponse = Type.Object({}, { description: 'Revoked, or unknown', additionalProperties: false });

export const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'Opaque; send it as `Authorization: Bearer <token>` to /api/v5' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until it expires' }),
    scope: Type.String({ description: SCOPE_LIST }),
  },
  { $id: 'OAuthToken', additionalProperties: false },
);
export type TokenResponse = Static<typeof TokenResponse>;

export const OAuthErrorResponse = Type.Object(
  {
    error: Type.String({ description: 'invalid_request, invalid_client, unauthorized_client, unsupported_grant_type or invalid_scope' }),
    error_description: Type.Optional(Type.String()),
  },
  { $id: 'OAuthError', description: 'RFC 6749 §5.2' },
);

/** RFC 8414 authorization server metadata, so that clients can discover the endpoints from the server's address. */
export const ServerMetadata = Type.Object(
  {
    issuer: Type.String(),
    token_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    grant_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
  },
  { additionalProperties: false },
);
