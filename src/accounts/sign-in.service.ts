import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import { lookupKey } from '../db/keys.js';
import { changeTime, inTransaction } from '../db/unit-of-work.js';
import type { Database } from '../db/schema.js';
import { Throttled, Unauthenticated } from '../lib/domain-errors.js';
import type { PasswordPolicy } from '../lib/password-policy.js';
import { hashPassword, verifyPassword } from '../lib/passwords.js';
import { usersRepository } from '../resources/users/users.repository.js';
import { usersService } from '../resources/users/users.service.js';
import { countSignIn } from './sign-in-days.js';
import type { SignInThrottle } from './throttle.js';

/** Wrong email or password, or an account that cannot sign in: one refusal for all, so that none can be told apart. */
export class SignInRefused extends Unauthenticated {
  constructor() {
    super('The email or password is incorrect');
    this.name = 'SignInRefused';
  }
}

/** Too many failed sign-ins from this address or for this account: try again after `retryAfterMs`. */
export class SignInThrottled extends Throttled {
  constructor(retryAfterMs: number) {
    super('Too many failed sign-ins; try again later', retryAfterMs);
    this.name = 'SignInThrottled';
  }
}

/** The person who tries to sign in, as the throttle knows them. */
export interface SignInAttempt {
  email: string;
  password: string;
  /** The address's key (an IPv6 address stands for its /64). */
  address: string;
  /** The device cookie the browser sent for this organization, if any. */
  deviceProof?: string;
}

/**
 * Who speaks when a person acts for themselves: the services take it as they take a token's caller.
 * The change stream names the person by their email, read here.
 */
export async function personCaller(db: Kysely<Database>, orgId: string, userId: string): Promise<Caller> {
  const user = await usersRepository(db).find(orgId, userId);
  return { orgId, tokenId: 'session', scopes: ['read', 'write'], actor: { type: 'person', id: userId, name: user?.email ?? null } };
}

/**
 * Checking an email and password. Every refusal costs one password verification, the unknown email
 * included (against a hash of a random password, as the OWASP Authentication Cheat Sheet says): a wrong
 * password, an unknown email, a deactivated account and one without a password answer the same, in the
 * same time. Failures are counted by the throttle, which refuses before any verification once an address
 * or an account has failed too often.
 */
export function signInService(db: Kysely<Database>, throttle: SignInThrottle, passwordPolicy: PasswordPolicy) {
  const users = usersRepository(db);
  let dummy: Promise<string> | undefined;
  const dummyHash = () => (dummy ??= hashPassword(randomBytes(24).toString('base64url')));

  return {
    /** The device cookie that proves a sign-in to this account from this browser. */
    deviceProof: (orgId: string, email: string) => throttle.deviceProof(orgId, lookupKey(email)),

    /** The id of the user these credentials sign in, or SignInRefused / SignInThrottled. */
    async verify(orgId: string, attempt: SignInAttempt): Promise<string> {
      const emailKey = lookupKey(attempt.email);
      const counted = {
        orgId,
        emailKey,
        address: attempt.address,
        knownDevice: attempt.deviceProof !== undefined && attempt.deviceProof === (await throttle.deviceProof(orgId, emailKey)),
      };
      const wait = await throttle.wait(counted);
      if (wait > 0) throw new SignInThrottled(wait);
      const user = await users.credentials(orgId, attempt.email);
      const matches = await verifyPassword(attempt.password, user?.password_hash ?? (await dummyHash()));
      if (user && user.password_hash && user.active && matches) return user.id;
      await throttle.failed(counted);
      throw new SignInRefused();
    },

    /**
     * Checks the server operator's token (OPERATOR_TOKEN) as a password is checked: counted by the same
     * throttle, as an account of its own that no organization's can be (its key is no organization's id),
     * and refused with the same SignInRefused / SignInThrottled. The digests compare in constant time.
     */
    async verifyOperator(expected: string, given: string, address: string): Promise<void> {
      const counted = { orgId: 'operator', emailKey: 'operator', address, knownDevice: false };
      const wait = await throttle.wait(counted);
      if (wait > 0) throw new SignInThrottled(wait);
      const digest = (text: string) => createHash('sha256').update(text).digest();
      if (timingSafeEqual(digest(given), digest(expected))) return;
      await throttle.failed(counted);
      throw new SignInRefused();
    },

    /** The person got through: their lastLoginDate is now (with its event), and the day's sign-ins of the organization one more. */
    recordSignIn: async (orgId: string, userId: string) => {
      const caller = await personCaller(db, orgId, userId);
      await inTransaction(db, caller.actor, async (uow) => {
        await usersService(uow, passwordPolicy).signedIn(caller, userId);
        await countSignIn(uow, orgId, changeTime(uow));
      });
    },

    /** Whether `password` is the user's current one (the account page asks for it before a new one is set). */
    async isCurrentPassword(orgId: string, userId: string, password: string): Promise<boolean> {
      const hash = await users.passwordHash(orgId, userId);
      return verifyPassword(password, hash ?? (await dummyHash())).then((matches) => matches && typeof hash === 'string');
    },
  };
}

export type SignInService = ReturnType<typeof signInService>;
