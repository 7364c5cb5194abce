import type { Limit } from './sliding-window.js';

/** The request budgets the configuration sets (RATE_LIMIT, OAUTH_RATE_LIMIT, REDIS_URL). */
export interface RateLimitSettings {
  /** Per token on the API; per address for every request without a valid token. */
  api?: Limit;
  /** Per address on the OAuth endpoints, and per client at the token endpoint. */
  oauth?: Limit;
  /** Shared counters for several instances; without it each instance counts alone. */
  redisUrl?: string;
  /** The time windows are counted in, in ms since the epoch: `Date.now` unless a test sets the time itself. */
  clock?: () => number;
}
