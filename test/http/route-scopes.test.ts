import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import type { InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Scope } from '../../src/auth/scopes.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import type { ApiInstance } from '../../src/http/api-instance.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { ALL_ENGINES, createTestDatabase, engineSkip, type TestDatabase } from '../helpers/database.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ID = '0190f5d2a1b27c3d8e4f5a6b7c8d9e0f';

for (const engine of ALL_ENGINES) {
  describe(`each route's declared scope [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    let app: ApiInstance;
    const tokens = {} as Record<Scope, string>;

    before(async () => {
      database = await createTestDatabase(engine);
      app = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: database.db });
      // Scopes a method would not suggest: only the declaration can give them.
      app.post('/api/v5/probes/read', { config: { scope: 'read' } }, async () => ({ probed: true }));
      app.get('/api/v5/probes/write', { config: { scope: 'write' } }, async () => ({ probed: true }));
      await app.ready();
      const organization = await organizationsRepository(database.db).create('Scopes');
      for (const scope of ['read', 'write', 'scim'] as const) {
        tokens[scope] = (await tokensService(database.db).create(organization.id, { scopes: [scope] })).token;
      }
    });
    after(async () => {
      await app?.close();
      await database?.drop();
    });

    const send = (method: InjectOptions['method'], url: string, scope: Scope) =>
      app.inject({ method, url, headers: { authorization: `Bearer ${tokens[scope]}` } });

    it('checks the scope the route declares, whatever its method', async () => {
      const read = await send('POST', '/api/v5/probes/read', 'read');
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(read.json(), { probed: true });
      const refused = await send('GET', '/api/v5/probes/write', 'read');
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().error, 'insufficient_scope');
      assert.match(String(refused.headers['www-authenticate']), /scope="write"$/);
      assert.equal((await send('GET', '/api/v5/probes/write', 'write')).statusCode, 200);
      assert.equal((await send('POST', '/api/v5/probes/read', 'write')).statusCode, 200, 'write grants read');
      assert.equal((await send('POST', '/api/v5/probes/read', 'scim')).statusCode, 403);
    });

    it('answers every operation of the OpenAPI document as its security says: 403 to a token whose scope it lists not', async () => {
      const doc = app.swagger() as { paths: Record<string, Record<string, { security?: Record<string, string[]>[]; responses?: unknown }>> };
      const problems: string[] = [];
      let operations = 0;
      for (const [path, item] of Object.entries(doc.paths)) {
        if (path.startsWith('/oauth/') || path.startsWith('/probes/')) continue;
        for (const [method, operation] of Object.entries(item)) {
          if (!operation.responses) continue;
          operations += 1;
          const granting = new Set((operation.security ?? []).flatMap((requirement) => Object.values(requirement).flat()));
          if (granting.size === 0) problems.push(`${method} ${path} states no scope`);
          const url = `/api/v5${path.replace(/\{[^}]+\}/g, ID)}`;
          for (const scope of ['read', 'write', 'scim'] as const) {
            const response = await send(method.toUpperCase(), url, scope);
            const refused = response.statusCode === 403 && response.json().error === 'insufficient_scope';
            if (refused === granting.has(scope)) problems.push(`${method} ${path} with a ${scope} token: ${response.statusCode} ${response.body}`);
          }
        }
      }
      assert.equal(operations, 51);
      assert.deepEqual(problems, []);
    });

    it('refuses, as it is added, a route of either API that declares no scope: the app does not start with it', async () => {
      const unready = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: database.db });
      try {
        assert.throws(() => unready.get('/api/v5/unscoped', async () => ({})), /^Error: GET \/api\/v5\/unscoped declares no scope/);
        assert.throws(() => unready.post('/scim/v2/Unscoped', async () => ({})), /^Error: POST \/scim\/v2\/Unscoped declares no scope/);
        unready.get('/elsewhere', async () => ({}));
      } finally {
        await unready.close();
      }
    });
  });
}

describe('npm run lint: a route without a declared scope', () => {
  let linter: Linter;
  let config: Linter.Config[];
  before(async () => {
    const { routeScope } = await import(pathToFileURL(join(ROOT, 'scripts/eslint-route-scope.mjs')).href);
    linter = new Linter({ configType: 'flat' });
    config = [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { routes: { rules: { scope: routeScope } } },
        rules: { 'routes/scope': 'error' },
      },
    ];
  });
  const reported = (code: string) => linter.verify(code, config, 'routes.ts').map(({ line, message }) => `${line}: ${message.split(':')[0]}`);

  it("fails on a route of Fastify's whose options carry no config.scope, and on a route of a definition without scope", () => {
    const code = [
      "app.get('/users', async () => ({}));",
      "app.post('/users', { schema: { summary: 'Create' } }, async () => ({}));",
      'app.put(`/${collection}/:id`, { config: { primaryReads: true } }, async () => ({}));',
      "collectionRoutes(app, { collection: 'users', list: { summary: 'List', query }, get: { summary: 'Get', scope: 'read' } });",
      "itemRoutes(app, { url: '/x', get: { summary: 'Get', scope: 'read', read }, put: { summary: 'Put', write } });",
      "listRoute(app, '/agreements', { name: 'agreements', summary: 'List' }, list);",
    ].join('\n');
    assert.deepEqual(reported(code), [
      '1: This route declares no scope',
      '2: This route declares no scope',
      '3: This route declares no scope',
      '4: Its list route declares no scope',
      '5: Its put route declares no scope',
      '6: This route declares no scope',
    ]);
  });

  it('passes routes that declare one, and calls that are no routes', () => {
    const code = [
      "app.get('/users', { config: { scope: 'read' } }, async () => ({}));",
      "app.post('/Users', { schema: {}, config: { scope: 'scim', primaryReads: true } }, async () => ({}));",
      "collectionRoutes(app, { list: { summary: 'List', scope: 'read', query }, delete: { ...deletion } });",
      'https.get({ host, path: "/healthz" }, (response) => response.resume());',
      'cache.get(key);',
    ].join('\n');
    assert.deepEqual(reported(code), []);
  });
});
