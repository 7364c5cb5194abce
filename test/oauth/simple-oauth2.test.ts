import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ClientCredentials } from 'simple-oauth2';
import { main } from '../../src/cli/main.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { createTestDatabase, ALL_ENGINES, engineSkip, type TestDatabase } from '../helpers/database.js';
import { ServerProcess } from '../helpers/server-process.js';

/**
 * simple-oauth2, a widely used OAuth client, against a real server process over HTTPS. It reads
 * every answer as strict JSON, revocation's included.
 */
for (const engine of ALL_ENGINES) {
  describe(`OAuth with simple-oauth2 [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    let server: ServerProcess;
    let agent: Agent;
    let client: ClientCredentials;

    before(async () => {
      database = await createTestDatabase(engine);
      const orgId = (await organizationsRepository(database.db).create('Integrations')).id;
      const out: string[] = [];
      const code = await main(
        ['clients', 'create', '--org', orgId, '--json'],
        { DATABASE_URL: database.url },
        { out: (line) => out.push(line), err: () => {} },
      );
      assert.equal(code, 0);
      const { clientId, clientSecret } = JSON.parse(out.join('\n'));
      server = await ServerProcess.start({ DATABASE_URL: database.url });
      // The server's own self-signed certificate is the only one trusted.
      agent = new Agent({ ca: await readFile(join(server.dataDir, 'tls', 'cert.pem')), servername: 'localhost' });
      client = new ClientCredentials({
        client: { id: clientId, secret: clientSecret },
        auth: { tokenHost: `https://127.0.0.1:${server.port}`, tokenPath: '/oauth/token', revokePath: '/oauth/revoke' },
        options: { authorizationMethod: 'header' },
      });
    });
    after(async () => {
      agent?.destroy();
      await server?.destroy();
      await database?.drop();
    });

    it('gets a token, revokes it with revoke(), and the API refuses it at once', async () => {
      const token = await client.getToken({ scope: 'read' }, { agent });
      assert.equal(token.token.scope, 'read');
      assert.equal((await server.request('GET', 'users', { token: String(token.token.access_token) })).status, 200);
      await token.revoke('access_token', { agent });
      const refused = await server.request('GET', 'users', { token: String(token.token.access_token) });
      assert.equal(refused.status, 401);
      // Revoking it again is no error either (RFC 7009 §2.2).
      await token.revoke('access_token', { agent });
    });
  });
}
