import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { directRunnerOf, type DirectRunner, type DirectStatement } from './direct-statements.js';
import { transactionConnectionOf } from './direct-transactions.js';
import { isPostgres } from './locking.js';
import { prepareStatement } from './prepared-statements.js';
import type { Database } from './schema.js';

/** Where a stand-in of `compiledOnce` went: the index of the value that replaces it. */
type Positions = number[];

/**
 * A query built and compiled once per engine, then run with new parameters: building a Kysely query
 * and compiling it costs more than SQLite takes to run a one-row lookup (docs/performance.md), so
 * the lookups on every request's path skip both. `build` is handed one stand-in per parameter and
 * must bind each as a value (`where('id', '=', id)`), once; the stand-ins are found again among the
 * compiled parameters, and a query that binds anything else is refused when it is compiled. On
 * PostgreSQL the query is also a named (prepared) statement (prepared-statements.ts), unless `named`
 * is false.
 *
 * A read run on a database handle itself (not in a transaction) goes to the driver directly
 * (direct-statements.ts): a cached better-sqlite3 statement, or one query on a pooled pg connection,
 * without Kysely's executor, whose connection provider, plugins and result transforms cost a
 * dozen promises per statement. So does any statement run in a transaction that was begun on a
 * pg connection directly (direct-transactions.ts): it is sent to that connection. On a handle with
 * plugins (`withPlugin`) the query is built each time, for them to see.
 */
export function compiledOnce<R>(
  parameterCount: number,
  build: (db: Kysely<Database>, ...parameters: string[]) => Compilable<R>,
  options: { named?: boolean } = {},
): (db: Kysely<Database>, ...values: unknown[]) => Promise<R[]> {
  const compiled = new Map<boolean, { query: CompiledQuery<R>; positions: Positions }>();

  function compile(db: Kysely<Database>) {
    const standIns = Array.from({ length: parameterCount }, (_, index) => `\u0000compiled-once-parameter-${index}\u0000`);
    const query = build(db, ...standIns).compile();
    const positions = query.parameters.map((parameter) => standIns.indexOf(parameter as string));
    if (positions.length !== parameterCount || new Set(positions).size !== parameterCount || positions.includes(-1)) {
      throw new Error(`compiledOnce: the query must bind each of its ${parameterCount} parameters once, and nothing else: ${query.sql}`);
    }
    return { query, positions };
  }

  function compiledFor(db: Kysely<Database>) {
    const postgres = isPostgres(db);
    let entry = compiled.get(postgres);
    if (!entry) {
      compiled.set(postgres, (entry = compile(db)));
      // Run on almost every request: PostgreSQL parses and plans it once per connection.
      if (postgres && options.named !== false) prepareStatement(entry.query.sql);
    }
    return entry;
  }

  /** The statement as each handle's runner prepared it (null: not one it runs). */
  const direct = new WeakMap<DirectRunner, { statement: DirectStatement; positions: Positions } | null>();
  function directFor(db: Kysely<Database>, runner: DirectRunner) {
    let entry = direct.get(runner);
    if (entry === undefined) {
      const { query, positions } = compiledFor(db);
      let statement: DirectStatement | undefined;
      try {
        statement = runner.prepare(query.sql);
      } catch {
        // Not preparable now (a table missing): Kysely's path tells why, and the next call tries again.
        return null;
      }
      direct.set(runner, (entry = statement ? { statement, positions } : null));
    }
    return entry;
  }

  return (db, ...values) => {
    const connection = transactionConnectionOf(db);
    if (connection) {
      const { query, positions } = compiledFor(db);
      const parameters = positions.map((position) => values[position]);
      return connection.query(query.sql, parameters).then((result) => result.rows as R[]);
    }
    const runner = directRunnerOf(db);
    const fast = runner && directFor(db, runner);
    if (fast) {
      let rows: ReturnType<DirectStatement>;
      try {
        rows = fast.statement(fast.positions.map((position) => values[position]));
      } catch (error) {
        // A failure is a rejection, as through Kysely.
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      if (rows !== undefined) return (rows instanceof Promise ? rows : Promise.resolve(rows)) as Promise<R[]>;
    }
    // A handle with plugins gets the query built for it, so that they see it (and may change it), as they see any
    // other; the handles of the server have none.
    if (db.getExecutor().plugins.length > 0) return db.executeQuery<R>(build(db, ...(values as string[]))).then((result) => result.rows);
    const { query, positions } = compiledFor(db);
    return db.executeQuery<R>({ ...query, parameters: positions.map((position) => values[position]) }).then((result) => result.rows);
  };
}
