import { availableParallelism } from 'node:os';
import { setImmediate as turn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import { analyze } from '../db/database.js';
import { isPostgres } from '../db/locking.js';
import type { Database } from '../db/schema.js';
import type { PasswordPolicy } from '../lib/password-policy.js';
import { DEFAULT_BATCH_MS, DEFAULT_SHARED_BATCH_MS, type ImportSettings } from '../lib/import-settings.js';
import { deactivateUsers, plannedWrites, writeBatch, type RowWrite } from './apply.js';
import { rowChecker, type ImportRow, type RowChecker } from './check.js';
import { readingOf, readingOfDelimiter, type Headings } from './columns.js';
import { FileReader, type FileSource, type Format, type RowsSource } from './file-reader.js';
import type { ImportSummary } from '../resources/imports/imports.schemas.js';
import type { Problem } from './rows.js';
import { importedUsersRepository } from './imported-users.repository.js';
import { noProgress, type Progress, type Stage } from './progress.js';
import { writeShare } from './write-share.js';

/**
 * The import of an organization's people, one user a row, from delimited text (CSV, TSV), JSON Lines
 * or an Excel workbook: what the command line's `import users` and `POST /imports` both run. Columns
 * are user properties and userfields (by name or id). The file is read in a thread of its own
 * (file-reader.ts) and its rows stream through in batches, never held all at once: a first pass
 * checks every row with the API's own validation, and only a file without problems is compared with
 * what is stored and written; the writes go through the same services as the API, a batch per unit
 * of work, so every rule the API applies holds for an import too, and the same events are recorded.
 * A row equal to what is stored writes nothing.
 *
 * The nightly sync (`deactivateMissing`) also deactivates the users missing from the file, and
 * refuses the whole file when it would change more users than `maxChanges` allows: a truncated
 * export must not deactivate half the company. The file is then compared whole before the first write.
 */

/** The rows of a batch: the first one's, and the fewest and most any may hold whatever they take. */
const FIRST_BATCH_ROWS = 500;
const MIN_BATCH_ROWS = 50;
const MAX_BATCH_ROWS = 10_000;
/** The fewest rows of a batch while others write beside the import (write-share.ts). */
const MIN_SHARED_BATCH_ROWS = 10;

/** How many passwords an import hashes at once unless told otherwise (IMPORT_PARALLELISM): one a core. */
const DEFAULT_IMPORT_PARALLELISM = availableParallelism();

/**
 * The rows of the next batch, sized by time: the last batch's rows scaled to take `targetMs`, growing
 * at most twofold a step (a batch that grew on a quiet moment must not stall a busy one for long). A batch holds its transaction (and on SQLite the database's write lock)
 * while it writes: a short one lets API writes in between, a long one costs fewer statements a row.
 * Always a multiple of MIN_BATCH_ROWS (of MIN_SHARED_BATCH_ROWS under it, while shared): a batch's multi-row statements take 500 rows each and the
 * rest (src/db/batches.ts), and each count of rows is a statement of its own text, prepared and
 * cached by SQL text. Batches of any count made new texts to the end of the import (2,384 texts,
 * 18,895 statements prepared for a million people, the cache of 500 evicting and preparing again);
 * multiples of 50 leave ten counts of the rest a table.
 */
export function batchSizer(defaultTargetMs: number) {
  let rows = Math.min(FIRST_BATCH_ROWS, MAX_BATCH_ROWS);
  return {
    get rows() {
      return rows;
    },
    /** The last batch held `batchRows` and took `ms`; the next is sized to take `targetMs`. */
    took(batchRows: number, ms: number, targetMs = defaultTargetMs, shared = false) {
      // Shared batches (write-share.ts) may be shorter: multiples of MIN_SHARED_BATCH_ROWS under MIN_BATCH_ROWS, four more statement texts a table.
      const least = shared ? MIN_SHARED_BATCH_ROWS : MIN_BATCH_ROWS;
      const fitting = (batchRows * targetMs) / Math.max(ms, 1);
      const bounded = Math.min(MAX_BATCH_ROWS, Math.max(least, Math.min(fitting, batchRows * 2)));
      const step = bounded < MIN_BATCH_ROWS ? MIN_SHARED_BATCH_ROWS : MIN_BATCH_ROWS;
      rows = Math.max(least, Math.round(bounded / step) * step);
    },
  };
}

/** Rows per batch of the passes that only read (the check, the comparison): as the first write batch's. */
const ROWS_PER_BATCH = FIRST_BATCH_ROWS;

/** The longest the import keeps the event loop between two turns, so that a server importing keeps answering. */
const MAX_TURN_MS = 10;

/**
 * How many users an import may update and deactivate: a number of users, a percentage of the
 * organization's users, or both (then the larger: `10%,5` is a tenth of the users, and never fewer than 5).
 */
export interface ChangeLimit {
  users?: number;
  percent?: number;
}

/** The nightly sync's limit unless told otherwise: a small organization may lose a few people in a night. */
const DEFAULT_MAX_CHANGES: ChangeLimit = { percent: 10, users: 5 };

/** `250`, `10%`, or both, as `10%,5`; undefined for anything else. */
export function changeLimitOf(text: string): ChangeLimit | undefined {
  const limit: ChangeLimit = {};
  for (const part of text.split(',')) {
    const match = /^(\d+(?:\.\d+)?)(%?)$/.exec(part.trim());
    if (!match) return undefined;
    const amount = Number(match[1]);
    if (match[2]) {
      if (amount > 100 || limit.percent !== undefined) return undefined;
      limit.percent = amount;
    } else {
      if (!Number.isInteger(amount) || limit.users !== undefined) return undefined;
      limit.users = amount;
    }
  }
  return limit;
}

const limitText = (limit: ChangeLimit) => [limit.percent === undefined ? [] : [`${limit.percent}%`], limit.users ?? []].flat().join(',');

export interface ImportOptions extends Headings, RowsSource, ImportSettings {
  format: Format;
  /** How numbers and dates are written (`de`, `en-GB`); else told by the delimiter (a semicolon: a decimal comma, day first). */
  locale?: string;
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
  progress?: Progress;
}

/** A row a dry run would create or update a user from, or a user it would deactivate. */
type PlannedChange = NonNullable<ImportSummary['changes']>[number];

/** A dry run lists this many changes at most (a first import of a million people would list each); its counts tell the whole. */
const MAX_LISTED_CHANGES = 10_000;

/** The limit of changes the import holds the file to, if any. */
const changeLimitFor = (options: Pick<ImportOptions, 'maxChanges' | 'deactivateMissing'>): ChangeLimit | undefined =>
  options.maxChanges ?? (options.deactivateMissing ? DEFAULT_MAX_CHANGES : undefined);

/** The stages an import with `options` goes through once the file is read, in order (what its progress counts). */
export function stagesOf(options: Pick<ImportOptions, 'maxChanges' | 'deactivateMissing' | 'dryRun'>): Stage[] {
  if (options.dryRun) return ['checked', 'compared'];
  return changeLimitFor(options) ? ['checked', 'compared', 'imported'] : ['checked', 'imported'];
}

/**
 * The summary of what was imported (or would be, in a dry run), or the file's problems: then nothing
 * was written. A file refused for changing too many users has its summary too.
 */
export type ImportOutcome = { summary: ImportSummary } | { problems: Problem[]; summary?: ImportSummary };

/** The active users missing from the file that the sync deactivates: all of them, or those an import manages. */
async function missingUsers(
  db: Kysely<Database>,
  orgId: string,
  inFile: ReadonlySet<string>,
  managed: ReadonlyMap<string, unknown> | undefined,
): Promise<{ id: string; email: string }[]> {
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

/** Gives the event loop a turn when the import has kept it MAX_TURN_MS. */
function turns() {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < MAX_TURN_MS) return;
    await turn();
    since = performance.now();
  };
}

