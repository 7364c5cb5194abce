import cliProgress from 'cli-progress';
import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import { analyze } from '../db/database.js';
import type { Database, UserfieldsTable } from '../db/schema.js';
import { inTransaction } from '../db/unit-of-work.js';
import { COMMAND_LINE_ACTOR } from '../lib/actors.js';
import type { PasswordPolicy } from '../lib/password-policy.js';
import { hashPassword } from '../lib/passwords.js';
import { offeringsService } from '../resources/offerings/offerings.service.js';
import { registrationsService } from '../resources/registrations/registrations.service.js';
import { userfieldValuesService } from '../resources/userfield-values/userfield-values.service.js';
import type { CreateUserfield } from '../resources/userfields/userfields.schemas.js';
import { userfieldsService } from '../resources/userfields/userfields.service.js';
import { usersService, type UserCreation } from '../resources/users/users.service.js';

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
const JOB_TITLES = ['Engineer', 'Analyst', 'Designer', 'Manager', 'Technician', 'Consultant', 'Coordinator'];
const LANGUAGES = ['English', 'French', 'German', 'Spanish', 'Dutch'];

/** Users per transaction: large enough that commits do not dominate, small enough to show progress. */
const USERS_PER_BATCH = 1000;
const CATEGORY_NAME = 'Demo profile';
const OFFERING_TITLE = 'Demo course';

/** The demo userfields, one of each kind of value, and the value user `n` holds in each (as a client would send it). */
const DEMO_FIELDS: { input: CreateUserfield; valueOf(n: number): unknown }[] = [
  { input: { type: 'text', name: 'Job title' }, valueOf: (n) => pick(JOB_TITLES, n) },
  { input: { type: 'number', name: 'Employee number' }, valueOf: (n) => 10_000 + n },
  { input: { type: 'decimal', name: 'Hourly rate' }, valueOf: (n) => 20 + (n % 40) / 4 },
  { input: { type: 'email', name: 'Manager email' }, valueOf: (n) => `manager${n % 97}@example.com` },
  {
    input: { type: 'date', name: 'Start date' },
    valueOf: (n) => `${String((n % 12) + 1).padStart(2, '0')}/${String((n % 28) + 1).padStart(2, '0')}/${2010 + (n % 15)}`,
  },
  { input: { type: 'dropdown', name: 'Department', options: DEPARTMENTS.map((name) => ({ name })) }, valueOf: (n) => pick(DEPARTMENTS, n) },
  {
    input: { type: 'radiobuttons', name: 'Shirt size', options: ['S', 'M', 'L', 'XL'].map((name) => ({ name })) },
    valueOf: (n) => pick(['S', 'M', 'L', 'XL'], n),
  },
  {
    input: { type: 'checkboxes', name: 'Languages', options: LANGUAGES.map((name) => ({ name })) },
    valueOf: (n) => [pick(LANGUAGES, n), pick(LANGUAGES, n + 2)],
  },
  { input: { type: 'truefalse', name: 'Remote' }, valueOf: (n) => n % 3 === 0 },
  { input: { type: 'yesno', name: 'Newsletter' }, valueOf: (n) => (n % 2 === 0 ? 'yes' : 'no') },
];
export const MAX_SEEDED_USERFIELD_VALUES = DEMO_FIELDS.length;
export const MAX_SEEDED_REGISTRATIONS = 100;

export interface SeedOptions {
  users: number;
  /** The server's: the users' shared password meets it. */
  passwordPolicy: PasswordPolicy;
  /** Values per user, one in each of the first n demo userfields (made when missing). */
  userfieldValues?: number;
  /** Active registrations per user, one in each of the first n demo offerings (made when missing). */
  registrations?: number;
}

export interface SeedResult {
  users: number;
  userfieldValues: number;
  registrations: number;
  /** Every seeded user's password. */
  password: string;
}

/** The demo users' shared password, made as long as the policy asks (hashed once, it is not checked by the service). */
function demoPassword(policy: PasswordPolicy): string {
  return 'training1'.padEnd(policy.minLength, '1');
}

function pick<T>(list: readonly T[], n: number): T {
  return list[n % list.length]!;
}

/** A plausible user for position `n`; every seeded user shares one password (hashing each would take minutes). */
function demoUser(n: number, runTag: string, passwordHash: string): UserCreation {
  const firstName = pick(FIRST_NAMES, n);
  const lastName = pick(LAST_NAMES, Math.floor(n / FIRST_NAMES.length));
  const username = `${firstName}.${lastName}.${runTag}${n}`.toLowerCase();
  return {
    firstName,
    lastName,
    username,
    email: `${username}@example.com`,
    passwordHash,
    locale: pick(LOCALES, n),
    tags: [pick(DEPARTMENTS, n), n % 5 === 0 ? 'manager' : 'staff'],
  };
}

