import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import { analyze } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { PasswordPolicy } from '../lib/password-policy.js';
import { deactivateUsers, plannedWrites, writeBatch, type RowWrite } from './apply.js';
import { checkedRows, type ImportRow } from './check.js';
import type { Headings } from './columns.js';
import type { Encoding } from './file-text.js';
import { fileRows, type Format } from './file-rows.js';
import type { ImportSummary } from './imports.schemas.js';
import type { Problem } from './rows.js';
import { importedUsersRepository } from './imported-users.repository.js';
import { noProgress, type ProgressOf } from './progress.js';

/**
 * The import of an organization's people, one user a row, from CSV, JSON Lines or an Excel workbook: what the command
 * line's `import users` and `POST /imports` both run. Columns are user properties and userfields (by
 * name or id). Every row is checked with the API's own validation and compared with what is stored
 * before anything is written; the writes then go through the same services as the API, a batch per
 * unit of work, so every rule the API applies holds for an import too, and the same events are
 * recorded. A row equal to what is stored writes nothing.
 *
 * The nightly sync (`deactivateMissing`) also deactivates the users missing from the file, and
 * refuses the whole file when it would change more users than `maxChanges` allows: a truncated
 * export must not deactivate half the company.
 */

/** Rows per transaction: large enough that commits do not dominate, small enough to show progress. */
const ROWS_PER_BATCH = 500;

/** How many users an import may update and deactivate: a number, or a percentage of the organization's users. */
type ChangeLimit = { users: number } | { percent: number };

/** The nightly sync's limit unless told otherwise. */
const DEFAULT_MAX_CHANGES: ChangeLimit = { percent: 10 };

/** `250` or `10%`; undefined for anything else. */
export function changeLimitOf(text: string): ChangeLimit | undefined {
  const match = /^(\d+(?:\.\d+)?)(%?)$/.exec(text.trim());
  if (!match) return undefined;
  const amount = Number(match[1]);
  if (match[2]) return amount <= 100 ? { percent: amount } : undefined;
  return Number.isInteger(amount) ? { users: amount } : undefined;
}

const limitText = (limit: ChangeLimit) => ('percent' in limit ? `${limit.percent}%` : `${limit.users}`);

export interface ImportOptions extends Headings {
  format: Format;
  /** The file's encoding, else told by its bytes. */
  encoding?: Encoding;
  /** A workbook's sheet; the first when absent. */
  sheet?: string;
  /** Check and compare only: tell what would change, write nothing. */
  dryRun: boolean;
  /** Deactivate the organization's active users whose email is not in the file. */
  deactivateMissing: boolean;
  /** Deactivate only users an import manages (named by an imported file before), none that SCIM or the API brought. */
  onlyImported: boolean;
  /** Refuse the file when it would update and deactivate more users than this; DEFAULT_MAX_CHANGES with `deactivateMissing`, no limit else. */
  maxChanges?: ChangeLimit;
  /** The server's password policy, which a password in the file must meet as one sent to the API must. */
  passwordPolicy: PasswordPolicy;
  progress?: ProgressOf;
}

/** A stored user a dry run would change. */
type PlannedChange = NonNullable<ImportSummary['changes']>[number];

/** The summary of what was imported (or would be, in a dry run), or the file's problems: then nothing was written. */
type ImportOutcome = { summary: ImportSummary } | { problems: Problem[] };

/** The active users missing from the file that the sync deactivates: all of them, or those an import manages. */
async function missingUsers(
  db: Kysely<Database>,
  orgId: string,
  rows: readonly ImportRow[],
  managed: ReadonlyMap<string, unknown> | undefined,
): Promise<{ id: string; email: string }[]> {
  const inFile = new Set(rows.flatMap((row) => row.existingId ?? []));
  const active = await db.selectFrom('users').select(['id', 'email']).where('org_id', '=', orgId).where('active', '=', true).execute();
  return active.filter((user) => !inFile.has(user.id) && (!managed || managed.has(user.id)));
}

