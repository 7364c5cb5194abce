import http from 'node:http';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
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

interface ListenOptions {
  host: string;
  port: number;
  /** Connection caps and the TLS handshake timeout; without them, only Node's defaults apply. */
  limits?: ClientLimits;
}

/** First byte of every TLS record carrying a handshake message (ClientHello included). */
const TLS_HANDSHAKE = 0x16;
/** A TLS record's header: type, version, and the length of what follows. */
const TLS_RECORD_HEADER = 5;
/** The longest a TLS record may be (RFC 8446 §5.1); a longer one is the TLS server's to refuse. */
const TLS_MAX_RECORD = 2 ** 14;
/** Without limits: a TLS handshake must be over, or plain HTTP have begun, this long after connecting. */
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
/** How long a connection closed for its handshake's slowness has to read the close before it is cut. */
const CLOSING_LINGER_MS = 1000;
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
  const handshakeTimeoutMs = options.limits?.tlsHandshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  const plainServer = createHttpsRequiredServer(handshakeTimeoutMs);
  const sockets = new Set<net.Socket>();
  const admit = connectionCaps(app, options.limits);
  const handshakes = handshakeDeadlines(tlsServer, handshakeTimeoutMs);

  const netServer = net.createServer((socket) => {
    // Resets and aborted handshakes must never become uncaught exceptions.
    socket.on('error', () => socket.destroy());
    if (!admit(socket)) return;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    handshakes.start(socket);
    routeByFirstRecord(socket, tlsServer, plainServer, handshakes);
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

/** Closes a connection with a FIN, reading and dropping what its client still sends for a while: no reset. */
function closeCleanly(socket: net.Socket): void {
  socket.removeAllListeners('readable');
  socket.resume();
  socket.end();
  socket.setTimeout(CLOSING_LINGER_MS, () => socket.destroy());
}

/**
 * TLS_HANDSHAKE_TIMEOUT counted from the connection, not from the last byte as Node's own
 * handshake timeout is: a ClientHello sent a byte at a time cannot hold a connection longer. A
 * connection still being sniffed is closed cleanly; one whose ClientHello the TLS server has (only
 * the client's last flight missing) is cut.
 */
function handshakeDeadlines(tlsServer: net.Server, timeoutMs: number) {
  const pending = new WeakMap<net.Socket, NodeJS.Timeout>();
  const handedToTls = new WeakSet<net.Socket>();
  // The TLS socket's `_parent` is the connection it wraps (Node's, stable since TLSSocket exists).
  tlsServer.on('secureConnection', (tlsSocket: TLSSocket & { _parent?: net.Socket }) => {
    if (tlsSocket._parent) clearTimeout(pending.get(tlsSocket._parent));
  });
  return {
    start(socket: net.Socket): void {
      const deadline = setTimeout(() => (handedToTls.has(socket) ? socket.destroy() : closeCleanly(socket)), timeoutMs);
      pending.set(socket, deadline);
      socket.once('close', () => clearTimeout(deadline));
    },
    /** Plain HTTP: the responder's own timeouts take over. */
    handedToPlain(socket: net.Socket): void {
      clearTimeout(pending.get(socket));
    },
    handedToTls(socket: net.Socket): void {
      handedToTls.add(socket);
    },
  };
}

/** Whether `bytes` hold a whole first TLS record (of one longer than TLS allows, as much as it allows). */
function holdsFirstRecord(bytes: Buffer): boolean {
  return bytes.length >= TLS_RECORD_HEADER && bytes.length >= TLS_RECORD_HEADER + Math.min(bytes.readUInt16BE(3), TLS_MAX_RECORD);
}

/**
 * Reads the start of a connection until it is known for what it is: plain HTTP from its first byte,
 * TLS once its first record (the ClientHello) is all there, so that a slow one is still ours to
 * close cleanly. The bytes are then put back for the receiving server to read from the start.
 */
function routeByFirstRecord(
  socket: net.Socket,
  tlsServer: net.Server,
  plainServer: http.Server,
  handshakes: ReturnType<typeof handshakeDeadlines>,
): void {
  let received = Buffer.alloc(0);
  const onReadable = (): void => {
    for (let chunk: Buffer | null; (chunk = socket.read() as Buffer | null) !== null;) received = Buffer.concat([received, chunk]);
    if (received.length === 0) return;
    const tls = received[0] === TLS_HANDSHAKE;
    if (tls && !holdsFirstRecord(received)) return;
    socket.off('readable', onReadable);
    socket.unshift(received);
    if (tls) {
      handshakes.handedToTls(socket);
      tlsServer.emit('connection', socket);
    } else {
      handshakes.handedToPlain(socket);
      plainServer.emit('connection', socket);
    }
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
  // One listener for every response, not a closure made per request: 'close' comes once per response.
  const closed = () => {
    active -= 1;
    if (active === 0) onIdle?.();
  };
  server.on('request', (_request: http.IncomingMessage, response: http.ServerResponse) => {
    active += 1;
    response.on('close', closed);
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
