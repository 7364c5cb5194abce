import { sql, type Kysely, type Transaction } from 'kysely';
import { transactionRunnerOf } from './direct-transactions.js';
import type { Database } from './schema.js';

/** Work that a unit of work runs last, just before its transaction commits (the outbox's event rows). */
type BeforeCommit = (trx: Transaction<Database>) => Promise<void>;

/** A transaction's unit of work: its steps before the commit, and the savepoints of the units nested in it. */
interface Unit {
  steps: BeforeCommit[];
  /** For each open savepoint, innermost last: what to undo in memory when the database rolls back to it. */
  savepoints: (() => void)[][];
}

const units = new WeakMap<Kysely<Database>, Unit>();

/**
 * Runs `work` as one unit of work: a transaction whose `beforeCommit` steps run after `work` and
 * before the commit. Inside another unit (a service called by another in its transaction) it is a
 * savepoint of that unit: if `work` fails, what it did is rolled back (and forgotten, events
 * included) while the outer unit goes on, free to run more statements; otherwise it commits, or
 * rolls back, with the outer unit.
 */
export function inTransaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return nested(db as Transaction<Database>, work);
  const unitOfWork = async (trx: Transaction<Database>) => {
    const unit: Unit = { steps: [], savepoints: [] };
    units.set(trx, unit);
    const result = await work(trx);
    // A step may add another (an event recorded by a step); each runs once.
    for (let index = 0; index < unit.steps.length; index++) await unit.steps[index]!(trx);
    return result;
  };
  // On PostgreSQL, the transaction is begun and committed on the pool's connection directly (direct-transactions.ts).
  const direct = transactionRunnerOf(db);
  return direct ? direct(unitOfWork) : db.transaction().execute(unitOfWork);
}

async function nested<T>(trx: Transaction<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const unit = units.get(trx);
  if (!unit) throw new Error('A write inside a transaction must run in a unit of work (inTransaction)');
  const name = sql.raw(`unit_${unit.savepoints.length + 1}`);
  const undo: (() => void)[] = [];
  await sql`savepoint ${name}`.execute(trx);
  unit.savepoints.push(undo);
  try {
    const result = await work(trx);
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
  }
}

/** Adds a step to the unit of work `trx` belongs to; refused outside one, so that no change can skip its steps. */
export function beforeCommit(trx: Kysely<Database>, step: BeforeCommit): void {
  const unit = units.get(trx);
  if (!unit) throw new Error('This change must be made in a unit of work (inTransaction)');
  unit.steps.push(step);
}

/** Whether `trx` runs a nested unit of work now (a savepoint is open): what it writes is undone if the savepoint rolls back. */
export function inSavepoint(trx: Kysely<Database>): boolean {
  return (units.get(trx)?.savepoints.length ?? 0) > 0;
}

/**
 * Registers what to undo in memory (an event recorded, not yet written) should the savepoint of the
 * innermost nested unit of work roll back. Outside a nested unit there is nothing to do: the
 * transaction's rollback discards the whole unit.
 */
export function onRollback(trx: Kysely<Database>, undo: () => void): void {
  units.get(trx)?.savepoints.at(-1)?.push(undo);
}