async function userCount(db: Kysely<Database>, orgId: string): Promise<number> {
  const { count } = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Imports the file's bytes, or with `dryRun` only checks them and tells what they would change. */
export async function importUsers(db: Kysely<Database>, caller: Caller, bytes: Uint8Array, options: ImportOptions): Promise<ImportOutcome> {
  const progress = options.progress ?? noProgress;
  const problems: Problem[] = [];
  const read = await fileRows(bytes, options.format, options, problems);
  const rows = problems.length > 0 ? [] : await checkedRows(db, caller.orgId, read, { ...options, progress }, problems);
  if (problems.length > 0) return { problems };

  const managed = await importedUsersRepository(db).all(caller.orgId);
  // The sync deactivated these for being missing; back in the file, they are active again unless it says otherwise.
  for (const row of rows) if (row.existingId && managed.get(row.existingId)?.deactivated && row.user.active === undefined) row.user.active = true;

  const writes: RowWrite[] = [];
  const comparing = progress(rows.length, 'compared');
  try {
    for (let start = 0; start < rows.length; start += ROWS_PER_BATCH) {
      const batch = rows.slice(start, start + ROWS_PER_BATCH);
      writes.push(...(await plannedWrites(db, caller.orgId, batch, options.dryRun)));
      comparing.increment(batch.length);
    }
  } finally {
    comparing.stop();
  }
  const missing = options.deactivateMissing ? await missingUsers(db, caller.orgId, rows, options.onlyImported ? managed : undefined) : [];
  const summary: ImportSummary = {
    rows: rows.length,
    created: 0,
    updated: 0,
    unchanged: 0,
    deactivated: missing.length,
    userfieldValues: 0,
    dryRun: options.dryRun,
  };
  for (const write of writes) {
    if (write.unchanged) summary.unchanged++;
    else if (write.row.existingId) summary.updated++;
    else summary.created++;
    summary.userfieldValues += Object.keys(write.values).length;
  }

  const limit = options.maxChanges ?? (options.deactivateMissing ? DEFAULT_MAX_CHANGES : undefined);
  if (limit) {
    const users = await userCount(db, caller.orgId);
    const allowed = 'users' in limit ? limit.users : (users * limit.percent) / 100;
    const changes = summary.updated + summary.deactivated;
    if (changes > allowed) {
      return {
        problems: [
          {
            message:
              `the file would update ${summary.updated} and deactivate ${summary.deactivated} of the organization's ${users} users, ` +
              `more than --max-changes ${limitText(limit)} allows; check the file (a truncated export?), or raise --max-changes`,
          },
        ],
      };
    }
  }

  if (options.dryRun) {
    summary.changes = [
      ...writes.flatMap((write): PlannedChange[] =>
        write.unchanged || !write.row.existingId ? [] : [{ email: write.row.user.email, change: 'updated' }],
      ),
      ...missing.map((user): PlannedChange => ({ email: user.email, change: 'deactivated' })),
    ];
    return { summary };
  }

  const writing = progress(rows.length + missing.length, 'imported');
  try {
    // Users the sync holds deactivated are written again when back in the file, even unchanged (reactivated
    // through the API meanwhile), so that their record says they are not deactivated any more.
    const alreadyManaged = new Set([...managed].filter(([, user]) => !user.deactivated).map(([id]) => id));
    let creatingBatches = 0;
    for (let start = 0; start < writes.length; start += ROWS_PER_BATCH) {
      const batch = writes.slice(start, start + ROWS_PER_BATCH);
      if (batch.some((write) => !write.unchanged || !alreadyManaged.has(write.row.existingId!)))
        await writeBatch(db, caller, batch, start, alreadyManaged);
      // Tables that grow many times over keep the plans made when they were small (PostgreSQL's foreign
      // key checks scanned every user of the organization, once per new value, when the first import
      // started on empty tables): the statistics are refreshed each time the new users have doubled.
      if (batch.some((write) => !write.row.existingId) && isPowerOfTwo(++creatingBatches)) await analyze(db, ['users', 'userfield_values']);
      writing.increment(batch.length);
    }
    for (let start = 0; start < missing.length; start += ROWS_PER_BATCH) {
      const batch = missing.slice(start, start + ROWS_PER_BATCH);
      await deactivateUsers(
        db,
        caller,
        batch.map((user) => user.id),
      );
      writing.increment(batch.length);
    }
  } finally {
    writing.stop();
  }
  // The planner's statistics, now that the tables may have grown many times over.
  if (summary.created + summary.updated > 0) await analyze(db, ['users', 'userfield_values']);
  return { summary };
}

const isPowerOfTwo = (n: number) => (n & (n - 1)) === 0;
