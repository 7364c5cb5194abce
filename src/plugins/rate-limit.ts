import { isIPv4, isIPv6 } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../lib/errors.js';
import { redisStore } from '../rate-limit/redis-store.js';
import type { RateLimitSettings } from '../rate-limit/settings.js';
import { MAX_KEYS, memoryStore, type Decision, type Limit, type WindowStore } from '../rate-limit/sliding-window.js';
import { requiresToken, type BeforeTokenRefusal } from './authentication.js';
import { isOAuthPath, isProbePath, routedPath } from './protocol.js';

/** Counts an authenticated OAuth client at the token endpoint, or throws the 429. */
export type ClientBudget = (reply: FastifyReply, clientId: string) => Promise<void>;

/** `::1`, `2001:db8::5` → the eight groups of an IPv6 address. */
function ipv6Groups(ip: string): string[] {
  const [head = '', tail] = ip.split('%')[0]!.split('::');
  const before = head ? head.split(':') : [];
  const after = tail ? tail.split(':') : [];
  return tail === undefined ? before : [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
}

/**
 * The key an address counts under. An IPv6 address stands for its whole /64: one host usually holds
 * the prefix, and could otherwise take a new address for every request.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  return `${ipv6Groups(ip)
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** On every limited response: the names in lower case, as Fastify keeps them (security-headers.ts says why). */
function setHeaders(reply: FastifyReply, decision: Decision): void {
  reply.header('ratelimit-limit', decision.limit);
  reply.header('ratelimit-remaining', decision.remaining);
  reply.header('ratelimit-reset', Math.ceil(decision.resetMs / 1000));
}

function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * Request budgets over a sliding window (rate-limit/sliding-window.ts):
 *
 * - a request with a valid token counts against its token, right after authentication, so that what
 *   is refused later (400, 404, 405) counts too;
 * - every other request (no token, a bad or revoked one, an address outside the API) counts against
 *   its address; once that budget is spent the address's requests are refused, but for a valid
 *   token's: a stranger behind the same address translation cannot lock out the callers who share
 *   it. A request without a token is refused before authentication, one with a token only once its
 *   lookup failed (a lookup by hash, as any request costs);
 * - the OAuth endpoints count per address, and the token endpoint per client too, with their own
 *   stricter limit;
 * - health probes are never counted: a balancer must always reach them.
 *
 * A store that fails (Redis out of reach) admits the request and logs a warning: an outage of the
 * counters must not take the API down with it.
 */
export function createRateLimiter(app: FastifyInstance, settings: RateLimitSettings) {
  const warn = (error: Error) => app.log.warn({ err: error }, 'rate-limit store unreachable; requests are not limited meanwhile');
  const store: WindowStore = settings.redisUrl ? redisStore(settings.redisUrl, warn) : memoryStore();
  app.addHook('onClose', () => store.close());
  /** Keys known to have no budget left, and until when: an address among them is refused without asking the store. */
  const spent = new Map<string, number>();
  const { api, oauth, clock = Date.now } = settings;

  async function take(key: string, limit: Limit): Promise<Decision | undefined> {
    const at = clock();
    try {
      const decision = await store.take(key, limit, at);
      spent.delete(key);
      if (decision.remaining === 0) spent.set(key, at + decision.resetMs);
      if (spent.size > MAX_KEYS) spent.delete(spent.keys().next().value!);
      return decision;
    } catch (error) {
      warn(error as Error);
      return undefined;
    }
  }

  async function admit(reply: FastifyReply, key: string, limit: Limit): Promise<void> {
    const decision = await take(key, limit);
    if (!decision) return;
    setHeaders(reply, decision);
    if (!decision.allowed) throw errors.tooManyRequests(retryAfterSeconds(decision.resetMs));
  }

  function refuseIfSpent(key: string): void {
    const until = spent.get(key);
    if (until === undefined) return;
    const now = clock();
    if (until > now) throw errors.tooManyRequests(retryAfterSeconds(until - now));
    spent.delete(key);
  }

  /** Probes are never counted; the OAuth endpoints have their own budgets. */
  function kindOf(request: FastifyRequest): 'probe' | 'oauth' | 'other' {
    const path = routedPath(request);
    if (isProbePath(path)) return 'probe';
    return isOAuthPath(path) ? 'oauth' : 'other';
  }

  const clientBudget: ClientBudget | undefined = oauth ? (reply, clientId) => admit(reply, `oauth-client:${clientId}`, oauth) : undefined;

  return {
    /** Before authentication: the OAuth endpoints' address budget, and a spent address refused where no token is needed. */
    screenAddresses(): void {
      // A callback hook: only the OAuth endpoints wait for the store, and every other request goes on
      // without a promise and a turn of the microtask queue.
      app.addHook('onRequest', (request, reply, done) => {
        const kind = kindOf(request);
        if (kind === 'oauth' && oauth) {
          admit(reply, `oauth-address:${addressKey(request.ip)}`, oauth).then(() => done(), done);
          return;
        }
        try {
          if (kind === 'other' && api && !requiresToken(request)) refuseIfSpent(`address:${addressKey(request.ip)}`);
        } catch (refusal) {
          return done(refusal as Error);
        }
        done();
      });
    },

    /** For authentication: a request whose token is refused from a spent address is refused for its address instead. */
    beforeTokenRefusal: (api ? (request) => refuseIfSpent(`address:${addressKey(request.ip)}`) : undefined) satisfies BeforeTokenRefusal | undefined,

    /**
     * After authentication, before the scope check: a caller against its token (a 403 for its scope
     * counts too); anything answered without a valid caller against its address.
     */
    countRequests(): void {
      if (!api) return;
      app.addHook('onRequest', async (request, reply) => {
        if (request.caller) await admit(reply, `token:${request.caller.tokenId}`, api);
      });
      app.addHook('onSend', async (request, reply) => {
        if (request.caller || reply.statusCode === 429 || kindOf(request) !== 'other') return;
        const decision = await take(`address:${addressKey(request.ip)}`, api);
        if (decision) setHeaders(reply, decision);
      });
    },

    /** For the token endpoint, once the client is authenticated. */
    clientBudget,
  };
}
