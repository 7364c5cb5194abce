import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/faults.js';
import { newId } from '../lib/ids.js';
import { ApiError, errors } from '../lib/errors.js';
import { validationError } from '../http/validation-errors.js';

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
 * The refusal an error becomes, logged with its request id: a known one as it is, a database out of
 * reach 503, anything unexpected a bare 500.
 */
export function refusalFor(error: FastifyError, request: FastifyRequest): ApiError {
  const known = error instanceof ApiError ? error : fromFastifyError(error, request);
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

/**
 * Refusals Fastify gives before any hook runs (an address with a malformed percent-encoding), in the
 * v5 shape and with a request id like every other response.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-Id', request.id);
  if (error.code === 'FST_ERR_BAD_URL') {
    sendError(reply, errors.badRequest('The address is malformed: it holds an invalid percent-encoding'));
    return;
  }
  request.log.error({ err: error }, 'unhandled error');
  sendError(reply, errors.internal());
}

/**
 * Requests Node's HTTP parser refuses (an unknown method, a malformed header line, headers over the
 * size limit, a request that never finishes arriving) never reach Fastify: they are answered on the
 * socket, in the v5 shape and with a request id like every other response, and the connection closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const refusal =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? errors.requestTimeout()
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? errors.headersTooLarge()
          : errors.notHttp();
    const body = JSON.stringify(refusal.body);
    socket.write(
      `HTTP/1.1 ${refusal.statusCode} ${STATUS_CODES[refusal.statusCode]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${newId()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
