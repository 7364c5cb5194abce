import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { errors } from '../lib/errors.js';
import { addLogBindings } from './logging.js';
import type { Authenticator, Caller } from '../auth/caller.js';
import { GRANTED_BY, type RouteScope } from '../auth/scopes.js';
import { isApiPath, isScimPath, isUnrouted, routedPath } from './protocol.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set on every /api/v5 and /scim/v2 request that reaches a handler. */
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** What the route needs of the caller's token; every route under /api/v5 and /scim/v2 declares it. */
    scope?: RouteScope;
  }
}

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/** The scope the route a request matched declares; none for an address no route matched. */
function declaredScope(request: FastifyRequest): RouteScope | undefined {
  return isUnrouted(request) ? undefined : request.routeOptions.config.scope;
}

/** Every address under /api/v5 and /scim/v2, known or not (401 comes before 404/405), but a route declaring scope `none`. */
export function requiresToken(request: FastifyRequest): boolean {
  const path = routedPath(request);
  return (isScimPath(path) || isApiPath(path)) && declaredScope(request) !== 'none';
}

/** Called before a request is refused for its token (none, malformed, unknown, revoked); may throw another refusal instead. */
export type BeforeTokenRefusal = (request: FastifyRequest) => void;

/**
 * Bearer authentication for the whole /api/v5 and /scim/v2 subtrees. Scopes are checked apart
 * (`registerScopeCheck`), so that what comes between (the token's request budget) sees every
 * authenticated request, those refused for their scope included.
 */
export function registerAuthentication(app: FastifyInstance, authenticator: Authenticator, beforeRefusal?: BeforeTokenRefusal): void {
  app.decorateRequest('caller', null as unknown as Caller);

  function authenticate(request: FastifyRequest): Caller | Promise<Caller> {
    const header = request.headers.authorization;
    if (!header) throw errors.authenticationRequired();
    const bearer = BEARER.exec(header);
    if (!bearer) throw errors.invalidToken('The Authorization header must be "Bearer <token>"');
    return authenticator.authenticate(bearer[1]!);
  }

  function refuse(request: FastifyRequest, done: HookHandlerDoneFunction, error: unknown): void {
    try {
      beforeRefusal?.(request);
    } catch (instead) {
      return done(instead as Error);
    }
    done(error as Error);
  }

  function accept(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, caller: Caller): void {
    request.caller = caller;
    // The audit trail: every later line of the request, a write's completion among them, names who made
    // it, by ids only (the secret itself is never kept past this point).
    const { orgId, tokenId, clientId } = caller;
    addLogBindings(request, reply, clientId ? { orgId, tokenId, clientId } : { orgId, tokenId });
    done();
  }

  // A callback hook: a token already kept is checked without a promise, and the request goes on at once.
  app.addHook('onRequest', (request, reply, done) => {
    if (!requiresToken(request)) return done();
    let caller: Caller | Promise<Caller>;
    try {
      caller = authenticate(request);
    } catch (error) {
      return refuse(request, done, error);
    }
    if (caller instanceof Promise) {
      caller.then(
        (found) => accept(request, reply, done, found),
        (error: unknown) => refuse(request, done, error),
      );
    } else accept(request, reply, done, caller);
  });
}

/**
 * The scope an authenticated request needs, the one its route declares, checked once routing is known
 * (a write to an unknown address is a 404). A route of either API that declares none is refused when
 * it is added, so that the app does not start with it.
 */
export function registerScopeCheck(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if ((isApiPath(route.url) || isScimPath(route.url)) && !route.config?.scope) {
      throw new Error(`${String(route.method)} ${route.url} declares no scope: give it config: { scope } (read, write, scim or none)`);
    }
  });
  app.addHook('onRequest', (request, _reply, done) => {
    done(request.caller ? scopeRefusal(request) : undefined);
  });
}

/** The 403 of a request whose token grants not the scope its route declares, if it does not. */
function scopeRefusal(request: FastifyRequest): Error | undefined {
  const scope = declaredScope(request);
  if (scope === undefined || scope === 'none') return undefined;
  const { scopes } = request.caller;
  return GRANTED_BY[scope].some((granted) => scopes.includes(granted)) ? undefined : errors.insufficientScope(scope);
}
