import type { IncomingMessage } from 'node:http';
import { newId } from '../lib/ids.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** A client's own X-Request-Id is kept when it is safe to echo and to log; otherwise a new one is made. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : newId();
}
