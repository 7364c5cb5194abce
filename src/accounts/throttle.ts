import { createHmac } from 'node:crypto';
import { redisStore } from '../rate-limit/redis-store.js';
import { memoryStore, type Decision, type Limit, type WindowStore } from '../rate-limit/sliding-window.js';

/**
 * How many failed sign-ins each key may collect in each window. Several windows per key make the
 * back-off: a few quick failures cost a minute's wait, more cost up to an hour. Nothing is locked for
 * good: a window forgets its failures as it slides.
 *
 * - per account and address: the guesses of one person at their own password, or of one attacker at one account;
 * - per address: one machine trying many accounts (credential stuffing);
 * - per account from every address: many machines trying one account. A browser that has signed in to the
 *   account before (it holds that account's device cookie) is not held back by this one, so that strangers'
 *   failures cannot keep a person out (OWASP's "device cookies").
 */
const MINUTE = 60_000;
export const THROTTLES = {
  pair: [
    { max: 5, windowMs: MINUTE },
    { max: 15, windowMs: 60 * MINUTE },
  ],
  address: [
    { max: 20, windowMs: MINUTE },
    { max: 60, windowMs: 60 * MINUTE },
  ],
  account: [
    { max: 20, windowMs: 15 * MINUTE },
    { max: 60, windowMs: 24 * 60 * MINUTE },
  ],
} as const satisfies Record<string, readonly Limit[]>;

/** Who is signing in, as the throttle counts them. */
export interface Attempt {
  orgId: string;
  /** The email's lookup key (lower case), whether or not an account has it. */
  emailKey: string;
  /** The address's key (an IPv6 address stands for its /64). */
  address: string;
  /** The browser proved an earlier sign-in to this account (its device cookie). */
  knownDevice: boolean;
}

export interface SignInThrottle {
  /** The wait before this attempt may be tried, in ms, or 0 when it may be tried now. */
  wait(attempt: Attempt): Promise<number>;
  /** Counts a failed attempt. */
  failed(attempt: Attempt): Promise<void>;
  /** The value of the device cookie that proves a sign-in to this account from this browser. */
  deviceProof(orgId: string, emailKey: string): Promise<string>;
  close(): Promise<void>;
}

export interface ThrottleSettings {
  /** Counters shared by every instance; without it each instance counts alone. */
  redisUrl?: string;
  /** Signs the device cookies: the same on every instance (a server key, read when first needed). */
  deviceKey: () => Promise<Buffer>;
  clock?: () => number;
  onStoreError?: (error: Error) => void;
}

/** The keys an attempt counts under, each with its windows. */
function keysOf(attempt: Attempt): [string, readonly Limit[]][] {
  const account = `${attempt.orgId}:${attempt.emailKey}`;
  const keys: [string, readonly Limit[]][] = [
    [`sign-in:pair:${account}:${attempt.address}`, THROTTLES.pair],
    [`sign-in:address:${attempt.orgId}:${attempt.address}`, THROTTLES.address],
  ];
  if (!attempt.knownDevice) keys.push([`sign-in:account:${account}`, THROTTLES.account]);
  return keys;
}

/**
 * The sign-in throttle, on by default: failures are counted in the rate limits' sliding windows, in
 * Redis when one is configured (so that every instance counts together), else in this process. A store
 * that fails lets the attempt through, as the rate limits do: the passwords' hashing still bounds guessing.
 */
export function signInThrottle(settings: ThrottleSettings): SignInThrottle {
  const store: WindowStore = settings.redisUrl ? redisStore(settings.redisUrl, settings.onStoreError ?? (() => undefined)) : memoryStore();
  const clock = settings.clock ?? Date.now;

  async function each(attempt: Attempt, use: (key: string, limit: Limit, at: number) => Promise<Decision>): Promise<Decision[]> {
    const at = clock();
    const decisions: Promise<Decision>[] = [];
    for (const [key, limits] of keysOf(attempt)) for (const limit of limits) decisions.push(use(`${key}:${limit.windowMs}`, limit, at));
    try {
      return await Promise.all(decisions);
    } catch (error) {
      settings.onStoreError?.(error as Error);
      return [];
    }
  }

  return {
    async wait(attempt) {
      const refused = (await each(attempt, (key, limit, at) => store.peek(key, limit, at))).filter((decision) => !decision.allowed);
      return refused.reduce((longest, decision) => Math.max(longest, decision.resetMs), 0);
    },
    async failed(attempt) {
      await each(attempt, (key, limit, at) => store.take(key, limit, at));
    },
    async deviceProof(orgId, emailKey) {
      return createHmac('sha256', await settings.deviceKey())
        .update(`device:${orgId}:${emailKey}`)
        .digest('base64url');
    },
    close: () => store.close(),
  };
}
