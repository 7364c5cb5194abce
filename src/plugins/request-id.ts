import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { SECRET_IN_TEXT } from '../auth/secrets.js';
import { newId } from '../lib/ids.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** A client's own X-Request-Id is kept when it is safe to echo and to log (a pasted token is not); otherwise a new one is made. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) && given.search(SECRET_IN_TEXT) === -1 ? given : newId();
}

const requestContext = new AsyncLocalStorage<string>();

/** The id of the request whose work is running, if any: for errors that surface outside its handler. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore();
}

function enter(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  requestContext.run(request.id, done);
}

/**
 * Node.js 24 carries an AsyncLocalStorage context with each continuation at almost no cost; before
 * it, the context rides on promise hooks that run for every promise the process makes, about 7% of
 * the instructions of a GET of one user. There the request id of an error that surfaces outside its
 * request's handler is not known, and such an error is logged without it.
 */
const CONTEXT_IS_CHEAP = Number(process.versions.node.split('.')[0]) >= 24;

/**
 * Runs each request's work in a context that knows its id. Entered twice: reading the body
 * continues from the socket's context, so the handler's part is entered again after it.
 */
export function registerRequestContext(app: FastifyInstance): void {
  if (!CONTEXT_IS_CHEAP) return;
  app.addHook('onRequest', enter);
  app.addHook('preValidation', enter);
}
