import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { clientsService } from '../../src/oauth/clients.service.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/database.js';
import { ServerProcess } from '../helpers/server-process.js';

// Instances keep the tokens they have resolved: a revocation made anywhere else must still count
// on the very next request to each SQLite instance (PRAGMA data_version is read on every request),
// and on PostgreSQL as soon as the NOTIFY of the revocation reaches the instance's listening
// connection, which under load can be a few milliseconds after the revoking transaction returned.
const NOTIFY_BOUND_MS = 1000;
for (const engine of ENGINES) {
  describe(`token revocation across instances (${engine})`, () => {
    let database: TestDatabase;
    let servers: ServerProcess[] = [];

    before(async () => {
      database = await createTestDatabase(engine);
      servers = [await ServerProcess.start({ DATABASE_URL: database.url })];
      servers.push(await ServerProcess.start({ DATABASE_URL: database.url }));
    });

    after(async () => {
      for (const server of servers) await server.destroy();
      await database.drop();
    });

    async function statusOn(server: ServerProcess, token: string): Promise<number> {
      const reply = await server.request('GET', 'users?limit=1', { token });
      if (reply.status !== 200) assert.match(reply.body, /revoked/);
      return reply.status;
    }

    /** Asks until the token is refused; says after how many requests and how long. */
    async function refusal(server: ServerProcess, token: string): Promise<string> {
      const started = performance.now();
      let requests = 1;
      for (; (await statusOn(server, token)) !== 401; requests += 1) {
        assert.ok(engine === 'postgres' && performance.now() - started < NOTIFY_BOUND_MS, `token still accepted after ${requests} requests`);
        await sleep(5);
      }
      return `refused by request ${requests}, ${Math.round(performance.now() - started)} ms after the revocation`;
    }

    it('refuses a token on every instance as soon as another process revoked it', async (t) => {
      const [organization] = await organizationsRepository(database.db).list();
      const tokens = tokensService(database.db);
      const revoked = await tokens.create(organization!.id, { name: 'revoked soon' });
      const kept = await tokens.create(organization!.id, { name: 'kept' });
      for (const server of servers) {
        for (let round = 0; round < 3; round += 1) {
          assert.equal(await statusOn(server, revoked.token), 200);
          assert.equal(await statusOn(server, kept.token), 200);
        }
      }

      await tokens.revoke(revoked.info.id);
      for (const server of servers) {
        t.diagnostic(await refusal(server, revoked.token));
        assert.equal(await statusOn(server, kept.token), 200);
      }
    });

    it('refuses a token on every instance as soon as one instance revoked it', async (t) => {
      const [organization] = await organizationsRepository(database.db).list();
      const client = await clientsService(database.db).create(organization!.id, { name: 'HR sync' });
      const headers = { authorization: `Basic ${Buffer.from(`${client.info.id}:${client.secret}`).toString('base64')}` };
      const issued = await servers[0]!.request('POST', '/oauth/token', { form: { grant_type: 'client_credentials' }, headers });
      assert.equal(issued.status, 200, issued.body);
      const token = JSON.parse(issued.body).access_token as string;
      for (const server of servers) assert.equal(await statusOn(server, token), 200);

      const revocation = await servers[1]!.request('POST', '/oauth/revoke', { form: { token }, headers });
      assert.equal(revocation.status, 200, revocation.body);
      // The instance that revoked it refuses it at once; the other one as said above.
      assert.equal(await statusOn(servers[1]!, token), 401);
      t.diagnostic(`other instance: ${await refusal(servers[0]!, token)}`);
    });
  });
}
