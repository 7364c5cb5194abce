import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { compiledOnce } from '../../src/db/compiled.js';
import { transactionRunnerOf } from '../../src/db/direct-transactions.js';
import type { Database } from '../../src/db/schema.js';
import { beforeCommit, inTransaction } from '../../src/db/unit-of-work.js';
import { recordEvent } from '../../src/events/outbox.js';
import { usersService } from '../../src/resources/users/users.service.js';
import type { Caller } from '../../src/auth/caller.js';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { TEST_ACTOR } from '../helpers/actors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

const insertRow = compiledOnce(3, (db, id, name, createdDate) => db.insertInto('organizations').values({ id, name, created_date: createdDate }));
const insertOrganization = (db: Kysely<Database>, id: string) => insertRow(db, id, 'Org', '2026-01-01T00:00:00Z');

async function organizations(db: Kysely<Database>): Promise<string[]> {
  return (await db.selectFrom('organizations').select('id').orderBy('id').execute()).map((row) => row.id);
}

for (const engine of ENGINES) {
  describe(`units of work on their transaction's connection (${engine})`, () => {
    let database: TestDatabase;
    const statements: string[] = [];
    before(async () => {
      database = await createTestDatabase(engine, { onStatement: (text) => statements.push(text) });
    });
    after(() => database.drop());

    it('commits the work and its steps together, and a failing step rolls both back', async () => {
      await inTransaction(database.db, TEST_ACTOR, async (trx) => {
        await insertOrganization(trx, 'a1');
        beforeCommit(trx, async (trx) => void (await insertOrganization(trx, 'a2')));
      });
      await assert.rejects(
        inTransaction(database.db, TEST_ACTOR, async (trx) => {
          await insertOrganization(trx, 'a3');
          beforeCommit(trx, async (trx) => {
            await trx.insertInto('organizations').values({ id: 'a4', name: 'Org', created_date: '2026-01-01T00:00:00Z' }).execute();
            throw new Error('step failed');
          });
        }),
        /step failed/,
      );
      assert.deepEqual(await organizations(database.db), ['a1', 'a2']);
    });

    it('a failing first statement rolls back, and the connections serve the next units as before', async () => {
      // More failures than the pool has connections: each goes back to it usable.
      for (let attempt = 0; attempt < 12; attempt++) {
        await assert.rejects(inTransaction(database.db, TEST_ACTOR, (trx) => insertOrganization(trx, 'a1')));
      }
      await Promise.all(['b1', 'b2', 'b3'].map((id) => inTransaction(database.db, TEST_ACTOR, (trx) => insertOrganization(trx, id))));
      assert.deepEqual(await organizations(database.db), ['a1', 'a2', 'b1', 'b2', 'b3']);
    });

    it('a nested unit that fails rolls back to its savepoint, and the outer unit commits', async () => {
      await inTransaction(database.db, TEST_ACTOR, async (trx) => {
        await insertOrganization(trx, 'c1');
        await assert.rejects(
          inTransaction(trx, TEST_ACTOR, async (inner) => {
            await insertOrganization(inner, 'c2');
            throw new Error('inner failed');
          }),
          /inner failed/,
        );
        await inTransaction(trx, TEST_ACTOR, (inner) => insertOrganization(inner, 'c3'));
      });
      assert.deepEqual(
        (await organizations(database.db)).filter((id) => id.startsWith('c')),
        ['c1', 'c3'],
      );
    });

    it('a create writes its event with its insert, and inside an enclosing unit one that fails keeps that unit’s events', async () => {
      await insertOrganization(database.db, 'f1');
      const caller: Caller = { orgId: 'f1', tokenId: 'token', scopes: [], actor: TEST_ACTOR };
      const eventTypes = async () =>
        (await database.db.selectFrom('events').select('type').where('org_id', '=', 'f1').orderBy('created_date').execute()).map((row) => row.type);
      await usersService(database.db, DEFAULT_PASSWORD_POLICY).create(caller, { email: 'first@example.com' });
      await assert.rejects(usersService(database.db, DEFAULT_PASSWORD_POLICY).create(caller, { email: 'first@example.com' }), /in use|Conflict/i);
      assert.deepEqual(await eventTypes(), ['user.created']);
      await inTransaction(database.db, TEST_ACTOR, async (trx) => {
        await usersService(trx, DEFAULT_PASSWORD_POLICY).create(caller, { email: 'second@example.com' });
        recordEvent(trx, 'f1', 'user.deleted', { id: 'gone', email: 'gone@example.com' } as never);
        // Refused (the email is taken): rolled back to its savepoint, the enclosing unit's events stay recorded.
        await assert.rejects(usersService(trx, DEFAULT_PASSWORD_POLICY).create(caller, { email: 'first@example.com' }));
      });
      assert.deepEqual((await eventTypes()).sort(), ['user.created', 'user.created', 'user.deleted']);
      const emails = await database.db.selectFrom('users').select('email').where('org_id', '=', 'f1').orderBy('email').execute();
      assert.deepEqual(emails, [{ email: 'first@example.com' }, { email: 'second@example.com' }]);
    });

    if (engine === 'postgres') {
      it('tells the statement log every statement in order, BEGIN and COMMIT included, and refuses the transaction once committed', async () => {
        assert.ok(transactionRunnerOf(database.db));
        statements.length = 0;
        let kept: Kysely<Database> | undefined;
        await inTransaction(database.db, TEST_ACTOR, async (trx) => {
          kept = trx;
          await insertOrganization(trx, 'd1');
          await trx.updateTable('organizations').set({ name: 'Renamed' }).where('id', '=', 'd1').execute();
        });
        assert.deepEqual(
          statements.map((text) => text.split(' ')[0]),
          ['begin', 'insert', 'update', 'commit'],
        );
        await assert.rejects(insertOrganization(kept!, 'd2'), /already committed/);
        await assert.rejects(kept!.selectFrom('organizations').selectAll().execute(), /already committed/);
        assert.deepEqual(await database.db.selectFrom('organizations').select('name').where('id', '=', 'd1').execute(), [{ name: 'Renamed' }]);
      });

      it('a connection ended in the middle of a unit leaves nothing of it, and the next units get another', async () => {
        await assert.rejects(
          inTransaction(database.db, TEST_ACTOR, async (trx) => {
            await insertOrganization(trx, 'e1');
            const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
            await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(database.db);
            await insertOrganization(trx, 'e2');
          }),
        );
        await inTransaction(database.db, TEST_ACTOR, (trx) => insertOrganization(trx, 'e3'));
        assert.deepEqual(
          (await organizations(database.db)).filter((id) => id.startsWith('e')),
          ['e3'],
        );
      });
    }
  });
}
