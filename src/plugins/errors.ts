import { STATUS_CODES, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/faults.js';
import { newId } from '../lib/ids.js';
import { DomainError } from '../lib/domain-errors.js';
import { ApiError, errors, v5Refusal } from '../lib/errors.js';
import { validationError } from '../http/validation-errors.js';
import { requestIdOf } from './request-id.js';
import { spareLongUpload } from '../http/long-uploads.js';

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.statusCode).headers(error.headers).send(error.body);
}

/** Fastify's own refusals (body parsing, limits) in the v5 shapes. */
function fromFastifyError(error: FastifyError, request: FastifyRequest): ApiError | undefined {
  if (error.validation) return validationError(error.validation, error.validationContext ?? 'body');
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return errors.payloadTooLarge(request.routeOptions.bodyLimit ?? 0);
  if (error.statusCode === 415) return errors.unsupportedMediaType();
  if (error.statusCode === 400) return errors.badRequest(error.message);
  if (error.statusCode && error.statusCode > 400 && error.statusCode < 500) {
    return new ApiError(error.statusCode, { errors: [error.message] });
  }
  return undefined;
}

/**
 * The refusal an error becomes, logged with its request id: a service's refusal rendered by `render`
 * (the v5 shapes unless the API addressed has its own), the protocol's as it is, a database out of
 * reach 503, anything unexpected a bare 500.
 */
export function refusalFor(error: FastifyError, request: FastifyRequest, render: (refusal: DomainError) => ApiError = v5Refusal): ApiError {
  const known = error instanceof DomainError ? render(error) : error instanceof ApiError ? error : fromFastifyError(error, request);
  if (known) {
    request.log.info({ statusCode: known.statusCode, reason: known.body }, 'request refused');
    return known;
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    return errors.databaseUnavailable();
  }
  request.log.error({ err: error }, 'unhandled error');
  return errors.internal();
}

/** One handler renders every error of the v5 API (SCIM renders the same refusals in its own shape). */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => sendError(reply, refusalFor(error, request)));
}

/** A v5 refusal in the shape of the API that serves `path` (SCIM's own under /scim/v2). */
type RefusalShape = (refusal: ApiError, path: string) => ApiError;

/**
 * Refusals Fastify gives before any hook runs (an address with a malformed percent-encoding), in the
 * shape of the API addressed and with a request id like every other response.
 */
export function frameworkErrorAnswer(shape: RefusalShape) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('X-Request-Id', request.id);
    if (error.code === 'FST_ERR_BAD_URL') {
      const refusal = errors.badRequest('The address is malformed: it holds an invalid percent-encoding');
      sendError(reply, shape(refusal, request.url.split('?', 1)[0]!));
    } else {
      request.log.error({ err: error }, 'unhandled error');
      sendError(reply, errors.internal());
    }
    // Answered before the request's lifecycle began, so the request log (RequestLog) has no line for it otherwise.
    request.log.info({ req: request, res: reply }, 'request completed');
  };
}

/** Sockets already answered: the parser may report further errors for what follows the first. */
const answered = new WeakSet<Socket>();
/** How long a refused client has to read its answer before its connection is cut. */
const CLOSING_LINGER_MS = 2000;

/** Headers of a refusal answered outside Fastify, after which the connection is closed. */
function rawHeaders(refusal: ApiError, body: string, requestId: string): Record<string, string | number> {
  return {
    ...refusal.headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
    Connection: 'close',
  };
}

/** A refusal on a response Node made before any route could see the request. */
export function answerOnResponse(response: ServerResponse, refusal: ApiError, requestId: string): void {
  const body = JSON.stringify(refusal.body);
  response.writeHead(refusal.statusCode, rawHeaders(refusal, body, requestId));
  response.end(body);
}

/** A refusal written straight on the connection, for requests Node's HTTP parser never hands on. */
function onSocket(refusal: ApiError, requestId: string): string {
  const body = JSON.stringify(refusal.body);
  const headers = Object.entries(rawHeaders(refusal, body, requestId)).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${refusal.statusCode} ${STATUS_CODES[refusal.statusCode]}\r\n${headers.join('')}\r\n${body}`;
}

/**
 * Requests Node's HTTP parser refuses (an unknown method, a malformed header line, headers over the
 * size limit, a request that never finishes arriving) never reach Fastify: they are answered on the
 * socket, in the v5 shape and with a request id like every other response, and the connection closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (answered.has(socket)) return;
  // An upload that keeps arriving is not a slow client (http/long-uploads.ts): it is answered only once it stalls.
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && spareLongUpload(socket, () => answerClientError(error, socket))) return;
  answered.add(socket);
  // A response already under way (a refusal sent before its body arrived) cannot be followed by another.
  const responding = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || !socket.writable || responding) {
    socket.destroy();
    return;
  }
  const refusal =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? errors.requestTimeout()
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? errors.headersTooLarge()
        : errors.notHttp();
  // Ended, not destroyed: a destroyed TLS socket may drop the answer still being written.
  socket.end(onSocket(refusal, newId()));
  socket.setTimeout(CLOSING_LINGER_MS, () => socket.destroy());
}

/** Every method some route answers: what a CONNECT is told to use instead. */
const ROUTED_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'];

/**
 * The two requests Node's HTTP server answers itself unless told otherwise, with a bare 417 or a
 * reset: an `Expect` other than `100-continue`, and `CONNECT` (this is no proxy).
 */
export function answerNodeRefusals(server: HttpServer): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    answerOnResponse(response, errors.expectationFailed(), requestIdOf(request));
  });
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    socket.end(onSocket(errors.methodNotAllowed('CONNECT', ROUTED_METHODS), requestIdOf(request)));
  });
}
