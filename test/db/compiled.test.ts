import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compiledOnce } from '../../src/db/compiled.js';
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

    it('refuses a query that binds a value other than its stand-ins, or one of them twice', () => {
      const constant = compiledOnce(1, (db, id) => db.selectFrom('organizations').select('id').where('id', '=', id).where('name', '=', 'Org a'));
      assert.throws(() => constant(database.db, 'a'), /must bind each of its 1 parameters once/);
      const twice = compiledOnce(1, (db, id) => db.selectFrom('organizations').select('id').where('id', '=', id).where('name', '!=', id));
      assert.throws(() => twice(database.db, 'a'), /must bind each of its 1 parameters once/);
    });
  });
}
