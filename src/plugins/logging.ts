import type { FastifyRequest } from 'fastify';

/** Query values that must never reach a log line. */
const SECRET_QUERY = /([?&](?:access_token|token|password)=)[^&]*/gi;

/** Request log fields without headers (no Authorization) and with secret query values masked. */
export const logSerializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: request.url.replace(SECRET_QUERY, '$1[redacted]'),
      remoteAddress: request.ip,
    };
  },
};
