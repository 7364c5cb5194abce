import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { inTransaction } from '../../src/db/unit-of-work.js';
import { feedColumn } from '../../src/events/feed-positions.js';
import { pruneEvents } from '../../src/events/retention.js';
import { usersService } from '../../src/resources/users/users.service.js';
import { createUser, unique } from '../helpers/collections.js';
import { eventsAfter, FeedConsumer, harnessFeed } from '../helpers/events.js';
import { forEachEngine } from '../helpers/harness.js';
import { sleep } from '../helpers/load.js';
import { holdOpen, writerBesideTheApp } from '../helpers/held-transaction.js';
import { ScimClient, GROUP_SCHEMA } from '../scim/scim-client.js';
import { TEST_ACTOR } from '../helpers/actors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

const email = () => `${unique('feed').replace(' ', '')}@example.com`;

/** This transaction's id, which PostgreSQL gives at its first write. */
async function transactionId(trx: Kysely<Database>): Promise<bigint> {
  const { rows } = await sql<{ xid: string }>`select pg_current_xact_id()::text as xid`.execute(trx);
  return BigInt(rows[0]!.xid);
}

forEachEngine('event feed order', (h) => {
  const beside = writerBesideTheApp(h);

  const userEvents = (events: any[], id: string) => events.filter((event) => event.data.id === id);

  it('a consumer never skips an event that commits after later-numbered ones it already read', async (t) => {
    const consumer = new FeedConsumer(harnessFeed(h));
    await consumer.poll();
    const held = holdOpen(beside.db, (trx) => usersService(trx, DEFAULT_PASSWORD_POLICY).create(beside.caller, { email: email() }));
    t.after(() => held.commit());
    const late = await held.written;
    // SQLite runs one write transaction at a time: nothing else can commit while this one is open.
    const early = h.engine === 'postgres' ? await createUser(h) : undefined;
    const whileHeld = await consumer.poll();
    assert.deepEqual(
      whileHeld.map((event) => event.data.id),
      early ? [early] : [],
      'the open transaction shows nothing yet; what committed meanwhile does',
    );
    await held.commit();
    const afterCommit = await consumer.poll();
    assert.deepEqual(
      afterCommit.map((event) => [event.type, event.data.id]),
      [['user.created', late]],
    );
    assert.deepEqual(consumer.duplicates(), []);
    if (early) {
      // The late one was numbered first: a feed read in that order would have gone past it.
      const seqs = await h.database.db.selectFrom('events').select(['seq', 'data']).where('org_id', '=', h.org.id).execute();
      const seqOf = (id: string) => Number(seqs.find((row) => JSON.parse(row.data).id === id)!.seq);
      assert.ok(seqOf(late) < seqOf(early), `seq ${seqOf(late)} of the late commit < seq ${seqOf(early)}`);
    }
  });

  it(
    'keeps two changes of one user in commit order although their transactions took ids in another order',
    { skip: h.engine === 'sqlite' ? 'needs write transactions open side by side, which SQLite runs one at a time' : false },
    async (t) => {
      const userId = await createUser(h);
      const consumer = new FeedConsumer(harnessFeed(h));
      await consumer.poll();
      // The second change's transaction writes first (its id is the oldest), then a third one
      // starts and stays open (so the oldest running id lies between), then the first change
      // commits, and only then the second reaches the user.
      let reachUser!: () => void;
      const userReached = new Promise<void>((resolve) => (reachUser = resolve));
      let secondStarted!: (xid: bigint) => void;
      const secondXid = new Promise<bigint>((resolve) => (secondStarted = resolve));
      t.after(() => reachUser());
      const second = inTransaction(h.database.db, TEST_ACTOR, async (trx) => {
        const users = usersService(trx, DEFAULT_PASSWORD_POLICY);
        await users.create(beside.caller, { email: email() });
        secondStarted(await transactionId(trx));
        await userReached;
        await users.update(beside.caller, userId, { firstName: 'Second' });
      });
      const secondId = await secondXid;
      const third = holdOpen(h.database.db, async (trx) => {
        const id = await usersService(trx, DEFAULT_PASSWORD_POLICY).create(beside.caller, { email: email() });
        return { id, xid: await transactionId(trx) };
      });
      t.after(() => third.commit());
      const thirdWritten = await third.written;
      const firstXid = await inTransaction(h.database.db, TEST_ACTOR, async (trx) => {
        await usersService(trx, DEFAULT_PASSWORD_POLICY).update(beside.caller, userId, { firstName: 'First' });
        return transactionId(trx);
      });
      reachUser();
      await second;
      assert.ok(secondId < thirdWritten.xid && thirdWritten.xid < firstXid, `ids ${secondId} < ${thirdWritten.xid} < ${firstXid}`);

      const read = await consumer.poll();
      assert.deepEqual(
        userEvents(read, userId).map((event) => event.data.firstName),
        ['First', 'Second'],
        'the change that committed first comes first, while a transaction that began before it is still open',
      );
      await third.commit();
      assert.deepEqual(
        (await consumer.poll()).map((event) => event.data.id),
        [thirdWritten.id],
      );
      assert.deepEqual(userEvents(consumer.events, userId).at(-1).data, (await h.get(`users/${userId}`)).json());
      assert.deepEqual(consumer.duplicates(), []);
    },
  );

  it('a consumer paging during a large SCIM group write and the user changes waiting on it reads every event once, in order', async () => {
    const members: string[] = [];
    for (let n = 0; n < 150; n++) members.push(await createUser(h));
    const start = (await eventsAfter(h)).at(-1).id;
    const consumer = new FeedConsumer(harnessFeed(h), start);
    const scim = await ScimClient.of(h);
    let writing = true;
    const group = scim
      .post('/Groups', { schemas: [GROUP_SCHEMA], displayName: unique('Everyone'), members: members.map((value) => ({ value })) })
      .finally(() => (writing = false));
    // Changes of some members while the group is written: on PostgreSQL they wait for its row locks.
    const changes = Promise.all(members.slice(0, 20).map((id, n) => h.put(`users/${id}`, { firstName: `Changed ${n}` })));
    while (writing) {
      await consumer.poll();
      await sleep(10);
    }
    assert.equal((await group).statusCode, 201);
    for (const change of await changes) assert.equal(change.statusCode, 204, change.body);
    await consumer.poll();

    const all = await eventsAfter(h, start);
    assert.deepEqual(
      consumer.events.map((event) => event.id),
      all.map((event) => event.id),
      'the consumer read exactly the feed as it stands, in its order',
    );
    assert.equal(all.length, members.length + 20);
    for (const id of members) {
      const current = (await h.get(`users/${id}`)).json();
      assert.deepEqual(userEvents(consumer.events, id).at(-1).data, current, 'the last event of each user is the user as it is');
    }
  });

  it('goes on numbering after retention removed every event of the organization', async () => {
    const org = await h.createOrganization(unique('Retention'));
    const feed = (token: string) => async (query: Record<string, string>) => {
      const response = await h.get('events', { query, token });
      return { status: response.statusCode, body: response.json() };
    };
    await createUser(h, { token: org.token });
    await new FeedConsumer(feed(org.token)).poll();
    const column = feedColumn(h.database.db);
    const places = async () =>
      (await h.database.db.selectFrom('events').select(column).where('org_id', '=', org.id).execute()).map((row) => Number(row[column]));
    const before = Math.max(...(await places()));
    await h.database.db.updateTable('events').set({ created_date: '2001-01-01T00:00:00Z' }).where('org_id', '=', org.id).execute();
    await pruneEvents(h.database.db, 30);
    assert.deepEqual(await places(), []);
    const userId = await createUser(h, { token: org.token });
    const read = await new FeedConsumer(feed(org.token)).poll();
    assert.deepEqual(
      read.map((event) => event.data.id),
      [userId],
    );
    const [after] = await places();
    assert.ok(after! > before, `the new event's place ${after} follows ${before}`);
  });
});
