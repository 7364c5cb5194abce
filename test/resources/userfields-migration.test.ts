import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Migrator } from 'kysely';
import { migrateToLatest } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { PREDEFINED_USERFIELD_NAMES } from '../../src/resources/userfields/predefined.js';
import { createTestDatabase, ALL_ENGINES, engineSkip, type TestDatabase } from '../helpers/database.js';

for (const engine of ALL_ENGINES) {
  describe(`userfields migration [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    after(() => database?.drop());

    it('gives organizations that existed before it the predefined fields', async () => {
      database = await createTestDatabase(engine, { migrate: false });
      const migrator = new Migrator({
        db: database.db,
        provider: { getMigrations: async () => migrations },
        migrationTableSchema: database.schema, // as migrateToLatest does on PostgreSQL
      });
      const { error } = await migrator.migrateTo('0001-foundation');
      assert.equal(error, undefined);
      const orgIds = ['0'.repeat(31) + '1', '0'.repeat(31) + '2'];
      for (const id of orgIds) {
        await database.db
          .insertInto('organizations')
          .values({ id, name: `Before ${id}`, created_date: '2020-01-01T00:00:00Z' })
          .execute();
      }

      await migrateToLatest(database.db);

      for (const orgId of orgIds) {
        const rows = await database.db.selectFrom('userfields').selectAll().where('org_id', '=', orgId).orderBy('id').execute();
        assert.deepEqual(
          rows.map((row) => row.name),
          [...PREDEFINED_USERFIELD_NAMES],
        );
        for (const row of rows) {
          assert.equal(row.type, 'text');
          assert.equal(Boolean(row.read_only), true);
          assert.equal(row.category_id, null);
        }
      }
    });
  });
}
