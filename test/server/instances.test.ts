import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bootstrap } from '../../src/cli/serve.js';
import { openDatabase } from '../../src/db/database.js';
import { newId } from '../../src/lib/ids.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { statusCounts, underLoad } from '../helpers/load.js';
import { ServerProcess } from '../helpers/server-process.js';

const SKIP = process.env.TEST_POSTGRES_URL ? false : 'needs TEST_POSTGRES_URL: instances share a PostgreSQL database';

describe('two instances on one PostgreSQL database', { skip: SKIP }, () => {
  let database: TestDatabase;
  let instances: ServerProcess[] = [];
  let token: string;

  before(async () => {
    // Unmigrated and empty: both instances migrate and bootstrap at the same moment.
    database = await createTestDatabase('postgres', { migrate: false });
    const started = await Promise.allSettled([0, 1].map(() => ServerProcess.start({ DATABASE_URL: database.url })));
    instances = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  });

  after(async () => {
    for (const instance of instances) await instance.destroy();
    await database?.drop();
  });

  it('bootstraps one organization and one token, however many start at once', async () => {
    const organizations = await database.db.selectFrom('organizations').select(['id', 'name']).execute();
    assert.deepEqual(
      organizations.map((organization) => organization.name),
      ['Default organization'],
    );
    const tokenFiles = instances.map((instance) => join(instance.dataDir, 'bootstrap-token')).filter((file) => existsSync(file));
    assert.equal(tokenFiles.length, 1);
    token = (await readFile(tokenFiles[0]!, 'utf8')).trim();
    assert.equal((await database.db.selectFrom('access_tokens').select('id').execute()).length, 1);
  });

  it('lets exactly one of 200 concurrent creates of one email through, split over both', async () => {
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, n) =>
        instances[n % 2]!.request('POST', 'users', {
          token,
          body: { email: n % 2 ? 'Race@Example.com' : 'race@example.com', firstName: `Racer ${n}` },
        }),
      ),
    );
    const statuses = replies.map((reply) => reply.status);
    assert.equal(statuses.filter((status) => status === 201).length, 1, `statuses: ${statuses.join(' ')}`);
    const refusals = replies.filter((reply) => reply.status === 400);
    assert.equal(refusals.length, 199);
    for (const refusal of refusals) assert.equal(JSON.parse(refusal.body).fieldErrors.email, 'is already in use');

    const found = await Promise.all(instances.map((instance) => instance.request('GET', 'users?email=RACE@example.com', { token })));
    const bodies = found.map((reply) => JSON.parse(reply.body));
    assert.equal(bodies[0].results.length, 1);
    assert.deepEqual(bodies[1], bodies[0]);
  });

  it('serves what one instance wrote from the other at once', async () => {
    const [first, second] = instances as [ServerProcess, ServerProcess];
    const created = await first.request('POST', 'users', { token, body: { email: 'shared@example.com', username: 'shared' } });
    assert.equal(created.status, 201);
    const list = JSON.parse((await second.request('GET', 'users?username=shared', { token })).body);
    assert.equal(list.results[0].email, 'shared@example.com');
    const id = list.results[0].id;
    assert.equal((await second.request('DELETE', `users/${id}`, { token })).status, 204);
    assert.equal((await first.request('GET', `users/${id}`, { token })).status, 404);
  });

  it('keeps serving from one instance while the other is killed mid-write', async (t) => {
    const [survivor, victim] = instances as [ServerProcess, ServerProcess];
    const acknowledged: string[] = [];
    const outcomes = await underLoad(
      20,
      async (worker, step) => {
        const instance = worker % 2 === 0 ? survivor : victim;
        const reply = await instance.request('POST', 'users', { token, body: { email: `kill-${worker}-${step}-${newId()}@example.com` } });
        if (reply.status === 201) acknowledged.push(String(reply.headers.location).split('/').pop()!);
        return { kind: instance === survivor ? 'survivor' : 'victim', reply };
      },
      async () => {
        await eventually(() => acknowledged.length >= 40, { what: 'creates acknowledged by both instances' });
        await victim.kill('SIGKILL');
        const beforeKill = acknowledged.length;
        await eventually(() => acknowledged.length >= beforeKill + 40, { what: 'creates acknowledged by the survivor after the kill' });
      },
    );
    const served = outcomes.filter((outcome) => outcome.kind === 'survivor');
    assert.ok(survivor.running);
    assert.deepEqual(statusCounts(served), { 201: served.length }, 'every request to the surviving instance succeeded');
    const stored = new Set((await database.db.selectFrom('users').select('id').execute()).map((row) => row.id));
    const lost = acknowledged.filter((id) => !stored.has(id));
    assert.deepEqual(lost, []);
    t.diagnostic(
      `one of two instances killed: survivor ${JSON.stringify(statusCounts(served))}, victim ${JSON.stringify(statusCounts(outcomes.filter((o) => o.kind === 'victim')))}; ${acknowledged.length} acknowledged creates, 0 lost`,
    );
  });
});

describe('bootstrap', { skip: SKIP }, () => {
  it('creates one organization when several instances bootstrap an empty database at once', async () => {
    const database = await createTestDatabase('postgres');
    const handles = Array.from({ length: 4 }, () => openDatabase(database.url, { poolSize: 2 }));
    const dataDir = await mkdtemp(join(tmpdir(), 'training-api-bootstrap-'));
    try {
      const tokens = await Promise.all(handles.map((handle, n) => bootstrap(handle, join(dataDir, String(n)))));
      assert.equal(tokens.filter((token) => token !== undefined).length, 1);
      assert.equal((await database.db.selectFrom('organizations').select('id').execute()).length, 1);
      assert.equal((await database.db.selectFrom('access_tokens').select('id').execute()).length, 1);
    } finally {
      for (const handle of handles) await handle.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
