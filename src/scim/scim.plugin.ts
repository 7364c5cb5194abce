import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { PasswordPolicy } from '../lib/password-policy.js';
import { errors, type ApiError } from '../lib/errors.js';
import { refusalFor, sendError } from '../plugins/errors.js';
import { acceptsJson, isScimPath, parseJsonBody, SCIM_MEDIA_TYPE, SCIM_RANGES } from '../plugins/protocol.js';
import { unstorableTexts } from '../plugins/validation.js';
import { scimDiscoveryRoutes } from './discovery.routes.js';
import { scimGroupsRoutes } from './groups/scim-groups.routes.js';
import { scimGroupsService } from './groups/scim-groups.service.js';
import { scimUsersRoutes } from './users/scim-users.routes.js';
import { scimUsersService } from './users/scim-users.service.js';
import { toScimError, scimErrors } from './scim-errors.js';
import { scimRequestLog } from './request-log.js';

function render(error: ApiError): ApiError {
  if (error.statusCode === 415) return scimErrors.unsupportedMediaType();
  if (error.statusCode === 406) return scimErrors.notAcceptable();
  return toScimError(error);
}

/** A refusal given before routing (`frameworkErrorAnswer`) in SCIM's shape when its path is under /scim/v2. */
export function scimShapeByPath(refusal: ApiError, path: string): ApiError {
  return isScimPath(path) ? toScimError(refusal) : refusal;
}

function sendScimError(request: FastifyRequest, reply: FastifyReply, error: FastifyError): FastifyReply {
  return sendError(reply, render(refusalFor(error, request, toScimError)));
}

/**
 * The provisioning API (SCIM 2.0, RFC 7643/7644) under /scim/v2, on the same server and port as
 * v5. It keeps the server's request ids, HTTPS rule, rate limits and bearer tokens (with the `scim`
 * scope, checked by the authentication plugin), and follows RFC 7644 for the rest: its own media
 * type (application/scim+json; application/json accepted too), error shape and query parameters
 * (unknown ones ignored, as identity providers add their own).
 */
export const scimPlugin: FastifyPluginAsyncTypebox<{ db: Kysely<Database>; passwordPolicy: PasswordPolicy }> = async (
  app,
  { db, passwordPolicy },
) => {
  app.addContentTypeParser(SCIM_MEDIA_TYPE, { parseAs: 'buffer' }, parseJsonBody);
  app.setErrorHandler((error: FastifyError, request, reply) => sendScimError(request, reply, error));
  app.setNotFoundHandler((_request, reply) => sendError(reply, render(errors.noSuchAddress())));

  app.addHook('onRequest', async (request) => {
    if (!acceptsJson(request.headers.accept, SCIM_RANGES)) throw errors.notAcceptable();
  });
  // SCIM bodies are free-form documents without a route schema: the text rule of the v5 bodies
  // (no NUL, no unpaired surrogate) is applied to the whole document here, alike on both engines.
  app.addHook('preHandler', async (request) => {
    const [first] = unstorableTexts(request.body);
    if (first) throw scimErrors.invalidValue(`${first.instancePath.slice(1).replaceAll('/', '.')}: ${first.message}`);
  });
  // The identity provider's changes are SCIM's in the change stream, whichever token it holds.
  app.addHook('preHandler', async (request) => {
    if (request.caller) request.caller = { ...request.caller, actor: { ...request.caller.actor, type: 'scim' } };
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('application/json')) reply.header('content-type', `${SCIM_MEDIA_TYPE}; charset=utf-8`);
    return payload;
  });
  // Before the answer leaves, so that the log holds each answered request once sent; a failure to record
  // one costs the identity provider nothing, and is told in the server's log.
  const requestLog = scimRequestLog(db);
  app.addHook('onSend', async (request, reply, payload) => {
    await requestLog.record(request, reply).catch((error: unknown) => request.log.warn({ err: error }, 'a SCIM request was not recorded in its log'));
    return payload;
  });
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true }; // SCIM describes itself: /Schemas, /ResourceTypes
  });

  const users = scimUsersService(db, passwordPolicy);
  await app.register(scimDiscoveryRoutes, { service: users });
  await app.register(scimUsersRoutes, { service: users });
  await app.register(scimGroupsRoutes, { service: scimGroupsService(db) });
};
