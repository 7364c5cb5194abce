import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/lib/ids.js';
import { createTestDatabase, ALL_ENGINES, engineSkip, type TestDatabase } from '../helpers/database.js';
import { sleep, statusCounts, underLoad, type Outcome } from '../helpers/load.js';
import { createdId, type Reply, ServerProcess } from '../helpers/server-process.js';

const CLIENTS = 24;
const ROUNDS = 3;
/** How long the clients write before the kill, at the most: each round kills at another moment. */
const LOAD_MS = 3000;
const FIELDS = 3;

function assertCreated(reply: Reply, what: string): string {
  const id = createdId(reply);
  assert.ok(id, `${what}: ${reply.status} ${reply.body}`);
  return id;
}

/**
 * Clients write in three ways at once, the server is killed with SIGKILL mid-write and started
 * again: every write that was acknowledged is there, and no write is there in part.
 */
for (const engine of ALL_ENGINES) {
  describe(`SIGKILL mid-write [${engine}]`, { timeout: 300_000, skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    let server: ServerProcess;
    let token: string;
    let fieldIds: string[];
    let offeringId: string;

    const request = (method: string, path: string, body?: unknown) => server.request(method, path, { token, body, timeoutMs: 15_000 });

    before(async () => {
      database = await createTestDatabase(engine, { migrate: false });
      server = await ServerProcess.start({ DATABASE_URL: database.url });
      token = await server.bootstrapToken();
      const categoryId = assertCreated(await request('POST', 'userfieldcategories', { name: 'Kill', type: 'public' }), 'category');
      fieldIds = [];
      for (let n = 0; n < FIELDS; n += 1) {
        fieldIds.push(assertCreated(await request('POST', 'userfields', { type: 'text', name: `Kill ${n}`, categoryId }), 'field'));
      }
      offeringId = assertCreated(await request('POST', 'offerings', { title: 'Kill course' }), 'offering');
    });

    after(async () => {
      await server?.destroy();
      await database?.drop();
    });

    it(`loses no acknowledged write and applies none in part, over ${ROUNDS} kills`, async (t) => {
      const acknowledgedUsers = new Set<string>();
      let unansweredCreates = 0;
      const totals = { users: 0, values: 0, registrations: 0, ejects: 0, unanswered: 0 };

      for (let round = 0; round < ROUNDS; round += 1) {
        // Each values client writes its own user; each registration client registers its own user again and again.
        const users = await Promise.all(
          Array.from({ length: CLIENTS }, async (_, worker) =>
            assertCreated(await request('POST', 'users', { email: `r${round}-w${worker}-${newId()}@example.com` }), 'user'),
          ),
        );
        /** Per values client: the step of its last acknowledged PUT. */
        const valuesAcknowledged = new Map<number, number>();
        let valuesPuts = 0;
        const registrationsAcknowledged = new Set<string>();
        const ejectsAcknowledged = new Set<string>();
        const valueOf = (worker: number, step: number) => `r${round}-w${worker}-s${step}`;

        const outcomes = await underLoad(
          CLIENTS,
          async (worker, step) => {
            const userId = users[worker]!;
            if (worker % 3 === 0) {
              const reply = await request('POST', 'users', { email: `kill-r${round}-w${worker}-s${step}@example.com`, firstName: 'Killed' });
              const id = createdId(reply);
              if (id) acknowledgedUsers.add(id);
              else if (reply.status === 0) unansweredCreates += 1;
              return { kind: 'create user', reply };
            }
            if (worker % 3 === 1) {
              const value = valueOf(worker, step);
              const reply = await request('PUT', `users/${userId}/userfieldvalues`, Object.fromEntries(fieldIds.map((id) => [id, value])));
              if (reply.status === 204) {
                valuesAcknowledged.set(worker, step);
                valuesPuts += 1;
              }
              return { kind: 'put values', reply };
            }
            const created = await request('POST', 'registrations', { userId, offeringId });
            const id = createdId(created);
            if (!id) return { kind: 'register', reply: created };
            registrationsAcknowledged.add(id);
            const reply = await request('PUT', `registrations/${id}`, { status: 'ejected' });
            if (reply.status === 204) ejectsAcknowledged.add(id);
            return { kind: 'eject', reply };
          },
          async () => {
            await sleep(LOAD_MS / 2 + Math.random() * (LOAD_MS / 2));
            await server.kill('SIGKILL');
          },
        );
        const answered = outcomes.filter((outcome: Outcome) => outcome.status !== 0);
        for (const outcome of answered) assert.ok(outcome.status < 300, `${outcome.kind}: ${outcome.status} ${outcome.body}`);
        assert.ok(valuesAcknowledged.size > 0 && ejectsAcknowledged.size > 0, 'every kind of write was acknowledged before the kill');

        await server.restart();
        const db = database.db;

        // Users: every acknowledged one is there; any other is one whose answer the kill cut off.
        const stored = new Set((await db.selectFrom('users').select('id').where('first_name', '=', 'Killed').execute()).map((row) => row.id));
        const lost = [...acknowledgedUsers].filter((id) => !stored.has(id));
        assert.deepEqual(lost, [], `${lost.length} of ${acknowledgedUsers.size} acknowledged users are missing`);
        assert.ok(stored.size - acknowledgedUsers.size <= unansweredCreates, `${stored.size} users stored, ${acknowledgedUsers.size} acknowledged`);

        // Userfield values: each user holds one PUT's values whole, the last acknowledged one or a later one.
        for (const [worker, userId] of users.entries()) {
          if (worker % 3 !== 1) continue;
          const rows = await db.selectFrom('userfield_values').select(['userfield_id', 'value']).where('user_id', '=', userId).execute();
          const values = new Set(rows.map((row) => JSON.parse(row.value) as string));
          const acknowledgedStep = valuesAcknowledged.get(worker);
          if (acknowledgedStep === undefined && rows.length === 0) continue;
          assert.equal(rows.length, FIELDS, `worker ${worker}: ${rows.length} of ${FIELDS} values stored`);
          assert.equal(values.size, 1, `worker ${worker}: one PUT applied in part: ${[...values].join(', ')}`);
          const step = Number(/-s(\d+)$/.exec([...values][0]!)?.[1]);
          if (acknowledgedStep !== undefined)
            assert.ok(step >= acknowledgedStep, `worker ${worker}: step ${step} stored, ${acknowledgedStep} acknowledged`);
        }

        // Registrations: every acknowledged one is there, every acknowledged eject applied, and an ejection is whole.
        const registrations = await db
          .selectFrom('registrations')
          .select(['id', 'status', 'end_date'])
          .where('offering_id', '=', offeringId)
          .execute();
        const byId = new Map(registrations.map((row) => [row.id, row]));
        for (const id of registrationsAcknowledged) assert.ok(byId.has(id), `acknowledged registration ${id} is missing`);
        for (const id of ejectsAcknowledged) assert.equal(byId.get(id)?.status, 'ejected', `acknowledged eject of ${id}`);
        for (const row of registrations) assert.equal(row.status === 'ejected', row.end_date !== null, `registration ${row.id} ejected in part`);

        // The restarted server serves what was written.
        const sample = [...acknowledgedUsers].at(-1);
        if (sample) assert.equal((await request('GET', `users/${sample}`)).status, 200);

        totals.users = acknowledgedUsers.size;
        totals.values += valuesPuts;
        totals.registrations += registrationsAcknowledged.size;
        totals.ejects += ejectsAcknowledged.size;
        totals.unanswered += outcomes.length - answered.length;
        t.diagnostic(
          `round ${round + 1}: ${JSON.stringify(statusCounts(outcomes))}; acknowledged: ${acknowledgedUsers.size} user creates so far, ` +
            `${registrationsAcknowledged.size} registrations, ${ejectsAcknowledged.size} ejects, ${valuesPuts} values PUTs; 0 lost, 0 in part`,
        );
      }
      t.diagnostic(
        `SIGKILL ×${ROUNDS} on ${engine}: acknowledged ${totals.users} user creates, ${totals.registrations} registrations, ${totals.ejects} ejects, ` +
          `${totals.values} userfield-values PUTs of 3 values each (each user's last one checked whole); lost 0, in part 0; ${totals.unanswered} requests cut off by the kills`,
      );
    });
  });
}
