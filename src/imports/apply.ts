import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import type { Database } from '../db/schema.js';
import { changeTime, inTransaction, withoutSavepoints } from '../db/unit-of-work.js';
import type { PasswordPolicy } from '../lib/password-policy.js';
import { hashPassword, verifyPassword } from '../lib/passwords.js';
import { userfieldValuesRepository } from '../resources/userfield-values/userfield-values.repository.js';
import { userfieldValuesService } from '../resources/userfield-values/userfield-values.service.js';
import { VISIBLE_COLUMNS, visibleUser, type VisibleUserRow } from '../resources/users/users.repository.js';
import { changedProperties, usersService, type UserChanges, type UserCreation } from '../resources/users/users.service.js';
import { NotFound, RefusedItem } from '../lib/domain-errors.js';
import { fieldErrorsOf, type ImportRow } from './check.js';
import { importedUsersRepository } from './imported-users.repository.js';

/** A row the services refused although it passed the check: the data changed meanwhile. */
export class ImportInterrupted extends Error {}

/** `work` over `items`, at most `limit` at once, results in order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A user as stored, what a row is compared with. */
interface StoredUser {
  row: VisibleUserRow;
  passwordHash: string | null;
  /** Userfield id → value, as stored: JSON text. */
  values: Map<string, string>;
}

/** The listed users as stored, with their userfield values: two statements for a batch of rows. */
async function storedUsers(db: Kysely<Database>, orgId: string, ids: readonly string[]): Promise<Map<string, StoredUser>> {
  const users = new Map<string, StoredUser>();
  if (ids.length === 0) return users;
  const rows = await db
    .selectFrom('users')
    .select([...VISIBLE_COLUMNS, 'password_hash'])
    .where('org_id', '=', orgId)
    .where('id', 'in', ids)
    .execute();
  for (const { password_hash, ...row } of rows) users.set(row.id, { row: visibleUser(row), passwordHash: password_hash, values: new Map() });
  for (const value of await userfieldValuesRepository(db).ofUsers(orgId, ids)) {
    users.get(value.user_id)?.values.set(value.userfield_id, value.value);
  }
  return users;
}

/**
 * The row's values that differ from the stored ones (both canonical: as `checkValue` gives them), compared
 * as JSON text; a stored text written otherwise (other spacing) is read before it is called different.
 */
function changedValues(stored: ReadonlyMap<string, string>, values: Record<string, unknown>): Record<string, unknown> {
  const differs = (fieldId: string, value: unknown) => {
    const text = JSON.stringify(value);
    const storedText = stored.get(fieldId);
    return text !== storedText && (storedText === undefined || text !== JSON.stringify(JSON.parse(storedText)));
  };
  return Object.fromEntries(Object.entries(values).filter(([fieldId, value]) => differs(fieldId, value)));
}

/** What a row writes: all of it for a new user; for an existing one, what differs from the stored user, and nothing when nothing does. */
export interface RowWrite {
  row: ImportRow;
  /** A new user's properties, or an existing user's changed ones; a changed password as its hash (none in a dry run). */
  user: UserChanges;
  values: Record<string, unknown>;
  unchanged: boolean;
}

/**
 * Compares a batch of rows with their users as stored (read in bulk) and hashes the new passwords,
 * several at once on other threads, so no transaction waits for them. A password is new unless it
 * is the one stored; a dry run only tells which are.
 */
export async function plannedWrites(
  db: Kysely<Database>,
  orgId: string,
  batch: readonly ImportRow[],
  { dryRun, parallelism }: { dryRun: boolean; parallelism: number },
): Promise<RowWrite[]> {
  const stored = await storedUsers(
    db,
    orgId,
    batch.flatMap((row) => row.existingId ?? []),
  );
  return mapConcurrently(batch, parallelism, async (row) => {
    const { password, ...properties } = row.user;
    const current = row.existingId === undefined ? undefined : stored.get(row.existingId);
    // A user deleted since the check keeps every property, and its update is refused as such.
    const user = current ? changedProperties(current.row, properties) : { ...properties };
    const values = current ? changedValues(current.values, row.values) : row.values;
    const newPassword = password !== undefined && !(current?.passwordHash && (await verifyPassword(password, current.passwordHash)));
    if (newPassword && !dryRun) user.passwordHash = await hashPassword(password);
    const unchanged = current !== undefined && !newPassword && Object.keys(user).length + Object.keys(values).length === 0;
    return { row, user, values, unchanged };
  });
}

