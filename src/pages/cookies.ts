import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The pages' cookies. Each is `__Host-` prefixed (RFC 6265bis): Secure, for this host only, on every
 * path, so that no other host or page can set or read it; HttpOnly, so that no script can read it;
 * SameSite=Lax, so that it rides along when a person follows a link to the pages, never with a form
 * another site posts.
 */
const BASE = { path: '/', secure: true, httpOnly: true, sameSite: 'lax' } as const;

export const cookieNames = {
  /** The session of a person of this organization. */
  session: (orgId: string) => `__Host-session-${orgId}`,
  /** Proof that this browser signed in to an account before (see accounts/throttle.ts). */
  device: (orgId: string) => `__Host-device-${orgId}`,
  /** The secret the forms' tokens are made from. */
  csrf: '__Host-csrf',
  /** The server operator's session (see console/operator/operator-session.ts). */
  operator: '__Host-operator',
};

const YEAR_SECONDS = 365 * 24 * 3600;

export function setSessionCookie(reply: FastifyReply, orgId: string, secret: string, maxAgeSeconds: number): void {
  reply.setCookie(cookieNames.session(orgId), secret, { ...BASE, maxAge: maxAgeSeconds });
}

export function clearSessionCookie(reply: FastifyReply, orgId: string): void {
  reply.clearCookie(cookieNames.session(orgId), BASE);
}

export function setOperatorCookie(reply: FastifyReply, value: string, maxAgeSeconds: number): void {
  // Strict: the operator's pages are never reached by following another site's link signed in.
  reply.setCookie(cookieNames.operator, value, { ...BASE, sameSite: 'strict', maxAge: maxAgeSeconds });
}

export function clearOperatorCookie(reply: FastifyReply): void {
  reply.clearCookie(cookieNames.operator, { ...BASE, sameSite: 'strict' });
}

export function setDeviceCookie(reply: FastifyReply, orgId: string, proof: string): void {
  reply.setCookie(cookieNames.device(orgId), proof, { ...BASE, maxAge: YEAR_SECONDS });
}

/**
 * Forms carry a token against cross-site requests (OWASP's signed double-submit cookie): an HMAC, with a
 * key of the server, of a random secret kept in a cookie. A site that makes the browser post a form
 * sends the cookie but cannot read it, nor make the token without the key. The token is the same for
 * every form of a browser, so that a page answered twice is the same page.
 */
export function csrfTokens(keyOf: () => Promise<Buffer>) {
  const tokenOf = async (secret: string) =>
    createHmac('sha256', await keyOf())
      .update(`csrf:${secret}`)
      .digest('base64url');
  return {
    /** The token for this browser's forms, giving it a secret first if it has none. */
    issue(request: FastifyRequest, reply: FastifyReply): Promise<string> {
      let secret = request.cookies[cookieNames.csrf];
      if (!secret || !/^[A-Za-z0-9_-]{43}$/.test(secret)) {
        secret = randomBytes(32).toString('base64url');
        reply.setCookie(cookieNames.csrf, secret, BASE);
        // The same request may render a form with the new secret: the token must match what the browser now holds.
        request.cookies[cookieNames.csrf] = secret;
      }
      return tokenOf(secret);
    },
    /** Whether the token a form sent is this browser's. */
    async verify(request: FastifyRequest, token: unknown): Promise<boolean> {
      const secret = request.cookies[cookieNames.csrf];
      if (!secret || typeof token !== 'string') return false;
      const expected = Buffer.from(await tokenOf(secret));
      const given = Buffer.from(token);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

export type CsrfTokens = ReturnType<typeof csrfTokens>;
