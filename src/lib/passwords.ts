import { availableParallelism } from 'node:os';
import { scrypt, timingSafeEqual } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';

/** OWASP Password Storage Cheat Sheet: argon2id with 19 MiB of memory, 2 passes, 1 lane. */
const ARGON2ID = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * How many hashes run at once. Each takes a core and 19 MiB on libuv's thread pool (4 threads by
 * default, shared with file and DNS work), so a burst of password writes waits here instead of
 * filling memory and every thread; at least one core stays free for the event loop.
 */
const HASHING_CONCURRENCY = Math.max(1, Math.min(3, availableParallelism() - 1));

/** A first-come, first-served gate for `limit` concurrent tasks. */
export function concurrencyGate(limit: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

const hashing = concurrencyGate(HASHING_CONCURRENCY);

/** A PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`): the parameters travel with the hash, so they can be raised later. */
export function hashPassword(password: string): Promise<string> {
  return hashing(() => hash(password.normalize('NFC'), ARGON2ID));
}

/** `scrypt$N$r$p$salt$hash`, the format stored before argon2id. */
function verifyScrypt(password: string, stored: string): Promise<boolean> {
  const [, N, r, p, salt, hash] = stored.split('$');
  if (!salt || !hash) return Promise.resolve(false);
  const expected = Buffer.from(hash, 'base64url');
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFC'),
      Buffer.from(salt, 'base64url'),
      expected.length,
      { N: Number(N), r: Number(r), p: Number(p), maxmem: 256 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(timingSafeEqual(key, expected))),
    ),
  );
}

/** Checks a password against a stored hash of either format; a hash that cannot be read matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const check = stored.startsWith('$argon2')
    ? () => verify(stored, password.normalize('NFC'))
    : stored.startsWith('scrypt$')
      ? () => verifyScrypt(password, stored)
      : undefined;
  return check ? hashing(check).catch(() => false) : false;
}
