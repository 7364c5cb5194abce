import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clearOperatorCookie, cookieNames, setOperatorCookie } from '../../pages/cookies.js';

/** How long the operator stays signed in: an hour, then the token is asked for again. */
export const OPERATOR_SESSION_MS = 60 * 60_000;

/**
 * The server operator's sessions. The operator is no organization's person, so no session row: the
 * cookie holds the session's end and an HMAC of it, under a server key, bound to a digest of the token.
 * Nobody makes one without the key; none outlives its hour; and a new OPERATOR_TOKEN ends them all.
 */
export function operatorSessions(keyOf: () => Promise<Buffer>, token: string, clock: () => number = Date.now) {
  const tokenDigest = createHash('sha256').update(token).digest('base64url');
  const proofOf = async (end: number) =>
    createHmac('sha256', await keyOf())
      .update(`operator-session:${end}:${tokenDigest}`)
      .digest('base64url');
  return {
    async start(reply: FastifyReply): Promise<void> {
      const end = clock() + OPERATOR_SESSION_MS;
      setOperatorCookie(reply, `${end}.${await proofOf(end)}`, OPERATOR_SESSION_MS / 1000);
    },
    /** Whether the request comes from the operator signed in. */
    async holds(request: FastifyRequest): Promise<boolean> {
      const match = /^(\d{1,15})\.([\w-]{43})$/.exec(request.cookies[cookieNames.operator] ?? '');
      if (!match) return false;
      const end = Number(match[1]);
      if (end <= clock()) return false;
      return timingSafeEqual(Buffer.from(match[2]!), Buffer.from(await proofOf(end)));
    },
    end: clearOperatorCookie,
  };
}
