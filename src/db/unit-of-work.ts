import { sql, type Kysely, type Transaction } from 'kysely';
import type { Actor } from '../lib/actors.js';
import type { ChangeTime } from './change-time.js';
import { now } from '../lib/time.js';
import { transactionRunnerOf } from './direct-transactions.js';
import type { Database } from './schema.js';

declare const unitOfWorkBrand: unique symbol;
/**
 * The transaction `inTransaction` hands to its work, and only it: who acts in it (`actorOf`) and its
 * timestamp (`changeTime`) come with it. What records a change (the outbox's `recordEvent`) takes this
 * type, so that a change made on a plain handle, outside a unit of work, does not compile.
 */
export type UnitOfWork = Transaction<Database> & { readonly [unitOfWorkBrand]: true };

export type { ChangeTime };

/** Work that a unit of work runs last, just before its transaction commits (the outbox's event rows). */
type BeforeCommit = (trx: UnitOfWork) => Promise<void>;

/** A transaction's unit of work: its steps before the commit, and the savepoints of the units nested in it. */
interface Unit {
  steps: BeforeCommit[];
  /** For each open savepoint, innermost last: what to undo in memory when the database rolls back to it. */
  savepoints: (() => void)[][];
  /** Who acts: the outermost unit's actor first, each nested unit's while it runs. */
  actors: Actor[];
  /** Taken when first asked for (after the locks taken before, as a timestamp taken in place would be); the units nested in it share it. */
  at?: ChangeTime;
  /** While above 0, nested units take no savepoint (`withoutSavepoints`). */
  unsaved: number;
}

const units = new WeakMap<Kysely<Database>, Unit>();

/**
 * Runs `work` as one unit of work of `actor`: a transaction whose `beforeCommit` steps run after
 * `work` and before the commit. Inside another unit (a service called by another in its transaction)
 * it is a savepoint of that unit: if `work` fails, what it did is rolled back (and forgotten, events
 * included) while the outer unit goes on, free to run more statements; otherwise it commits, or
 * rolls back, with the outer unit.
 */
export function inTransaction<T>(db: Kysely<Database>, actor: Actor, work: (trx: UnitOfWork) => Promise<T>): Promise<T> {
  if (db.isTransaction) return nested(db as Transaction<Database>, actor, work);
  const unitOfWork = async (trx: Transaction<Database>) => {
    const unit: Unit = { steps: [], savepoints: [], actors: [actor], unsaved: 0 };
    units.set(trx, unit);
    const uow = trx as UnitOfWork;
    const result = await work(uow);
    // A step may add another (an event recorded by a step); each runs once.
    for (let index = 0; index < unit.steps.length; index++) await unit.steps[index]!(uow);
    return result;
  };
  // On PostgreSQL, the transaction is begun and committed on the pool's connection directly (direct-transactions.ts).
  const direct = transactionRunnerOf(db);
  return direct ? direct(unitOfWork) : db.transaction().execute(unitOfWork);
}

async function nested<T>(trx: Transaction<Database>, actor: Actor, work: (trx: UnitOfWork) => Promise<T>): Promise<T> {
  const unit = units.get(trx);
  if (!unit) throw new Error('A write inside a transaction must run in a unit of work (inTransaction)');
  if (unit.unsaved > 0) {
    unit.actors.push(actor);
    try {
      return await work(trx as UnitOfWork);
    } finally {
      unit.actors.pop();
    }
  }
  const name = sql.raw(`unit_${unit.savepoints.length + 1}`);
  const undo: (() => void)[] = [];
  await sql`savepoint ${name}`.execute(trx);
  unit.savepoints.push(undo);
  unit.actors.push(actor);
  try {
    const result = await work(trx as UnitOfWork);
    unit.savepoints.pop();
    await sql`release savepoint ${name}`.execute(trx);
    // Kept, until an enclosing savepoint is rolled back.
    unit.savepoints.at(-1)?.push(...undo);
    return result;
  } catch (error) {
    unit.savepoints.pop();
    await sql`rollback to savepoint ${name}`.execute(trx);
    await sql`release savepoint ${name}`.execute(trx);
    for (const step of undo.reverse()) step();
    throw error;
  } finally {
    unit.actors.pop();
  }
}

/**
 * Runs `work`, in which the units of work nested in `trx`'s take no savepoint: they are part of it
 * as if written in it, two round trips fewer each. Only for work whose failure fails the whole unit
 * (it is rethrown, nothing more runs in the transaction but its rollback): a nested unit that fails
 * leaves what it wrote, and its events, to that rollback.
 */
export async function withoutSavepoints<T>(trx: UnitOfWork, work: () => Promise<T>): Promise<T> {
  const unit = unitOf(trx);
  unit.unsaved++;
  try {
    return await work();
  } finally {
    unit.unsaved--;
  }
}

/** The unit of work `trx` belongs to; none exists outside `inTransaction`'s work. */
function unitOf(trx: UnitOfWork): Unit {
  const unit = units.get(trx);
  if (!unit) throw new Error('This change must be made in a unit of work (inTransaction)');
  return unit;
}

/** Who acts in the unit of work now: the innermost running unit's actor. */
export function actorOf(trx: UnitOfWork): Actor {
  return unitOf(trx).actors.at(-1)!;
}

/** The unit of work's timestamp, for every date its changes write. */
export function changeTime(trx: UnitOfWork): ChangeTime {
  const unit = unitOf(trx);
  return (unit.at ??= now() as ChangeTime);
}

/** Adds a step to the unit of work `trx` belongs to. */
export function beforeCommit(trx: UnitOfWork, step: BeforeCommit): void {
  unitOf(trx).steps.push(step);
}

/** Whether `trx` runs a nested unit of work now (a savepoint is open): what it writes is undone if the savepoint rolls back. */
export function inSavepoint(trx: UnitOfWork): boolean {
  return unitOf(trx).savepoints.length > 0;
}

/**
 * Registers what to undo in memory (an event recorded, not yet written) should the savepoint of the
 * innermost nested unit of work roll back. Outside a nested unit there is nothing to do: the
 * transaction's rollback discards the whole unit.
 */
export function onRollback(trx: UnitOfWork, undo: () => void): void {
  unitOf(trx).savepoints.at(-1)?.push(undo);
}
