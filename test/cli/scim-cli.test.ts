import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import type { ApiInstance } from '../../src/http/api-instance.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, ALL_ENGINES, engineSkip, type TestDatabase } from '../helpers/database.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

const DEPARTMENT = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department';

for (const engine of ALL_ENGINES) {
  describe(`command line: SCIM tokens and attribute mappings [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    let app: ApiInstance;

    const cli = (...argv: string[]) => runCli(database.url, ...argv);

    before(async () => {
      database = await createTestDatabase(engine);
      app = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: database.db });
    });
    after(async () => {
      await app.close();
      await database.drop();
    });

    it('creates a scim token, maps an enterprise attribute, lists and removes the mapping', async () => {
      const orgId = (await cli('orgs', 'create', '--name', 'Provisioned')).out;
      const scim = (await cli('tokens', 'create', '--org', orgId, '--scopes', 'scim')).out;
      const admin = (await cli('tokens', 'create', '--org', orgId)).out;
      const request = (token: string, method: 'GET' | 'POST', url: string, body?: unknown) =>
        app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(body ? { payload: body } : {}) });
      assert.equal((await request(scim, 'GET', '/scim/v2/Users')).statusCode, 200);
      assert.equal((await request(scim, 'GET', '/api/v5/users')).statusCode, 403);
      assert.equal((await request(admin, 'GET', '/scim/v2/Users')).statusCode, 403);

      const field = (await request(admin, 'POST', '/api/v5/userfields', { type: 'text', name: 'Department', categoryName: 'HR' })).headers.location!;
      const fieldId = String(field).split('/').pop()!;
      const mapped = await cli('scim', 'map', '--org', orgId, '--attribute', DEPARTMENT, '--userfield', fieldId);
      assert.equal(mapped.code, 0, mapped.err);
      assert.equal(mapped.out, `${DEPARTMENT} → ${fieldId}`);
      assert.equal((await cli('scim', 'attributes', '--org', orgId)).out, `${DEPARTMENT}\t${fieldId}`);
      assert.deepEqual(JSON.parse((await cli('scim', 'attributes', '--org', orgId, '--json')).out), { [DEPARTMENT]: fieldId });

      const refused = await cli('scim', 'map', '--org', orgId, '--attribute', 'shoeSize', '--userfield', fieldId);
      assert.equal(refused.code, 2);
      assert.match(refused.err, /not a mappable attribute/);
      assert.equal((await cli('scim', 'map', '--org', orgId, '--attribute', 'title')).code, 2);
      assert.equal((await cli('scim', 'unmap', '--org', orgId, '--attribute', DEPARTMENT)).code, 0);
      assert.equal((await cli('scim', 'attributes', '--org', orgId)).out, '');
      assert.equal((await cli('tokens', 'create', '--org', orgId, '--scopes', 'scim,admin')).code, 2);
    });
  });
}
