import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';

/**
 * The rows of one run of a statement on the driver itself; undefined when it cannot run so now (a
 * SQLite write batch is open, and reads wait for its commit), and then goes through Kysely.
 */
export type DirectStatement = (parameters: readonly unknown[]) => object[] | Promise<object[]> | undefined;

/** Runs statements that read rows on the driver itself, without Kysely's executor. */
export interface DirectRunner {
  /** `sql` ready to run directly; undefined for a statement that is not a plain read (it goes through Kysely). */
  prepare(sql: string): DirectStatement | undefined;
}

/** Told of every statement run directly, as Kysely's log is told of the others. */
export type StatementObserver = (sql: string, durationMs: number, failed: boolean) => void;

/**
 * The runners of the handles `openDatabase` made, by their Kysely instance. A transaction, or an
 * instance derived from a handle's (`withPlugin`, `withSchema`), is another object and has none: its
 * statements go through Kysely, on the transaction's connection and through its plugins.
 */
const runners = new WeakMap<Kysely<any>, DirectRunner>();

/** The handles whose lookups by id are gathered into one statement per turn (coalesced.ts). */
const coalescing = new WeakSet<Kysely<any>>();

/**
 * From now on, the statements `compiledOnce` runs on `db` itself (not a transaction of it) may go
 * through `runner`; with `coalesce`, lookups by id made on it in one turn share a statement.
 */
export function runDirectly(db: Kysely<any>, runner: DirectRunner, options: { observe?: StatementObserver; coalesce?: boolean } = {}): void {
  runners.set(db, options.observe ? observed(runner, options.observe) : runner);
  if (options.coalesce) coalescing.add(db);
}

/** Whether lookups by id made on `db` itself are gathered (coalesced.ts). */
export function coalescesReads(db: Kysely<any>): boolean {
  return coalescing.has(db);
}

/** The direct runner of `db`, when it is a handle's own instance. */
export function directRunnerOf(db: Kysely<any>): DirectRunner | undefined {
  return runners.get(db);
}

function observed(runner: DirectRunner, observe: StatementObserver): DirectRunner {
  return {
    prepare(sql) {
      const statement = runner.prepare(sql);
      if (!statement) return undefined;
      return (parameters) => {
        const started = performance.now();
        const done = (failed: boolean) => observe(sql, performance.now() - started, failed);
        let rows: ReturnType<DirectStatement>;
        try {
          rows = statement(parameters);
        } catch (error) {
          done(true);
          throw error;
        }
        if (rows === undefined) return undefined;
        if (!(rows instanceof Promise)) {
          done(false);
          return rows;
        }
        return observedWhenSettled(observe, sql, started, rows);
      };
    },
  };
}

/** `sent`, with `observe` told of `sql` (started at `started`, performance.now()) once it settles. */
export function observedWhenSettled<T>(observe: StatementObserver, sql: string, started: number, sent: Promise<T>): Promise<T> {
  return sent.then(
    (result) => {
      observe(sql, performance.now() - started, false);
      return result;
    },
    (error: unknown) => {
      observe(sql, performance.now() - started, true);
      throw error;
    },
  );
}
