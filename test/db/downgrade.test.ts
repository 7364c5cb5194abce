import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest } from '../../src/db/database.js';
import { VERSION } from '../../src/lib/version.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, ALL_ENGINES, engineSkip, type TestDatabase } from '../helpers/database.js';

for (const engine of ALL_ENGINES) {
  describe(`a database migrated by a newer version [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;

    before(async () => {
      database = await createTestDatabase(engine);
    });
    after(async () => {
      await database.drop();
    });

    it('records which version applied each migration', async () => {
      const { rows } = await sql<{ migration: string; version: string }>`select migration, version from training_api_migration_versions`.execute(
        database.db,
      );
      assert.ok(rows.length > 0);
      assert.ok(rows.some((row) => row.migration === '0001-foundation'));
      assert.ok(rows.every((row) => row.version === VERSION));
    });

    it('is refused in one line naming the migrations it does not know and the version they need', async () => {
      const applied = new Date().toISOString();
      for (const name of ['9001-from-the-future', '9002-further-still']) {
        await sql`insert into kysely_migration (name, timestamp) values (${name}, ${applied})`.execute(database.db);
      }
      await sql`insert into training_api_migration_versions (migration, version) values ('9001-from-the-future', '9.2.0'), ('9002-further-still', '9.10.1')`.execute(
        database.db,
      );
      const expected =
        `the database was migrated by a newer training-api: it has migrations 9001-from-the-future, 9002-further-still, ` +
        `which version ${VERSION} does not know; run training-api 9.10.1 or later, or restore the backup taken before the upgrade`;
      await assert.rejects(migrateToLatest(database.db), { message: expected });

      for (const command of [['migrate'], ['orgs', 'list']]) {
        const run = await runCli(database.url, ...command);
        assert.equal(run.code, 1, command.join(' '));
        assert.equal(run.out, '');
        assert.equal(run.err, `training-api: ${expected}`);
      }
    });

    it('says a newer version is needed when none was recorded', async () => {
      await sql`delete from training_api_migration_versions where migration like '9%'`.execute(database.db);
      const run = await runCli(database.url, 'migrate');
      assert.equal(run.code, 1);
      assert.match(run.err, /run training-api of the version that migrated it, or restore the backup taken before the upgrade$/);
      assert.doesNotMatch(run.err, /\n/);
    });
  });
}
