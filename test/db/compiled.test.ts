import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compiledOnce } from '../../src/db/compiled.js';
import { directRunnerOf } from '../../src/db/direct-statements.js';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/database.js';

for (const engine of ENGINES) {
  describe(`compiledOnce (${engine})`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(engine);
      await database.db
        .insertInto('organizations')
        .values(['a', 'b'].map((id) => ({ id, name: `Org ${id}`, created_date: '2026-01-01T00:00:00Z' })))
        .execute();
    });
    after(() => database.drop());

    it('runs the query with each call’s own values, in a transaction too', async () => {
      // The parameters are bound in the other order than they are given, to check that each finds its place.
      const named = compiledOnce(2, (db, name, id) => db.selectFrom('organizations').select('id').where('id', '=', id).where('name', '=', name));
      assert.deepEqual(await named(database.db, 'Org a', 'a'), [{ id: 'a' }]);
      assert.deepEqual(await named(database.db, 'Org b', 'b'), [{ id: 'b' }]);
      assert.deepEqual(await named(database.db, 'Org a', 'b'), []);
      await database.db.transaction().execute(async (trx) => {
        await trx.updateTable('organizations').set({ name: 'Renamed' }).where('id', '=', 'a').execute();
        assert.deepEqual(await named(trx, 'Renamed', 'a'), [{ id: 'a' }]);
      });
    });

    it('reads on the handle itself run on the driver directly, and are told to the statement log', async () => {
      const statements: string[] = [];
      const observed = await createTestDatabase(engine, { onStatement: (sql) => statements.push(sql) });
      try {
        await observed.db.insertInto('organizations').values({ id: 'c', name: 'Org c', created_date: '2026-01-01T00:00:00Z' }).execute();
        const named = compiledOnce(1, (db, id) => db.selectFrom('organizations').select(['id', 'name']).where('id', '=', id));
        assert.ok(directRunnerOf(observed.db), 'the handle runs reads directly');
        statements.length = 0;
        assert.deepEqual(await named(observed.db, 'c'), [{ id: 'c', name: 'Org c' }]);
        assert.equal(statements.length, 1);
        assert.match(statements[0]!, /^select "id", "name" from "organizations" where "id" = (\?|\$1)$/);
        // A transaction is another instance: its reads go through Kysely, on its own connection.
        await observed.db.transaction().execute(async (trx) => {
          assert.equal(directRunnerOf(trx), undefined);
          await trx.updateTable('organizations').set({ name: 'Inside' }).where('id', '=', 'c').execute();
          assert.deepEqual(await named(trx, 'c'), [{ id: 'c', name: 'Inside' }]);
        });
        assert.deepEqual(await named(observed.db, 'c'), [{ id: 'c', name: 'Inside' }]);
        // A failing read is told too, as failed, and rejects as it would through Kysely.
        const broken = compiledOnce(1, (db, id) => db.selectFrom('organizations').select(['id']).where('id', '=', id));
        await observed.db.schema.alterTable('organizations').renameTo('organizations_renamed').execute();
        await assert.rejects(broken(observed.db, 'c'));
        await observed.db.schema.alterTable('organizations_renamed').renameTo('organizations').execute();
      } finally {
        await observed.drop();
      }
    });

    if (engine === 'sqlite') {
      it('a direct read waits for the write batch of its turn to commit, and sees it', async () => {
        const named = compiledOnce(1, (db, id) => db.selectFrom('organizations').select('name').where('id', '=', id));
        let read: Promise<{ name: string }[]> | undefined;
        await database.db.transaction().execute(async (trx) => {
          await trx.updateTable('organizations').set({ name: 'Batched' }).where('id', '=', 'b').execute();
          // Started while the transaction is open: nothing uncommitted may be read.
          read = named(database.db, 'b');
        });
        assert.deepEqual(await read, [{ name: 'Batched' }]);
      });
    }

    it('refuses a query that binds a value other than its stand-ins, or one of them twice', () => {
      const constant = compiledOnce(1, (db, id) => db.selectFrom('organizations').select('id').where('id', '=', id).where('name', '=', 'Org a'));
      assert.throws(() => constant(database.db, 'a'), /must bind each of its 1 parameters once/);
      const twice = compiledOnce(1, (db, id) => db.selectFrom('organizations').select('id').where('id', '=', id).where('name', '!=', id));
      assert.throws(() => twice(database.db, 'a'), /must bind each of its 1 parameters once/);
    });
  });
}
