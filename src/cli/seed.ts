import cliProgress from 'cli-progress';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import { hashPassword } from '../lib/passwords.js';
import { tagsColumn } from '../lib/tags.js';
import { now } from '../lib/time.js';
import { usersRepository, type NewUser } from '../resources/users/users.repository.js';

const FIRST_NAMES = [
  'Ada',
  'Alan',
  'Grace',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'John',
  'Margaret',
  'Dennis',
  'Radia',
  'Ken',
  'Hedy',
  'Linus',
  'Sophie',
  'Tim',
];
const LAST_NAMES = [
  'Lovelace',
  'Turing',
  'Hopper',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Backus',
  'Hamilton',
  'Ritchie',
  'Perlman',
  'Thompson',
  'Lamarr',
  'Torvalds',
  'Wilson',
  'Berners-Lee',
];
const DEPARTMENTS = ['sales', 'engineering', 'support', 'finance', 'marketing', 'operations'];
const LOCALES = ['en', 'en-US', 'en-GB', 'fr', 'de', 'es', 'nl'];
const BATCH = 500;

function pick<T>(list: readonly T[], n: number): T {
  return list[n % list.length]!;
}

/** A plausible user for position `n`; every seeded user shares one password (hashing each would take minutes). */
function demoUser(orgId: string, n: number, runTag: string, passwordHash: string): NewUser {
  const first = pick(FIRST_NAMES, n);
  const last = pick(LAST_NAMES, Math.floor(n / FIRST_NAMES.length));
  const username = `${first}.${last}.${runTag}${n}`.toLowerCase();
  const email = `${username}@example.com`;
  return {
    org_id: orgId,
    id: newId(),
    first_name: first,
    last_name: last,
    username,
    email,
    password_hash: passwordHash,
    locale: pick(LOCALES, n),
    tags: tagsColumn([pick(DEPARTMENTS, n), n % 5 === 0 ? 'manager' : 'staff']),
    created_date: now(),
    last_login_date: null,
  };
}

/**
 * Inserts `count` demo users in batches, one transaction per batch, with a progress bar on stderr.
 * Returns the shared demo password.
 */
export async function seedUsers(
  db: Kysely<Database>,
  orgId: string,
  count: number,
  progress: NodeJS.WritableStream = process.stderr,
): Promise<string> {
  const password = 'training1';
  const passwordHash = await hashPassword(password);
  const runTag = Date.now().toString(36);
  const bar = new cliProgress.SingleBar(
    { format: 'Seeding users [{bar}] {value}/{total} {percentage}% | eta {eta}s', stream: progress, noTTYOutput: true, etaBuffer: 20 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(count, 0);
  try {
    for (let start = 0; start < count; start += BATCH) {
      const size = Math.min(BATCH, count - start);
      await db.transaction().execute(async (trx) => {
        const users = usersRepository(trx);
        for (let i = 0; i < size; i += 1) await users.insert(demoUser(orgId, start + i, runTag, passwordHash));
      });
      bar.increment(size);
    }
  } finally {
    bar.stop();
  }
  return password;
}