/** The first `count` demo userfields of the organization, made through the service when missing. */
async function demoUserfields(db: Kysely<Database>, caller: Caller, count: number): Promise<UserfieldsTable[]> {
  const wanted = DEMO_FIELDS.slice(0, count);
  const names = wanted.map((field) => field.input.name!);
  const find = () => db.selectFrom('userfields').selectAll().where('org_id', '=', caller.orgId).where('name', 'in', names).execute();
  const existing = new Set((await find()).map((row) => row.name));
  const service = userfieldsService(db);
  for (const field of wanted) {
    if (!existing.has(field.input.name!)) await service.create(caller, { ...field.input, categoryName: CATEGORY_NAME });
  }
  const byName = new Map((await find()).map((row) => [row.name, row]));
  return names.map((name) => byName.get(name)!);
}

/** The first `count` demo offerings (open for registration, no dates), made through the service when missing. */
async function demoOfferings(db: Kysely<Database>, caller: Caller, count: number): Promise<{ id: string; title: string }[]> {
  const titles = Array.from({ length: count }, (_, index) => `${OFFERING_TITLE} ${index + 1}`);
  const find = () => db.selectFrom('offerings').select(['id', 'title']).where('org_id', '=', caller.orgId).where('title', 'in', titles).execute();
  const existing = new Set((await find()).map((row) => row.title));
  const service = offeringsService(db);
  for (const title of titles) if (!existing.has(title)) await service.create(caller, { title });
  const byTitle = new Map((await find()).map((row) => [row.title, row]));
  return titles.map((title) => byTitle.get(title)!);
}

/**
 * Adds demo users, optionally with userfield values and active registrations, in batches, then refreshes
 * the planner's statistics; with a `progress` stream (the command line's stderr), a bar shows how far it
 * is. Each batch is one unit of work of the users, values and registrations services (a few multi-row
 * statements each), so the seeded users, their values and registrations are recorded in the event feed as
 * the API's would be. The command line's `seed` and the operator's sandboxes both fill organizations so.
 */
export async function seed(db: Kysely<Database>, orgId: string, options: SeedOptions, progress?: NodeJS.WritableStream): Promise<SeedResult> {
  const { users: count, userfieldValues = 0, registrations = 0, passwordPolicy } = options;
  const caller: Caller = { orgId, tokenId: 'seed', scopes: ['read', 'write'], actor: COMMAND_LINE_ACTOR };
  const fields = userfieldValues > 0 ? await demoUserfields(db, caller, userfieldValues) : [];
  const offeringIds = registrations > 0 ? (await demoOfferings(db, caller, registrations)).map((offering) => offering.id) : [];
  const password = demoPassword(passwordPolicy);
  const passwordHash = await hashPassword(password);
  const runTag = Date.now().toString(36);

  const bar = progress
    ? new cliProgress.SingleBar(
        { format: 'Seeding users [{bar}] {value}/{total} {percentage}% | eta {eta}s', stream: progress, noTTYOutput: true, etaBuffer: 20 },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  bar?.start(count, 0);
  try {
    for (let start = 0; start < count; start += USERS_PER_BATCH) {
      const positions = Array.from({ length: Math.min(USERS_PER_BATCH, count - start) }, (_, i) => start + i);
      await inTransaction(db, caller.actor, async (trx) => {
        const ids = await usersService(trx, passwordPolicy).createMany(
          caller,
          positions.map((n) => demoUser(n, runTag, passwordHash)),
        );
        await userfieldValuesService(trx).updateMany(
          caller,
          ids.map((userId, i) => ({
            userId,
            values: Object.fromEntries(fields.map((field, f) => [field.id, DEMO_FIELDS[f]!.valueOf(positions[i]!)])),
          })),
        );
        await registrationsService(trx).createForNewUsers(caller, offeringIds, ids);
      });
      bar?.increment(positions.length);
    }
  } finally {
    bar?.stop();
  }
  await analyze(db, ['users', 'userfield_values', 'registrations', 'userfields', 'offerings']);
  return { users: count, userfieldValues: count * fields.length, registrations: count * offeringIds.length, password };
}

/** `count` demo users without values or registrations; returns their shared password. */
export async function seedUsers(
  db: Kysely<Database>,
  orgId: string,
  count: number,
  passwordPolicy: PasswordPolicy,
  progress?: NodeJS.WritableStream,
): Promise<string> {
  return (await seed(db, orgId, { users: count, passwordPolicy }, progress)).password;
}