/** The rows of each pass, in batches of `size()` rows (asked for each batch). */
async function* batchesOf(
  reader: FileReader,
  toRow: (row: Parameters<RowChecker['rowOf']>[0]) => ImportRow,
  size: () => number = () => ROWS_PER_BATCH,
): AsyncGenerator<ImportRow[]> {
  let batch: ImportRow[] = [];
  const yieldTurn = turns();
  for await (const rows of reader.pass()) {
    for (const row of rows) {
      batch.push(toRow(row));
      if (batch.length >= size()) {
        yield batch;
        batch = [];
      }
      await yieldTurn();
    }
  }
  if (batch.length > 0) yield batch;
}

/** A file opened for an import (read whole once, within the budgets), to import, or to close unimported. */
export interface OpenedImport {
  /** Imports the file, or with `dryRun` only checks it and tells what it would change; closes it. */
  import(caller: Caller): Promise<ImportOutcome>;
  close(): Promise<void>;
}

/** Opens the file for an import; throws FileTooLarge for a file beyond the budgets of file-limits.ts. */
export async function openImport(db: Kysely<Database>, source: FileSource, options: ImportOptions): Promise<OpenedImport> {
  const progress = options.progress ?? noProgress;
  progress.stage('read');
  let read = 0;
  const { reader, file } = await FileReader.open(source, options.format, options, (rows) => {
    progress.advance(rows - read);
    read = rows;
  });
  const close = () => reader.close();
  return {
    close,
    async import(caller) {
      try {
        const problems = [...file.problems];
        if (problems.length > 0) return { problems };
        const reading = options.locale ? readingOf(options.locale) : readingOfDelimiter(file.delimiter);
        const checker = await rowChecker(db, caller.orgId, file, { ...options, reading }, problems);
        if (!checker) return { problems };

        // First pass: every row checked before anything is compared or written.
        progress.stage('checked', file.rows);
        const inFile = new Set<string>();
        for await (const batch of batchesOf(reader, (row) => checker.check(row))) {
          for (const row of batch) if (row.existingId) inFile.add(row.existingId);
          progress.advance(batch.length);
        }
        if (checker.suspects) await checker.confirm(batchesOf(reader, (row) => checker.rowOf(row)));
        if (problems.length > 0) return { problems };
        return await compareAndWrite(db, caller, reader, checker, inFile, { ...options, progress, rows: file.rows });
      } finally {
        progress.stop();
        await close();
      }
    },
  };
}

