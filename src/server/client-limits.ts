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
