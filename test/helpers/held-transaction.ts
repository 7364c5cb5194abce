import { after, before } from 'node:test';
import type { Kysely } from 'kysely';
import type { Caller } from '../../src/auth/caller.js';
import { openDatabase } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { beforeCommit, inTransaction, type UnitOfWork } from '../../src/db/unit-of-work.js';
import { TEST_ACTOR } from './actors.js';
import type { Harness } from './harness.js';

export interface HeldTransaction<T> {
  /** Resolves once the work is done and its events are written, the transaction still open. */
  written: Promise<T>;
  /** Lets it commit; resolves once it did. */
  commit(): Promise<T>;
}

/**
 * Runs `work` as a unit of work on `db` and holds it open, its changes and events written but not
 * committed, until `commit()`: a long transaction (a batch of an import, a large group) caught in
 * the middle.
 */
export function holdOpen<T>(db: Kysely<Database>, work: (trx: UnitOfWork) => Promise<T>): HeldTransaction<T> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let written!: (result: T) => void;
  const whenWritten = new Promise<T>((resolve) => (written = resolve));
  const done = inTransaction(db, TEST_ACTOR, async (trx) => {
    const result = await work(trx);
    // A step added last runs after the events' rows were inserted.
    beforeCommit(trx, async () => {
      written(result);
      await gate;
    });
    return result;
  });
  return {
    written: Promise.race([whenWritten, done]),
    commit() {
      release();
      return done;
    },
  };
}

/**
 * A connection that writes beside the app's, as another process would: on PostgreSQL the pool
 * (each transaction has a connection of its own), on SQLite a second connection to the file, whose
 * transaction holds the write lock while the app's connection still reads. (The app's connection
 * must not write meanwhile: SQLite would make it wait, blocking this process, for the lock.)
 */
export function besideTheApp(h: Harness): { db: Kysely<Database>; close(): Promise<void> } {
  if (h.engine === 'postgres') return { db: h.database.db, close: async () => undefined };
  const handle = openDatabase(h.database.url);
  return { db: handle.db, close: () => handle.close() };
}

/**
 * For a suite: `besideTheApp` open from before its tests to after them, and a caller of the
 * harness's organization that may write, for services called directly on that connection.
 */
export function writerBesideTheApp(h: Harness): { readonly db: Kysely<Database>; readonly caller: Caller } {
  let beside: ReturnType<typeof besideTheApp>;
  before(() => {
    beside = besideTheApp(h);
  });
  after(() => beside.close());
  return {
    get db() {
      return beside.db;
    },
    get caller(): Caller {
      return { orgId: h.org.id, tokenId: 'test', scopes: ['write'], actor: TEST_ACTOR };
    },
  };
}
