import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const SKIP = process.env.TEST_POSTGRES_URL ? false : 'needs TEST_POSTGRES_URL';

describe('PostgreSQL introspection', { skip: SKIP }, () => {
  let database: TestDatabase;
  let other: TestDatabase;
  before(async () => {
    [database, other] = await Promise.all([createTestDatabase('postgres'), createTestDatabase('postgres', { migrate: false })]);
    await other.db.schema
      .createTable('only_elsewhere')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .execute();
  });
  after(async () => {
    await database?.drop();
    await other?.drop();
  });

  it("lists the connection's own schema only, with Kysely's tables on request", async () => {
    const tables = await database.db.introspection.getTables();
    assert.ok(tables.length > 0);
    assert.ok(tables.every((table) => table.schema === database.schema));
    const names = tables.map((table) => table.name);
    assert.ok(names.includes('users'));
    assert.ok(!names.includes('only_elsewhere') && !names.includes('kysely_migration'));
    const withKysely = await database.db.introspection.getTables({ withInternalKyselyTables: true });
    assert.ok(withKysely.some((table) => table.name === 'kysely_migration'));
    assert.deepEqual(
      (await other.db.introspection.getTables()).map((table) => table.name),
      ['only_elsewhere'],
    );
  });

  it('describes columns in table order', async () => {
    const users = (await database.db.introspection.getTables()).find((table) => table.name === 'users')!;
    assert.deepEqual(
      users.columns.slice(0, 2).map((column) => column.name),
      ['org_id', 'id'],
    );
    const email = users.columns.find((column) => column.name === 'email')!;
    assert.deepEqual(
      {
        dataType: email.dataType,
        isNullable: email.isNullable,
        hasDefaultValue: email.hasDefaultValue,
        isAutoIncrementing: email.isAutoIncrementing,
      },
      { dataType: 'text', isNullable: false, hasDefaultValue: false, isAutoIncrementing: false },
    );
    const serial = (await other.db.introspection.getTables())[0]!.columns[0]!;
    assert.equal(serial.dataType, 'int4');
  });

  it('is unaffected by other schemas being dropped meanwhile', async () => {
    let churning = true;
    const churn = Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let round = 0; round < 4; round++) await (await createTestDatabase('postgres')).drop();
      }),
    ).finally(() => (churning = false));
    let looks = 0;
    const look = async () => {
      for (; churning; looks++) await database.db.introspection.getTables();
    };
    await Promise.all([churn, look()]);
    assert.ok(looks > 0);
  });
});
