import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedUsers } from '../../src/tenancy/seed.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { usersRepository } from '../../src/resources/users/users.repository.js';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

for (const engine of ENGINES) {
  describe(`lookups of a user by id gathered per turn (${engine})`, () => {
    let database: TestDatabase;
    const statements: string[] = [];
    let ours: string;
    let theirs: string;
    before(async () => {
      database = await createTestDatabase(engine, { onStatement: (sql) => statements.push(sql) });
      ours = (await organizationsRepository(database.db).create('Ours')).id;
      theirs = (await organizationsRepository(database.db).create('Theirs')).id;
      await seedUsers(database.db, ours, 5, DEFAULT_PASSWORD_POLICY);
      await seedUsers(database.db, theirs, 2, DEFAULT_PASSWORD_POLICY);
    });
    after(() => database.drop());

    it('answers each lookup as alone, within its own organization, in fewer statements on PostgreSQL', async () => {
      const all = await database.db.selectFrom('users').select(['org_id', 'id']).orderBy('id').execute();
      const mine = all.filter((user) => user.org_id === ours).map((user) => user.id);
      const other = all.find((user) => user.org_id === theirs)!.id;
      const users = usersRepository(database.db);
      const alone = await Promise.all(mine.map(async (id) => users.find(ours, id)));
      statements.length = 0;
      // Made in one turn: the same ids (one twice), another organization's id and an unknown one.
      const asked = [...mine, mine[0]!, other, '0'.repeat(32)];
      const together = await Promise.all(asked.map(async (id) => users.find(ours, id)));
      assert.deepEqual(together, [...alone, alone[0], undefined, undefined]);
      assert.equal(statements.length, engine === 'postgres' ? 1 : asked.length);
      if (engine === 'postgres')
        assert.match(
          statements[0]!,
          /\(org_id, id\) in \(select org_id, id from json_to_recordset\(\$1::json\) as wanted\(org_id text, id text\)\)$/,
        );
      // Inside a transaction, each lookup is its own statement on the transaction's connection.
      statements.length = 0;
      await database.db.transaction().execute(async (trx) => {
        const inside = await Promise.all(mine.map(async (id) => usersRepository(trx).find(ours, id)));
        assert.deepEqual(inside, alone);
      });
      assert.equal(statements.filter((sql) => sql.startsWith('select')).length, mine.length);
    });

    it('gathers the lookups of several organizations in one statement, each answered within its own', async () => {
      const all = await database.db.selectFrom('users').select(['org_id', 'id']).orderBy('id').execute();
      const mine = all.filter((user) => user.org_id === ours).map((user) => user.id);
      const yours = all.filter((user) => user.org_id === theirs).map((user) => user.id);
      const users = usersRepository(database.db);
      const alone = {
        mine: await Promise.all(mine.map(async (id) => users.find(ours, id))),
        yours: await Promise.all(yours.map(async (id) => users.find(theirs, id))),
      };
      statements.length = 0;
      // Made in one turn, alternating: each organization's own ids, and each asking for the other's.
      const together = await Promise.all([
        ...mine.flatMap((id, index) => [users.find(ours, id), ...(index < yours.length ? [users.find(theirs, yours[index]!)] : [])]),
        users.find(ours, yours[0]!),
        users.find(theirs, mine[0]!),
      ]);
      const expected = [
        ...mine.flatMap((_, index) => [alone.mine[index], ...(index < yours.length ? [alone.yours[index]] : [])]),
        undefined,
        undefined,
      ];
      assert.deepEqual(together, expected);
      assert.equal(statements.length, engine === 'postgres' ? 1 : together.length);
    });

    it('fails each lookup a failed statement carried', { skip: engine === 'sqlite' && 'SQLite runs each lookup alone' }, async () => {
      const users = usersRepository(database.db);
      await database.db.schema.alterTable('users').renameTo('users_away').execute();
      try {
        const results = await Promise.allSettled(['a', 'b'].map((suffix) => users.find(ours, suffix.repeat(32))));
        assert.deepEqual(
          results.map((result) => result.status),
          ['rejected', 'rejected'],
        );
      } finally {
        await database.db.schema.alterTable('users_away').renameTo('users').execute();
      }
    });
  });
}
