import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent, fetch as undiciFetch } from 'undici';
import {
  createClient,
  NotFoundError,
  UnavailableError,
  ValidationError,
  type TrainingApiClient,
  type User,
} from '../../clients/typescript/src/index.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { createTestDatabase, ALL_ENGINES, engineSkip, type TestDatabase } from '../helpers/database.js';
import { ServerProcess } from '../helpers/server-process.js';

/** Never called: it only has to compile, or not, where the document says so. */
export function typeChecks(api: TrainingApiClient): void {
  // @ts-expect-error a property the API does not have
  void api.create('/users', { email: 'a@example.com', emial: 'typo' });
  // @ts-expect-error an email is required
  void api.create('/users', { firstName: 'Ada' });
  // @ts-expect-error a filter /users does not have
  void api.list('/users', { query: { shoeSize: 44 } });
  // @ts-expect-error GET /users/{id} needs its id
  void api.get('/users/{id}', {});
  // @ts-expect-error GET /users/{id} needs its id
  void api.get('/users/{id}');
  // A path without parameters takes no second argument.
  void api.get('/agreements');
  void api.update('/scimattributes', {});
}

it('refuses a missing token before sending anything', () => {
  let sent = 0;
  const fetch = async () => {
    sent++;
    return new Response('{}');
  };
  for (const token of [undefined, '', '  ']) {
    assert.throws(
      () => createClient({ baseUrl: 'https://training.example.com/api/v5', token: token as string, fetch }),
      (error: Error) => error instanceof TypeError && /token is required/.test(error.message),
    );
  }
  assert.equal(sent, 0);
});

for (const engine of ALL_ENGINES) {
  describe(`TypeScript client against a real server [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    let server: ServerProcess;
    let agent: Agent;
    let token: string;
    /** The Idempotency-Key of every request sent, in order. */
    const keys: (string | null)[] = [];

    /** Sends through undici with an agent trusting the server's own certificate. */
    async function send(request: Request): Promise<Response> {
      keys.push(request.headers.get('idempotency-key'));
      const body = request.body ? await request.text() : undefined;
      return await undiciFetch(request.url, {
        method: request.method,
        headers: [...request.headers],
        body,
        dispatcher: agent,
      });
    }

    const client = (options: { retries?: number } = {}): TrainingApiClient =>
      createClient({ baseUrl: `https://localhost:${server.port}/api/v5`, token, fetch: send, ...options });

    before(async () => {
      database = await createTestDatabase(engine);
      const organization = await organizationsRepository(database.db).create('Client test');
      token = (await tokensService(database.db).create(organization.id)).token;
      server = await ServerProcess.start({ DATABASE_URL: database.url, RATE_LIMIT: '10/second' });
      agent = new Agent({ connect: { ca: await readFile(join(server.dataDir, 'tls', 'cert.pem')) } });
    });
    after(async () => {
      await agent?.close();
      await server?.destroy();
      await database?.drop();
    });

    it('creates, reads, updates and deletes, with the new id taken from Location', async () => {
      const api = client();
      const id = await api.create('/users', { email: 'typed@example.com', firstName: 'Typed' });
      assert.match(id, /^[0-9a-f]{32}$/);
      const user: User = await api.get('/users/{id}', { id });
      assert.equal(user.email, 'typed@example.com');
      await api.update('/users/{id}', { id }, { lastName: 'Client' });
      assert.equal((await api.get('/users/{id}', { id })).lastName, 'Client');
      await api.delete('/users/{id}', { id });
      await assert.rejects(api.get('/users/{id}', { id }), (error: unknown) => {
        assert.ok(error instanceof NotFoundError);
        assert.equal(error.status, 404);
        assert.match(error.requestId ?? '', /\S/);
        return true;
      });
    });

    it('iterates a list across pages, following next', async () => {
      const api = client();
      const created = [];
      for (let i = 0; i < 7; i++) created.push(await api.create('/users', { email: `page${i}@example.com`, tags: ['paged'] }));
      const seen: string[] = [];
      for await (const user of api.list('/users', { query: { tags: 'paged', limit: 3 } })) seen.push(user.id);
      assert.deepEqual(seen, created);
    });

    it('throws refusals as typed exceptions carrying fieldErrors', async () => {
      await assert.rejects(client().create('/users', { email: 'not an email' }), (error: unknown) => {
        assert.ok(error instanceof ValidationError);
        assert.equal(error.status, 400);
        assert.deepEqual(Object.keys(error.fieldErrors), ['email']);
        return true;
      });
    });

    it('retries a write refused for its rate, with the same Idempotency-Key', async () => {
      const patient = client({ retries: 5 });
      const impatient = client({ retries: 0 });
      const spent = () =>
        impatient.get('/users/{id}', { id: 'none' }).then(
          () => false,
          (error: unknown) => error instanceof UnavailableError && error.status === 429,
        );
      // The budget frees a little every 50 ms, so a write sent right after a refusal may still get in:
      // spend it again until a write meets it spent (nearly always the first time).
      for (let round = 0; round < 5; round++) {
        while (!(await spent()));
        keys.length = 0;
        const id = await patient.create('/users', { email: `retried${round}@example.com` });
        assert.match(id, /^[0-9a-f]{32}$/);
        if (keys.length < 2) continue;
        assert.ok(keys[0]);
        assert.deepEqual(new Set(keys), new Set([keys[0]]), 'every attempt under the same key');
        return;
      }
      assert.fail('no write met a spent budget in five rounds');
    });
  });
}
