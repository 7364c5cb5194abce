import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedUsers } from '../../src/tenancy/seed.js';
import { updatedDateWatermark } from '../../src/db/watermark.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

for (const engine of ENGINES) {
  describe(`updatedDate watermark statements (${engine})`, () => {
    let database: TestDatabase;
    const statements: string[] = [];
    let orgId: string;
    before(async () => {
      database = await createTestDatabase(engine, { onStatement: (sql) => statements.push(sql) });
      orgId = (await organizationsRepository(database.db).create('Ours')).id;
      await seedUsers(database.db, orgId, 2, DEFAULT_PASSWORD_POLICY);
    });
    after(() => database.drop());

    it('is read once for the lists that ask together (PostgreSQL), and again on SQLite only after a change', async () => {
      const first = await updatedDateWatermark(database.db, orgId);
      statements.length = 0;
      const together = await Promise.all(Array.from({ length: 8 }, () => updatedDateWatermark(database.db, orgId)));
      const readings = () => statements.filter((sql) => /pg_stat_get_activity|union all/.test(sql)).length;
      if (engine === 'postgres') {
        assert.equal(readings(), 1);
        assert.ok(together.every((watermark) => watermark === together[0]));
        return;
      }
      // SQLite: nothing committed since the first reading, so it stands.
      assert.deepEqual(
        together,
        Array.from({ length: 8 }, () => first),
      );
      assert.equal(readings(), 0);
      await seedUsers(database.db, orgId, 1, DEFAULT_PASSWORD_POLICY);
      statements.length = 0;
      const later = await updatedDateWatermark(database.db, orgId);
      assert.equal(readings(), 1);
      assert.ok(later >= first);
      // Another organization's is read for itself.
      const other = (await organizationsRepository(database.db).create('Theirs')).id;
      statements.length = 0;
      await updatedDateWatermark(database.db, other);
      assert.equal(readings(), 1);
    });
  });
}
