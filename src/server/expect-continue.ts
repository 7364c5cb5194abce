import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * `Expect: 100-continue` (RFC 9110 §10.1.1): Node answers `100 Continue` as soon as the headers
 * arrive, so a client told to go on would send a body over the route's limit only to get 413. Here
 * `100 Continue` is sent when the body is first read (Fastify's body parser, after the Content-Length
 * check against the route's limit); whatever answers before that (401, 404, 413, 415) answers
 * without it, and closes the connection, since the client may never send the body it announced.
 */
export function continueWhenBodyIsRead(server: Server): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    response.setHeader('Connection', 'close');
    const onListener = (event: string | symbol): void => {
      if (event !== 'data' && event !== 'readable') return;
      request.off('newListener', onListener);
      response.removeHeader('Connection');
      response.writeContinue();
    };
    request.on('newListener', onListener);
    server.emit('request', request, response);
  });
}
