import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientsService } from '../../src/oauth/clients.service.js';
import { organizationsRepository } from '../../src/resources/organizations/organizations.repository.js';
import { tokensService } from '../../src/resources/tokens/tokens.service.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/database.js';
import { ServerProcess } from '../helpers/server-process.js';

// Instances keep the tokens they have resolved: a revocation made anywhere else must still count
// on the very next request to each of them.
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

    it('refuses a token on every instance as soon as another process revoked it', async () => {
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
        assert.equal(await statusOn(server, revoked.token), 401);
        assert.equal(await statusOn(server, kept.token), 200);
      }
    });

    it('refuses a token on every instance as soon as one instance revoked it', async () => {
      const [organization] = await organizationsRepository(database.db).list();
      const client = await clientsService(database.db).create(organization!.id, { name: 'HR sync' });
      const headers = { authorization: `Basic ${Buffer.from(`${client.info.id}:${client.secret}`).toString('base64')}` };
      const issued = await servers[0]!.request('POST', '/oauth/token', { form: { grant_type: 'client_credentials' }, headers });
      assert.equal(issued.status, 200, issued.body);
      const token = JSON.parse(issued.body).access_token as string;
      for (const server of servers) assert.equal(await statusOn(server, token), 200);

      const revocation = await servers[1]!.request('POST', '/oauth/revoke', { form: { token }, headers });
      assert.equal(revocation.status, 200, revocation.body);
      for (const server of servers) assert.equal(await statusOn(server, token), 401);
    });
  });
}
