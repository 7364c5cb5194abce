import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

/** Work that a unit of work runs last, just before its transaction commits (the outbox's event rows). */
export type BeforeCommit = (trx: Transaction<Database>) => Promise<void>;

const beforeCommits = new WeakMap<Kysely<Database>, BeforeCommit[]>();

/**
 * Runs `work` as one unit of work: a transaction whose `beforeCommit` steps run after `work` and
 * before the commit. Inside another unit (a service called by another in its transaction) it joins
 * that unit: the work commits, or rolls back, with it.
 */
export function inTransaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) {
    if (!beforeCommits.has(db)) throw new Error('A write inside a transaction must run in a unit of work (inTransaction)');
    return work(db as Transaction<Database>);
  }
  return db.transaction().execute(async (trx) => {
    const steps: BeforeCommit[] = [];
    beforeCommits.set(trx, steps);
    const result = await work(trx);
    // A step may add another (an event recorded by a step); each runs once.
    for (let index = 0; index < steps.length; index++) await steps[index]!(trx);
    return result;
  });
}

/** Adds a step to the unit of work `trx` belongs to; refused outside one, so that no change can skip its steps. */
export function beforeCommit(trx: Kysely<Database>, step: BeforeCommit): void {
  const steps = beforeCommits.get(trx);
  if (!steps) throw new Error('This change must be made in a unit of work (inTransaction)');
  steps.push(step);
}
