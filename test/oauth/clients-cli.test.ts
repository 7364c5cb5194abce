import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, ALL_ENGINES, engineSkip, type TestDatabase } from '../helpers/database.js';

for (const engine of ALL_ENGINES) {
  describe(`training-api clients [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    let orgId: string;

    const cli = (...argv: string[]) => runCli(database.url, ...argv);

    before(async () => {
      database = await createTestDatabase(engine);
      orgId = (await organizationsRepository(database.db).create('Clients')).id;
    });
    after(() => database.drop());

    it('creates a client, showing its secret once, lists it without the secret, and revokes it', async () => {
      const created = await cli('clients', 'create', '--org', orgId, '--name', 'Payroll', '--scopes', 'read');
      assert.equal(created.code, 0, created.err);
      const [clientId, secret] = created.out.split('\t');
      assert.match(clientId!, /^[0-9a-f]{32}$/);
      assert.match(secret!, /^tpcs_[A-Za-z0-9_-]{43}$/);

      const listed = await cli('clients', 'list', '--org', orgId, '--json');
      const clients = JSON.parse(listed.out);
      assert.equal(clients.length, 1);
      assert.deepEqual({ id: clients[0].id, name: clients[0].name, scopes: clients[0].scopes }, { id: clientId, name: 'Payroll', scopes: ['read'] });
      assert.equal(listed.out.includes(secret!), false);
      const stored = await database.db.selectFrom('oauth_clients').select('secret_hash').executeTakeFirstOrThrow();
      assert.match(stored.secret_hash, /^[0-9a-f]{64}$/);

      const revoked = await cli('clients', 'revoke', clientId!, '--json');
      assert.equal(revoked.code, 0);
      assert.ok(JSON.parse(revoked.out).revokedDate);
    });

    it('refuses an unknown organization, an unknown client and a bad scope list with exit code 2', async () => {
      assert.equal((await cli('clients', 'create', '--org', '0'.repeat(32))).code, 2);
      assert.equal((await cli('clients', 'create')).code, 2);
      assert.equal((await cli('clients', 'create', '--org', orgId, '--scopes', 'admin')).code, 2);
      assert.equal((await cli('clients', 'create', '--org', orgId, '--scopes', '')).code, 2);
      const unknown = await cli('clients', 'revoke', '0'.repeat(32));
      assert.equal(unknown.code, 2);
      assert.match(unknown.err, /No OAuth client has the id/);
    });
  });
}
