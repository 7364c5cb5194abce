import http from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { requestIdOf } from '../plugins/request-id.js';

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

export interface ListenOptions {
  host: string;
  port: number;
}

/** First byte of every TLS record carrying a handshake message (ClientHello included). */
const TLS_HANDSHAKE = 0x16;
/** A client that connects but sends nothing is dropped after this long. */
const FIRST_BYTE_TIMEOUT_MS = 10_000;
const PLAIN_HTTP_TIMEOUT_MS = 10_000;
/** How long shutdown waits for requests already being handled. */
const DRAIN_TIMEOUT_MS = 10_000;
const HTTPS_REQUIRED_BODY = '{"errors":["HTTPS is required"]}';

/**
 * Accepts connections for an app created with `https: { key, cert }` and routes each one by
 * its first byte: TLS goes to the app's https server, anything else to a responder that
 * answers plain HTTP with a JSON 403. `app.server` never listens itself, so
 * `app.server.address()` stays null.
 */
export async function listenTls(app: FastifyInstance, options: ListenOptions): Promise<RunningServer> {
  await app.ready();
  const tlsServer = app.server;
  const inFlight = trackRequests(tlsServer);
  const plainServer = createHttpsRequiredServer();
  const sockets = new Set<net.Socket>();

  const netServer = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // Resets and aborted handshakes must never become uncaught exceptions.
    socket.on('error', () => socket.destroy());
    routeByFirstByte(socket, tlsServer, plainServer);
  });

  await new Promise<void>((resolve, reject) => {
    netServer.once('error', reject);
    netServer.listen({ host: options.host, port: options.port }, () => {
      netServer.off('error', reject);
      resolve();
    });
  });
  // Node's http server only starts tracking connections (headersTimeout/requestTimeout checks,
  // closeAllConnections) once it sees 'listening'; fastify adds no listener for it outside listen().
  tlsServer.emit('listening');

  const port = (netServer.address() as net.AddressInfo).port;
  let closing: Promise<void> | undefined;

  return {
    port,
    close() {
      closing ??= (async () => {
        const netClosed = new Promise<void>((resolve) => netServer.close(() => resolve()));
        await app.close(); // from here on, requests on kept-alive connections get 503
        await inFlight.drained(DRAIN_TIMEOUT_MS);
        tlsServer.closeAllConnections();
        // Sockets still deciding, mid-handshake or on the 403 responder are not tracked by the app.
        for (const socket of sockets) socket.destroy();
        await netClosed;
      })();
      return closing;
    },
  };
}

/** For TRUST_PROXY mode: TLS is terminated by a reverse proxy, the app listens in plain HTTP. */
export async function listenPlain(app: FastifyInstance, options: ListenOptions): Promise<RunningServer> {
  await app.listen({ host: options.host, port: options.port });
  const port = (app.server.address() as net.AddressInfo).port;
  return { port, close: () => app.close() };
}

function routeByFirstByte(socket: net.Socket, tlsServer: net.Server, plainServer: http.Server): void {
  socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, () => socket.destroy());

  const onReadable = (): void => {
    const chunk = socket.read(1) as Buffer | null;
    // null: fewer bytes than requested are buffered, or the client closed without sending.
    if (chunk === null) return;
    socket.off('readable', onReadable);
    socket.setTimeout(0);
    // Put the byte back so the receiving server reads the stream from its start.
    socket.unshift(chunk);
    if (chunk[0] === TLS_HANDSHAKE) tlsServer.emit('connection', socket);
    else plainServer.emit('connection', socket);
  };
  socket.on('readable', onReadable);
}

function createHttpsRequiredServer(): http.Server {
  const server = http.createServer((req, res) => {
    res.writeHead(403, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(HTTPS_REQUIRED_BODY),
      'X-Request-Id': requestIdOf(req),
      Connection: 'close',
    });
    res.end(HTTPS_REQUIRED_BODY);
    // The body is irrelevant; drain it so a large upload does not stall the response.
    req.resume();
  });
  server.timeout = PLAIN_HTTP_TIMEOUT_MS;
  return server;
}

/** Counts requests being handled, so shutdown can let them finish before closing their connections. */
function trackRequests(server: http.Server) {
  let active = 0;
  let onIdle: (() => void) | undefined;
  server.on('request', (_request: http.IncomingMessage, response: http.ServerResponse) => {
    active += 1;
    response.once('close', () => {
      active -= 1;
      if (active === 0) onIdle?.();
    });
  });
  return {
    drained(timeoutMs: number): Promise<void> {
      if (active === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        onIdle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
  };
}
