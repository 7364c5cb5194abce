import type { ServerOptions } from 'node:http';

/** How long a client may take, and how many connections it may hold, in milliseconds and counts. */
export interface ClientLimits {
  /** The whole request, headers and body, must have arrived within this of its first byte. */
  requestTimeoutMs: number;
  /** The headers must have arrived within this; also the longest a new connection may stay silent. */
  headersTimeoutMs: number;
  /** A kept-alive connection with no request is closed after this. */
  keepAliveTimeoutMs: number;
  tlsHandshakeTimeoutMs: number;
  maxConnections: number;
  /** Connections from one address (an IPv6 address counts with its /64). */
  maxConnectionsPerAddress: number;
}

/** Node checks its connections against the timeouts on an interval: often enough that none is overrun by much. */
const MAX_CHECKING_INTERVAL_MS = 1000;

/**
 * Node keeps an idle connection open this long past the keep-alive timeout it is given, which is the
 * one its `Keep-Alive: timeout=` header advertises, so that clients reading the header close first.
 */
const NODE_KEEP_ALIVE_BUFFER_MS = 1000;

/** Fastify's timeouts: Node is given a keep-alive timeout a buffer short of ours, so it closes at ours. */
export function fastifyTimeouts(limits: ClientLimits): { requestTimeout: number; keepAliveTimeout: number } {
  return { requestTimeout: limits.requestTimeoutMs, keepAliveTimeout: limits.keepAliveTimeoutMs - NODE_KEEP_ALIVE_BUFFER_MS };
}

/** The shortest KEEP_ALIVE_TIMEOUT: one that still advertises a whole second to clients. */
export const MIN_KEEP_ALIVE_TIMEOUT_MS = 2 * NODE_KEEP_ALIVE_BUFFER_MS;

/**
 * Options of Node's HTTP server. The Host check is the app's (see plugins/protocol.ts): Node's
 * own answers a bare 400 with no body.
 */
export function nodeServerOptions(limits: ClientLimits | undefined): ServerOptions & { handshakeTimeout?: number } {
  if (!limits) return { requireHostHeader: false };
  return {
    requireHostHeader: false,
    headersTimeout: limits.headersTimeoutMs,
    connectionsCheckingInterval: Math.min(MAX_CHECKING_INTERVAL_MS, limits.headersTimeoutMs),
    handshakeTimeout: limits.tlsHandshakeTimeoutMs,
  };
}