/** Imports the file, or with `dryRun` only checks it and tells what it would change. Throws FileTooLarge for a file beyond the budgets. */
export async function importUsers(db: Kysely<Database>, caller: Caller, source: FileSource, options: ImportOptions): Promise<ImportOutcome> {
  return (await openImport(db, source, options)).import(caller);
}

async function compareAndWrite(
  db: Kysely<Database>,
  caller: Caller,
  reader: FileReader,
  checker: RowChecker,
  inFile: ReadonlySet<string>,
  options: ImportOptions & { progress: Progress; rows: number },
): Promise<ImportOutcome> {
  const { progress } = options;
  const parallelism = options.parallelism ?? DEFAULT_IMPORT_PARALLELISM;
  const managed = await importedUsersRepository(db).all(caller.orgId);
  // The sync deactivated these for being missing; back in the file, they are active again unless it says otherwise.
  const toRow = (fileRow: Parameters<RowChecker['rowOf']>[0]) => {
    const row = checker.rowOf(fileRow);
    if (row.existingId && managed.get(row.existingId)?.deactivated && row.user.active === undefined) row.user.active = true;
    return row;
  };
  const missing = options.deactivateMissing ? await missingUsers(db, caller.orgId, inFile, options.onlyImported ? managed : undefined) : [];
  const newSummary = (): ImportSummary => ({
    rows: options.rows,
    created: 0,
    updated: 0,
    unchanged: 0,
    deactivated: missing.length,
    userfieldValues: 0,
    dryRun: options.dryRun,
  });
  const count = (summary: ImportSummary, writes: readonly RowWrite[]) => {
    for (const write of writes) {
      if (write.unchanged) summary.unchanged++;
      else if (write.row.existingId) summary.updated++;
      else summary.created++;
      summary.userfieldValues += Object.keys(write.values).length;
    }
  };

  const limit = changeLimitFor(options);
  if (options.dryRun || limit) {
    // Every row compared before the first write: the limit needs the count, a dry run the list.
    const summary = newSummary();
    const changes: PlannedChange[] = [];
    progress.stage('compared', options.rows);
    for await (const batch of batchesOf(reader, toRow)) {
      const writes = await plannedWrites(db, caller.orgId, batch, { dryRun: true, parallelism });
      count(summary, writes);
      for (const write of writes) {
        if (write.unchanged || changes.length === MAX_LISTED_CHANGES) continue;
        changes.push({ row: write.row.number, email: write.row.user.email, change: write.row.existingId ? 'updated' : 'created' });
      }
      progress.advance(batch.length);
    }
    if (options.dryRun) {
      const deactivated = missing.slice(0, MAX_LISTED_CHANGES - changes.length);
      summary.changes = [...changes, ...deactivated.map((user): PlannedChange => ({ email: user.email, change: 'deactivated' }))];
    }
    const refusal = limit && (await overLimit(db, caller.orgId, summary, limit, options.maxChanges === undefined));
    if (refusal) return { problems: [refusal], summary };
    if (options.dryRun) return { summary };
  }

  const summary = newSummary();
  progress.stage('imported', options.rows + missing.length);
  // Users the sync holds deactivated are written again when back in the file, even unchanged (reactivated
  // through the API meanwhile), so that their record says they are not deactivated any more.
  const alreadyManaged = new Set([...managed].filter(([, user]) => !user.deactivated).map(([id]) => id));
  let rowsBefore = 0;
  let creatingBatches = 0;
  const postgres = isPostgres(db);
  const sizer = batchSizer(options.batchMs ?? DEFAULT_BATCH_MS);
  const sharedBatchMs = Math.min(options.sharedBatchMs ?? DEFAULT_SHARED_BATCH_MS, options.batchMs ?? DEFAULT_BATCH_MS);
  const share = writeShare(db);
  await share.othersWrote();
  let shared = false;
  for await (const batch of batchesOf(reader, toRow, () => sizer.rows)) {
    const started = performance.now();
    const writes = await plannedWrites(db, caller.orgId, batch, { dryRun: false, parallelism });
    count(summary, writes);
    if (writes.some((write) => !write.unchanged || !alreadyManaged.has(write.row.existingId!)))
      await writeBatch(db, caller, writes, rowsBefore, alreadyManaged, options.passwordPolicy);
    // Tables that grow many times over keep the plans made when they were small (PostgreSQL's foreign
    // key checks scanned every user of the organization, once per new value, when the first import
    // started on empty tables): the statistics are refreshed each time the new users have doubled.
    // SQLite checks keys by their index whatever its statistics, and analyzes on the thread serving requests: once, at the end.
    if (postgres && writes.some((write) => !write.row.existingId) && isPowerOfTwo(++creatingBatches))
      await analyze(db, ['users', 'userfield_values']);
    rowsBefore += batch.length;
    progress.advance(batch.length);
    const took = performance.now() - started;
    // Others write beside the import (the API): shorter batches, and their writes let in after each one.
    // They cannot commit while a batch holds the lock: one let in after the last batch keeps the share.
    const othersWrote = await share.othersWrote();
    shared = (othersWrote || shared) && ((await share.handOff()) || othersWrote);
    sizer.took(batch.length, took, shared ? sharedBatchMs : undefined, shared);
  }
  for (let start = 0; start < missing.length; start += ROWS_PER_BATCH) {
    const batch = missing.slice(start, start + ROWS_PER_BATCH);
    await deactivateUsers(
      db,
      caller,
      batch.map((user) => user.id),
      options.passwordPolicy,
    );
    progress.advance(batch.length);
  }
  // The planner's statistics, now that the tables may have grown many times over.
  if (summary.created + summary.updated > 0) await analyze(db, ['users', 'userfield_values']);
  return { summary };
}

/** The refusal of a file that would update and deactivate more users than `limit` allows, else undefined. */
async function overLimit(
  db: Kysely<Database>,
  orgId: string,
  summary: ImportSummary,
  limit: ChangeLimit,
  byDefault: boolean,
): Promise<Problem | undefined> {
  const users = await userCount(db, orgId);
  const allowed = Math.max(limit.users ?? 0, ((limit.percent ?? 0) * users) / 100);
  const changes = summary.updated + summary.deactivated;
  if (changes <= allowed) return undefined;
  const named = byDefault ? `the default --max-changes ${limitText(limit)}` : `--max-changes ${limitText(limit)}`;
  return {
    message:
      `the file would update ${summary.updated} and deactivate ${summary.deactivated} of the organization's ${users} users, ` +
      `more than ${named} allows; check the file (a truncated export?), or raise --max-changes`,
  };
}

const isPowerOfTwo = (n: number) => (n & (n - 1)) === 0;