/**
 * Writes a batch's rows in one unit of work, and records their users as managed by imports (those
 * `managed` does not hold yet); a row the services refuse undoes the batch.
 */
export async function writeBatch(
  db: Kysely<Database>,
  caller: Caller,
  writes: readonly RowWrite[],
  rowsBefore: number,
  managed: ReadonlySet<string>,
  passwordPolicy: PasswordPolicy,
): Promise<void> {
  const refused = (rows: string, error: unknown) => {
    // Changed since the check (by the API meanwhile): this batch is undone, the earlier ones stay.
    const problems = Object.entries(fieldErrorsOf(error)).map(([property, message]) => `${property}: ${message}`);
    return new ImportInterrupted(`${rows}: ${problems.join('; ')}; the ${rowsBefore} rows before its batch were imported`);
  };
  /** The refusal of `error`, naming the row of `batch` it is about when it tells (a RefusedItem), else all of them. */
  const refusedIn = (batch: readonly RowWrite[], error: unknown) =>
    error instanceof RefusedItem
      ? refused(`row ${batch[error.index]!.row.number}`, error.refusal)
      : refused(`rows ${batch[0]!.row.number} to ${batch.at(-1)!.row.number}`, error);
  await inTransaction(db, caller.actor, async (trx) => {
    const users = usersService(trx, passwordPolicy);
    const values = userfieldValuesService(trx);
    const newlyManaged: string[] = [];
    // New users in a few multi-row statements: what makes a first import fast on PostgreSQL. Any
    // refusal undoes the batch, so the services' units take no savepoints within it.
    const creations = writes.filter((write) => !write.row.existingId);
    if (creations.length > 0) {
      try {
        await withoutSavepoints(trx, async () => {
          const ids = await users.createMany(
            caller,
            creations.map((write) => write.user as UserCreation),
          );
          await values.updateMany(
            caller,
            creations.map((write, index) => ({ userId: ids[index]!, values: write.values })),
            { created: true },
          );
          newlyManaged.push(...ids);
        });
      } catch (error) {
        throw refusedIn(creations, error);
      }
    }
    // Changed users likewise: read, compared and written together, each with its events.
    const updates = writes.filter((write) => write.row.existingId && !write.unchanged);
    try {
      await users.updateMany(
        caller,
        updates.map((write) => ({ id: write.row.existingId!, input: write.user })),
      );
      await values.updateMany(
        caller,
        updates.map((write) => ({ userId: write.row.existingId!, values: write.values })),
      );
    } catch (error) {
      throw refusedIn(updates, error);
    }
    for (const { row, unchanged } of writes) {
      if (row.existingId && (!unchanged || !managed.has(row.existingId))) newlyManaged.push(row.existingId);
    }
    await importedUsersRepository(trx).manage(caller.orgId, newlyManaged);
  });
}

/**
 * Deactivates the users (never deletes them) through the users service, together, each with its
 * user.updated event. A user deleted since the file was compared has nothing left to deactivate.
 */
export async function deactivateUsers(
  db: Kysely<Database>,
  caller: Caller,
  userIds: readonly string[],
  passwordPolicy: PasswordPolicy,
): Promise<void> {
  await inTransaction(db, caller.actor, async (trx) => {
    let ids = [...userIds];
    for (;;) {
      try {
        await usersService(trx, passwordPolicy).updateMany(
          caller,
          ids.map((id) => ({ id, input: { active: false } })),
        );
        break;
      } catch (error) {
        if (!(error instanceof RefusedItem && error.refusal instanceof NotFound)) throw error;
        ids = ids.filter((_, index) => index !== error.index);
      }
    }
    await importedUsersRepository(trx).markDeactivated(caller.orgId, ids, changeTime(trx));
  });
}
