import http from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errors } from '../lib/errors.js';
import { answerClientError, answerOnResponse } from '../plugins/errors.js';
import { addressKey } from '../plugins/rate-limit.js';
import { requestIdOf } from '../plugins/request-id.js';
import type { ClientLimits } from './client-limits.js';

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

export interface ListenOptions {
  host: string;
  port: number;
  /** Connection caps and the TLS handshake timeout; without them, only Node's defaults apply. */
  limits?: ClientLimits;
}

/** First byte of every TLS record carrying a handshake message (ClientHello included). */
const TLS_HANDSHAKE = 0x16;
/** Without limits: a client that connects but sends nothing is dropped after this long. */
const DEFAULT_SILENCE_TIMEOUT_MS = 10_000;
/** How long shutdown waits for requests already being handled. */
const DRAIN_TIMEOUT_MS = 10_000;
/** A connection over a cap is closed at once; what its client still sends is read and dropped for this long. */
const REFUSED_LINGER_MS = 1000;
/** One warning per this many refused connections, so a flood does not flood the log too. */
const REFUSALS_PER_WARNING = 1000;

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
  const silenceTimeoutMs = options.limits?.tlsHandshakeTimeoutMs ?? DEFAULT_SILENCE_TIMEOUT_MS;
  const plainServer = createHttpsRequiredServer(silenceTimeoutMs);
  const sockets = new Set<net.Socket>();
  const admit = connectionCaps(app, options.limits);

  const netServer = net.createServer((socket) => {
    // Resets and aborted handshakes must never become uncaught exceptions.
    socket.on('error', () => socket.destroy());
    if (!admit(socket)) return;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    routeByFirstByte(socket, tlsServer, plainServer, silenceTimeoutMs);
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
  // Behind a proxy every connection comes from the proxy: only the total is capped.
  if (options.limits) app.server.maxConnections = options.limits.maxConnections;
  const port = (app.server.address() as net.AddressInfo).port;
  return { port, close: () => app.close() };
}

/**
 * Admits a new connection, or closes it politely (a FIN, never a reset) when the server or its
 * client's address already holds as many as allowed.
 */
function connectionCaps(app: FastifyInstance, limits: ClientLimits | undefined): (socket: net.Socket) => boolean {
  if (!limits) return () => true;
  const perAddress = new Map<string, number>();
  let total = 0;
  let refused = 0;
  return (socket) => {
    const address = addressKey(socket.remoteAddress ?? '');
    const fromAddress = perAddress.get(address) ?? 0;
    if (total >= limits.maxConnections || fromAddress >= limits.maxConnectionsPerAddress) {
      if (refused % REFUSALS_PER_WARNING === 0) {
        const cap = total >= limits.maxConnections ? 'MAX_CONNECTIONS' : 'MAX_CONNECTIONS_PER_ADDRESS';
        app.log.warn({ address, refusedSoFar: refused + 1, cap }, 'connection refused: too many connections');
      }
      refused += 1;
      socket.resume();
      socket.end();
      socket.setTimeout(REFUSED_LINGER_MS, () => socket.destroy());
      return false;
    }
    total += 1;
    perAddress.set(address, fromAddress + 1);
    socket.once('close', () => {
      total -= 1;
      const left = perAddress.get(address)! - 1;
      if (left === 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
    return true;
  };
}

function routeByFirstByte(socket: net.Socket, tlsServer: net.Server, plainServer: http.Server, silenceTimeoutMs: number): void {
  socket.setTimeout(silenceTimeoutMs, () => socket.destroy());

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

/** Plain HTTP on the TLS port: a 403, and anything that is not even HTTP a 400, both in the v5 shape. */
function createHttpsRequiredServer(timeoutMs: number): http.Server {
  const server = http.createServer((req, res) => {
    answerOnResponse(res, errors.httpsRequired(), requestIdOf(req));
    // The body is irrelevant; drain it so a large upload does not stall the response.
    req.resume();
  });
  server.on('clientError', answerClientError);
  server.timeout = timeoutMs;
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
