import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { primaryLsn, readingFromReplica } from '../db/read-routing.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's reads must see everything committed (the event feed): never a replica. */
    primaryReads?: boolean;
  }
}

/** Tokens whose last write is remembered; past it the oldest is forgotten (its reads go to a replica sooner). */
const REMEMBERED_WRITERS_MAX = 100_000;
/** When the primary's position cannot be read after a write, the writer reads from the primary for this long. */
const UNKNOWN_POSITION_MS = 60_000;

interface ReadRoutingOptions {
  db: Kysely<any>;
  /** Whether every replica has replayed a position: the writer's entry is then dropped. */
  allReplayed(lsn: bigint): boolean;
}

const ON_PRIMARY_UNTIL_FORGOTTEN = (1n << 64n) - 1n;

/**
 * GET handlers read from a replica, and each client reads its own writes: after a write, the token's
 * reads go only to a replica that has replayed the primary's position of that moment (else to the
 * primary). The position is taken before the write's answer leaves, so a GET sent after it sees it.
 * Per instance: a load balancer keeps a token's requests on one instance (docs/deploy.md).
 * Hooks (the token check) and the other methods use the primary.
 */
export function registerReadRouting(app: FastifyInstance, { db, allReplayed }: ReadRoutingOptions): void {
  const lastWrites = new Map<string, { lsn: bigint; expires?: number }>();

  function minLsnOf(tokenId: string | undefined): bigint {
    const write = tokenId === undefined ? undefined : lastWrites.get(tokenId);
    if (!write) return 0n;
    if (write.expires !== undefined ? Date.now() > write.expires : allReplayed(write.lsn)) {
      lastWrites.delete(tokenId!);
      return 0n;
    }
    return write.lsn;
  }

  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (!methods.includes('GET') || route.config?.primaryReads) return;
    const handler = route.handler;
    route.handler = function (request, reply) {
      return readingFromReplica(minLsnOf(request.caller?.tokenId), () => handler.call(this, request, reply));
    };
  });

  app.addHook('onSend', async (request, _reply, payload) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS' || !request.caller) return payload;
    const { tokenId } = request.caller;
    let write: { lsn: bigint; expires?: number };
    try {
      write = { lsn: await primaryLsn(db) };
    } catch {
      write = { lsn: ON_PRIMARY_UNTIL_FORGOTTEN, expires: Date.now() + UNKNOWN_POSITION_MS };
    }
    // Concurrent writes of one token answer in any order: the furthest position stands.
    const earlier = lastWrites.get(tokenId);
    if (earlier && earlier.lsn > write.lsn) write = earlier;
    lastWrites.delete(tokenId); // to the end of the insertion order, the last to be forgotten
    lastWrites.set(tokenId, write);
    if (lastWrites.size > REMEMBERED_WRITERS_MAX) lastWrites.delete(lastWrites.keys().next().value!);
    return payload;
  });
}
