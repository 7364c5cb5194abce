import type { FastifyInstance } from 'fastify';
import { errors } from '../lib/errors.js';
import { addLogBindings } from './logging.js';
import type { Authenticator, Caller } from '../auth/caller.js';
import { isApiPath, isScimPath, isUnrouted, routedPath } from './protocol.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set on every /api/v5 and /scim/v2 request that reaches a handler. */
    caller: Caller;
  }
}

const PUBLIC_PATHS = new Set(['/api/v5/openapi.json', '/dc/api/v5/openapi.json']);
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/**
 * Bearer authentication for the whole /api/v5 and /scim/v2 subtrees, known paths or not (401 comes
 * before 404/405). The scope check waits until routing is known, so a write to an unknown address is
 * a 404. The two APIs take different scopes: `read`/`write` for v5, `scim` for provisioning.
 */
export function registerAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('caller', null as unknown as Caller);

  app.addHook('onRequest', async (request, reply) => {
    const path = routedPath(request);
    const scim = isScimPath(path);
    if ((!scim && !isApiPath(path)) || PUBLIC_PATHS.has(path.replace(/\/$/, ''))) return;
    const header = request.headers.authorization;
    if (!header) throw errors.authenticationRequired();
    const bearer = BEARER.exec(header);
    if (!bearer) throw errors.invalidToken('The Authorization header must be "Bearer <token>"');
    request.caller = await authenticator.authenticate(bearer[1]!);
    // The audit trail: every later line of the request, a write's completion among them, names who made
    // it, by ids only (the secret itself is never kept past this point).
    const { orgId, tokenId, clientId } = request.caller;
    addLogBindings(request, reply, clientId ? { orgId, tokenId, clientId } : { orgId, tokenId });
    if (isUnrouted(request)) return;
    const { scopes } = request.caller;
    if (scim) {
      if (!scopes.includes('scim')) throw errors.insufficientScope('scim');
    } else if (!READ_METHODS.has(request.method)) {
      if (!scopes.includes('write')) throw errors.insufficientScope('write');
    } else if (!scopes.includes('read') && !scopes.includes('write')) {
      throw errors.insufficientScope('read');
    }
  });
}
