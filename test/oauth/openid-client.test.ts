import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { main } from '../../src/cli/main.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { createTestDatabase, ALL_ENGINES, engineSkip, type TestDatabase } from '../helpers/database.js';
import { ServerProcess } from '../helpers/server-process.js';

/** A maintained OAuth client library, as an integrator would use it, against a real server process over HTTPS. */
for (const engine of ALL_ENGINES) {
  describe(`OAuth with openid-client [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    let server: ServerProcess;
    let agent: Agent;
    let orgId: string;
    let clientId: string;
    let clientSecret: string;

    /** The server's own self-signed certificate is the only one trusted. */
    const trustingFetch: oauth.CustomFetch = (url, options) => undiciFetch(url, { ...options, dispatcher: agent });

    async function configuration(secret = clientSecret): Promise<oauth.Configuration> {
      return oauth.discovery(new URL(`https://127.0.0.1:${server.port}`), clientId, undefined, oauth.ClientSecretBasic(secret), {
        algorithm: 'oauth2',
        [oauth.customFetch]: trustingFetch,
      });
    }

    before(async () => {
      database = await createTestDatabase(engine);
      orgId = (await organizationsRepository(database.db).create('Integrations')).id;
      const out: string[] = [];
      const code = await main(
        ['clients', 'create', '--org', orgId, '--name', 'HR sync', '--json'],
        { DATABASE_URL: database.url },
        {
          out: (line) => out.push(line),
          err: () => {},
        },
      );
      assert.equal(code, 0);
      ({ clientId, clientSecret } = JSON.parse(out.join('\n')));
      server = await ServerProcess.start({ DATABASE_URL: database.url });
      agent = new Agent({ connect: { ca: await readFile(join(server.dataDir, 'tls', 'cert.pem')), servername: 'localhost' } });
    });
    after(async () => {
      await agent?.close();
      await server?.destroy();
      await database?.drop();
    });

    it('discovers the server, gets a token with the client credentials grant, and calls the API with it', async () => {
      const config = await configuration();
      const tokens = await oauth.clientCredentialsGrant(config, { scope: 'read write' });
      assert.equal(tokens.token_type, 'bearer');
      assert.equal(tokens.scope, 'read write');
      assert.ok(tokens.expiresIn()! > 3500);
      const created = await server.request('POST', 'users', { token: tokens.access_token, body: { email: 'via-oauth@example.com' } });
      assert.equal(created.status, 201, created.body);
      const listed = await server.request('GET', 'users', { token: tokens.access_token });
      assert.equal(JSON.parse(listed.body).results[0].email, 'via-oauth@example.com');
    });

    it('narrows the scope, revokes the token through the library, and the API refuses it at once', async () => {
      const config = await configuration();
      const tokens = await oauth.clientCredentialsGrant(config, { scope: 'read' });
      assert.equal(tokens.scope, 'read');
      assert.equal((await server.request('POST', 'users', { token: tokens.access_token, body: { email: 'no@example.com' } })).status, 403);
      await oauth.tokenRevocation(config, tokens.access_token);
      const refused = await server.request('GET', 'users', { token: tokens.access_token });
      assert.equal(refused.status, 401);
      assert.match(String(refused.headers['www-authenticate']), /error="invalid_token"/);
    });

    it("surfaces the server's refusals as the library's typed errors", async () => {
      // A 401 carries the Basic challenge RFC 6749 §5.2 asks for, which the library reports as such, with the body beside it.
      const refusal = await oauth.clientCredentialsGrant(await configuration(`${clientSecret}-wrong`)).catch((error: unknown) => error);
      assert.ok(refusal instanceof oauth.WWWAuthenticateChallengeError, String(refusal));
      assert.equal(refusal.status, 401);
      assert.equal(refusal.cause[0]!.scheme, 'basic');
      assert.equal(((await refusal.response.json()) as { error: string }).error, 'invalid_client');
      await assert.rejects(oauth.clientCredentialsGrant(await configuration(), { scope: 'admin' }), (error: oauth.ResponseBodyError) => {
        assert.equal(error.error, 'invalid_scope');
        return true;
      });
    });
  });
}
