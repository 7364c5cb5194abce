import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { Kysely, sql, type ColumnType, type Generated } from 'kysely';
import { createSqliteDialect } from '../../src/db/sqlite-dialect.js';

interface Schema {
  items: {
    id: Generated<number>;
    name: string;
    active: ColumnType<number, boolean | undefined, boolean>;
  };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-dialect-test-'));
const opened: Kysely<Schema>[] = [];
let fileCount = 0;

after(async () => {
  for (const db of opened) await db.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh database file with an `items` table; `prepared` records every SQL text handed to prepare(). */
function setup(options?: { statementCacheSize?: number }): { db: Kysely<Schema>; sqlite: Database.Database; prepared: string[] } {
  const sqlite = new Database(path.join(dir, `db-${++fileCount}.sqlite`));
  sqlite.pragma('journal_mode = WAL');
  sqlite.exec('create table items (id integer primary key, name text not null unique, active integer not null default 1)');
  const prepared: string[] = [];
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = (sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  };
  const db = new Kysely<Schema>({ dialect: createSqliteDialect(sqlite, options) });
  opened.push(db);
  return { db, sqlite, prepared };
}

async function names(db: Kysely<Schema>): Promise<string[]> {
  const rows = await db.selectFrom('items').select('name').orderBy('id').execute();
  return rows.map((row) => row.name);
}

/** What another connection to the same file sees: only what has been committed. */
function committedNames(sqlite: Database.Database): string[] {
  const other = new Database(sqlite.name, { readonly: true });
  try {
    return (other.prepare('select name from items order by id').all() as { name: string }[]).map((row) => row.name);
  } finally {
    other.close();
  }
}

/** A promise plus the function that resolves it, to signal from inside a transaction. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire = (): void => {};
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

describe('createSqliteDialect: queries', () => {
  it('inserts, selects, updates and deletes with affected-row counts and insert ids', async () => {
    const { db } = setup();

    const first = await db.insertInto('items').values({ name: 'a' }).executeTakeFirstOrThrow();
    assert.equal(first.insertId, 1n);
    assert.equal(first.numInsertedOrUpdatedRows, 1n);
    const second = await db.insertInto('items').values({ name: 'b', active: false }).executeTakeFirstOrThrow();
    assert.equal(second.insertId, 2n);

    assert.deepEqual(await db.selectFrom('items').selectAll().orderBy('id').execute(), [
      { id: 1, name: 'a', active: 1 },
      { id: 2, name: 'b', active: 0 },
    ]);

    const updated = await db.updateTable('items').set({ active: true }).executeTakeFirstOrThrow();
    assert.equal(updated.numUpdatedRows, 2n);

    const deleted = await db.deleteFrom('items').where('name', '=', 'a').executeTakeFirstOrThrow();
    assert.equal(deleted.numDeletedRows, 1n);
    assert.deepEqual(await names(db), ['b']);
  });

  it('returns rows from writes with RETURNING', async () => {
    const { db } = setup();
    const row = await db.insertInto('items').values({ name: 'a' }).returning(['id', 'name']).executeTakeFirstOrThrow();
    assert.deepEqual(row, { id: 1, name: 'a' });
  });

  it('names row properties as better-sqlite3 does: any column name, the last of two namesakes winning', async () => {
    const { db } = setup();
    await db.insertInto('items').values({ name: 'a' }).execute();
    const { rows } = await sql<Record<string, unknown>>`select name as "we""ird name", 1 as twice, 2 as twice from items`.execute(db);
    assert.deepEqual(Object.entries(rows[0]!), [
      ['we"ird name', 'a'],
      ['twice', 2],
    ]);
  });

  it('binds booleans as 0 and 1', async () => {
    const { db } = setup();
    await db
      .insertInto('items')
      .values([
        { name: 'on', active: true },
        { name: 'off', active: false },
      ])
      .execute();
    const rows = await db
      .selectFrom('items')
      .select('name')
      .where(sql<boolean>`active = ${false}`)
      .execute();
    assert.deepEqual(rows, [{ name: 'off' }]);
  });

  it('streams rows in chunks', async () => {
    const { db } = setup();
    await db
      .insertInto('items')
      .values(['a', 'b', 'c'].map((name) => ({ name })))
      .execute();
    const streamed: string[] = [];
    for await (const row of db.selectFrom('items').select('name').orderBy('id').stream(2)) streamed.push(row.name);
    assert.deepEqual(streamed, ['a', 'b', 'c']);
  });

  it('holds outside writes back until a stream ends', async () => {
    const { db } = setup();
    await db
      .insertInto('items')
      .values(['a', 'b'].map((name) => ({ name })))
      .execute();
    let write: Promise<unknown> | undefined;
    let writeDone = false;
    for await (const row of db.selectFrom('items').select('name').orderBy('id').stream()) {
      if (row.name === 'a')
        write = db
          .insertInto('items')
          .values({ name: 'c' })
          .execute()
          .then(() => (writeDone = true));
      await sleep(10);
      assert.equal(writeDone, false);
    }
    await write;
    assert.deepEqual(await names(db), ['a', 'b', 'c']);
  });
});

describe('createSqliteDialect: statement cache', () => {
  it('prepares the same SQL once however often it runs', async () => {
    const { db, prepared } = setup();
    for (let id = 1; id <= 50; id++) {
      await db.selectFrom('items').selectAll().where('id', '=', id).execute();
    }
    const selects = prepared.filter((sql) => sql.startsWith('select'));
    assert.equal(selects.length, 1);
  });

  it('evicts the least recently used statement beyond statementCacheSize', async () => {
    const { db, prepared } = setup({ statementCacheSize: 1 });
    const byId = () => db.selectFrom('items').selectAll().where('id', '=', 1).execute();
    const byName = () => db.selectFrom('items').selectAll().where('name', '=', 'a').execute();
    await byId();
    await byId();
    assert.equal(prepared.length, 1);
    await byName();
    await byId();
    assert.equal(prepared.length, 3);
  });

  it('rejects an invalid statementCacheSize', () => {
    const sqlite = new Database(':memory:');
    assert.throws(() => createSqliteDialect(sqlite, { statementCacheSize: -1 }), RangeError);
    sqlite.close();
  });
});

describe('createSqliteDialect: transactions', () => {
  it('waits for the write lock of another connection without holding the event loop', async () => {
    const { db, sqlite } = setup();
    sqlite.pragma('busy_timeout = 5000');
    // Another connection (an import in a process of its own) holds the write lock, and gives it back on a timer:
    // a wait that slept on this thread (SQLite's busy handler) would never let the timer run, and fail after 5 s.
    const other = new Database(sqlite.name);
    try {
      other.exec('begin immediate');
      other.prepare('insert into items (name) values (?)').run('imported');
      const started = performance.now();
      setTimeout(() => other.exec('commit'), 200);
      const write = db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'mine' }).execute());
      await sleep(50);
      // The handle answers reads meanwhile, of what was committed, with its busy timeout: a read that must wait
      // (another connection's checkpoint) waits as SQLite's handler does, not failing at once.
      assert.deepEqual(await names(db), []);
      assert.equal(sqlite.pragma('busy_timeout', { simple: true }), 5000, 'the busy timeout while the write waits');
      await write;
      const waited = performance.now() - started;
      assert.ok(waited >= 150 && waited < 2000, `the write waited ${waited.toFixed(0)} ms for the lock`);
    } finally {
      if (other.inTransaction) other.exec('rollback');
      other.close();
    }
    assert.deepEqual(await names(db), ['imported', 'mine']);
    assert.equal(sqlite.pragma('busy_timeout', { simple: true }), 5000, "the busy timeout is the handle's again");
  });

  it('holds an outside write back until the open transaction commits', async () => {
    const { db } = setup();
    const inserted = signal();
    const events: string[] = [];
    const transaction = db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ name: 'inside' }).execute();
      inserted.fire();
      await sleep(50);
      events.push('transaction body done');
    });
    await inserted.promise;
    await db.insertInto('items').values({ name: 'outside' }).execute();
    events.push('outside write done');
    await transaction;
    assert.deepEqual(events, ['transaction body done', 'outside write done']);
    assert.deepEqual(await names(db), ['inside', 'outside']);
  });

  it('does not roll back an outside write that was waiting on the transaction', async () => {
    const { db } = setup();
    const inserted = signal();
    const transaction = db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ name: 'inside' }).execute();
      inserted.fire();
      await sleep(50);
      throw new Error('roll back');
    });
    await inserted.promise;
    const outside = db.insertInto('items').values({ name: 'outside' }).execute();
    await assert.rejects(transaction, /roll back/);
    await outside;
    assert.deepEqual(await names(db), ['outside']);
  });

  it('runs concurrent transactions one after the other', async () => {
    const { db } = setup();
    const events: string[] = [];
    const work = (label: string) =>
      db.transaction().execute(async (trx) => {
        events.push(`${label} begin`);
        await trx
          .insertInto('items')
          .values({ name: `${label}1` })
          .execute();
        await sleep(20);
        await trx
          .insertInto('items')
          .values({ name: `${label}2` })
          .execute();
        events.push(`${label} end`);
      });
    await Promise.all([work('a'), work('b'), work('c')]);
    assert.deepEqual(events, ['a begin', 'a end', 'b begin', 'b end', 'c begin', 'c end']);
    assert.deepEqual(await names(db), ['a1', 'a2', 'b1', 'b2', 'c1', 'c2']);
  });

  it('leaves no trace of a rolled back transaction', async () => {
    const { db, sqlite } = setup();
    await db
      .insertInto('items')
      .values(['a', 'b'].map((name) => ({ name })))
      .execute();
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ name: 'c' }).execute();
        await trx.updateTable('items').set({ name: 'renamed' }).where('name', '=', 'a').execute();
        await trx.deleteFrom('items').where('name', '=', 'b').execute();
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal(sqlite.inTransaction, false);
    assert.deepEqual(await names(db), ['a', 'b']);
  });

  it('keeps working after a statement fails inside a transaction', async () => {
    const { db, sqlite } = setup();
    await db.insertInto('items').values({ name: 'a' }).execute();
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ name: 'b' }).execute();
        await trx.insertInto('items').values({ name: 'a' }).execute();
      }),
      /UNIQUE constraint failed/,
    );
    assert.equal(sqlite.inTransaction, false);

    await db.insertInto('items').values({ name: 'c' }).execute();
    await db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'd' }).execute());
    assert.deepEqual(await names(db), ['a', 'c', 'd']);
  });

  it('keeps working after a statement fails outside a transaction', async () => {
    const { db } = setup();
    await db.insertInto('items').values({ name: 'a' }).execute();
    await assert.rejects(db.insertInto('items').values({ name: 'a' }).execute(), /UNIQUE constraint failed/);
    await db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'b' }).execute());
    assert.deepEqual(await names(db), ['a', 'b']);
  });

  it('rolls back to a savepoint', async () => {
    const { db } = setup();
    const trx = await db.startTransaction().execute();
    await trx.insertInto('items').values({ name: 'kept' }).execute();
    const afterKept = await trx.savepoint('after kept').execute();
    await afterKept.insertInto('items').values({ name: 'undone' }).execute();
    await afterKept.rollbackToSavepoint('after kept').execute();
    await afterKept.releaseSavepoint('after kept').execute();
    await trx.commit().execute();
    assert.deepEqual(await names(db), ['kept']);
  });
});

describe('createSqliteDialect: transactions that commit together', () => {
  it('commits the transactions of one turn together, each told only once all are durable', async () => {
    const { db, sqlite } = setup();
    const seenInsideSecond: string[][] = [];
    const first = db.transaction().execute((trx) => trx.insertInto('items').values({ name: 'first' }).execute());
    const second = db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ name: 'second' }).execute();
      seenInsideSecond.push(committedNames(sqlite));
    });
    await Promise.all([first, second]);
    // The first had finished its work while the second ran, yet nothing of it was committed then.
    assert.deepEqual(seenInsideSecond, [[]]);
    assert.deepEqual(committedNames(sqlite), ['first', 'second']);
    assert.equal(sqlite.inTransaction, false);
  });

  it('rolls back a failing transaction alone; the others of its turn commit', async () => {
    const { db, sqlite } = setup();
    const insert = (name: string, fail = false) =>
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ name }).execute();
        await trx
          .insertInto('items')
          .values({ name: `${name} too` })
          .execute();
        if (fail) throw new Error(`${name} fails`);
      });
    const outcomes = await Promise.allSettled([insert('a'), insert('b', true), insert('c'), insert('a')]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected'],
    );
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /b fails/);
    assert.match(String((outcomes[3] as PromiseRejectedResult).reason), /UNIQUE constraint failed/);
    assert.deepEqual(committedNames(sqlite), ['a', 'a too', 'c', 'c too']);
  });

  it('commits a write made outside any transaction with the transactions of its turn', async () => {
    const { db, sqlite } = setup();
    const seenInside: string[][] = [];
    const plain = db.insertInto('items').values({ name: 'plain' }).execute();
    const transaction = db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ name: 'transaction' }).execute();
      seenInside.push(committedNames(sqlite));
    });
    await Promise.all([plain, transaction]);
    assert.deepEqual(seenInside, [[]]);
    assert.deepEqual(committedNames(sqlite), ['plain', 'transaction']);
  });

  it('lets a read outside the transactions wait for their commit, so it never sees uncommitted work', async () => {
    const { db } = setup();
    const events: string[] = [];
    const transaction = db
      .transaction()
      .execute((trx) => trx.insertInto('items').values({ name: 'inside' }).execute())
      .then(() => events.push('committed'));
    const read = names(db).then((seen) => events.push(`read ${seen.join(',')}`));
    await Promise.all([transaction, read]);
    assert.deepEqual(events, ['committed', 'read inside']);
  });

  it('tells a transaction it committed only when its rows are there, when the disk fills up mid-turn', async () => {
    const { db, sqlite } = setup();
    const pages = sqlite.pragma('page_count', { simple: true }) as number;
    sqlite.pragma(`max_page_count = ${pages + 2}`);
    const write = (name: string, size: number) =>
      db.transaction().execute((trx) =>
        trx
          .insertInto('items')
          .values({ name: `${name}${'x'.repeat(size)}` })
          .execute(),
      );
    const outcomes = await Promise.allSettled([write('small', 1), write('large', 100_000), write('after', 1)]);
    assert.equal(outcomes[1].status, 'rejected');
    assert.match(String(outcomes[1].reason), /full/);
    const committed = committedNames(sqlite).map((name) => name.replace(/x+$/, ''));
    for (const [index, name] of ['small', 'after'].entries()) {
      const outcome = outcomes[index * 2]!;
      assert.equal(committed.includes(name), outcome.status === 'fulfilled', `${name}: ${outcome.status}`);
    }
    assert.equal(sqlite.inTransaction, false);
    sqlite.pragma('max_page_count = 4294967294');
    await write('later', 1);
    assert.ok(committedNames(sqlite).some((name) => name.startsWith('later')));
  });
});

describe('createSqliteDialect: the reads of a turn', () => {
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  /** Commits a row from another connection to the same file, as the command line or a second process would. */
  function insertElsewhere(sqlite: Database.Database, name: string): void {
    const other = new Database(sqlite.name);
    try {
      other.prepare('insert into items (name) values (?)').run(name);
    } finally {
      other.close();
    }
  }

  it('share one read transaction, which ends with the turn: a commit elsewhere is seen from the next turn on', async () => {
    const { db, sqlite } = setup();
    await db.insertInto('items').values({ name: 'before' }).execute();
    assert.deepEqual(await names(db), ['before']);
    assert.equal(sqlite.inTransaction, true);
    insertElsewhere(sqlite, 'elsewhere');
    assert.deepEqual(await names(db), ['before'], 'the turn reads as of its first read');
    await nextTurn();
    assert.equal(sqlite.inTransaction, false);
    assert.deepEqual(await names(db), ['before', 'elsewhere']);
  });

  it('share it with the reads run on the driver directly', async () => {
    const sqlite = new Database(path.join(dir, `db-${++fileCount}.sqlite`));
    sqlite.pragma('journal_mode = WAL');
    sqlite.exec(
      "create table items (id integer primary key, name text not null unique, active integer not null default 1); insert into items (name) values ('a')",
    );
    const dialect = createSqliteDialect(sqlite);
    const db = new Kysely<Schema>({ dialect });
    opened.push(db);
    const read = dialect.direct.prepare('select name from items order by id')!;
    // Prepared before the turn: a statement is prepared outside the reads' transaction, which ends it.
    assert.deepEqual(await names(db), ['a']);
    await nextTurn();
    assert.deepEqual(read([]), [{ name: 'a' }]);
    insertElsewhere(sqlite, 'b');
    assert.deepEqual(await names(db), ['a']);
    assert.deepEqual(read([]), [{ name: 'a' }]);
    await nextTurn();
    assert.deepEqual(read([]), [{ name: 'a' }, { name: 'b' }]);
    assert.equal(dialect.direct.prepare("insert into items (name) values ('c') returning id"), undefined, 'a write is never run directly');
  });

  it('end before a write of the same turn, which every read after it sees', async () => {
    const { db, sqlite } = setup();
    assert.deepEqual(await names(db), []);
    const written = db.insertInto('items').values({ name: 'written' }).execute();
    assert.equal(sqlite.inTransaction, true, "the write's own transaction, not the reads'");
    await written;
    assert.deepEqual(await names(db), ['written']);
    assert.deepEqual(committedNames(sqlite), ['written']);
  });

  it('end before a statement that must run alone: a pragma set after a read takes effect', async () => {
    const { db, sqlite } = setup();
    const before = sqlite.pragma('foreign_keys', { simple: true });
    assert.deepEqual(await names(db), []);
    await sql`pragma foreign_keys = ${sql.raw(before ? 'off' : 'on')}`.execute(db);
    assert.equal(sqlite.pragma('foreign_keys', { simple: true }), before ? 0 : 1);
    await sql`create table later (id integer primary key)`.execute(db);
    assert.equal(sqlite.inTransaction, false);
    assert.deepEqual(
      await db
        .selectFrom('later' as 'items')
        .selectAll()
        .execute(),
      [],
    );
  });

  it('do not keep the database from closing, and the turn ends without an error', async () => {
    const { db, sqlite } = setup();
    assert.deepEqual(await names(db), []);
    assert.equal(sqlite.inTransaction, true);
    await db.destroy();
    opened.splice(opened.indexOf(db), 1);
    assert.equal(sqlite.open, false);
    await nextTurn();
  });
});
