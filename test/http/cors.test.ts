import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';

const APP = 'https://app.example.com';
const PREFLIGHT = { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' };

/** Straight through the app: a preflight's answer belongs to the CORS protocol, not to an operation of the API document. */
function preflight(h: Harness, url: string, headers: Record<string, string> = PREFLIGHT) {
  return h.app.inject({ method: 'OPTIONS', url: url.startsWith('/') ? url : `/api/v5/${url}`, headers });
}

forEachEngine(
  'CORS for the configured origins',
  (h) => {
    it('answers a preflight before authentication, without a token', async () => {
      for (const url of ['users', 'users/00000000000000000000000000000000', '/scim/v2/Users']) {
        const answer = await preflight(h, url);
        assert.equal(answer.statusCode, 204, url);
        assert.equal(answer.body, '');
        assert.equal(answer.headers['access-control-allow-origin'], APP);
        assert.match(String(answer.headers['access-control-allow-methods']), /POST/);
        assert.match(String(answer.headers['access-control-allow-headers']), /Authorization/);
        assert.equal(answer.headers['access-control-allow-credentials'], undefined);
        assert.ok(answer.headers['x-request-id']);
      }
    });

    it('lets a page of an allowed origin read answers, Location included', async () => {
      const created = await h.post('users', { email: 'cors@example.com' }, { headers: { origin: APP } });
      assert.equal(created.statusCode, 201);
      assert.equal(created.headers['access-control-allow-origin'], APP);
      assert.match(String(created.headers['access-control-expose-headers']), /Location/);
      assert.match(String(created.headers.vary), /Origin/);
      const refused = await h.get('users', { token: null, headers: { origin: APP } });
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.headers['access-control-allow-origin'], APP);
    });

    it('gives any other origin no CORS headers, and its OPTIONS the usual 401 and 405', async () => {
      const preflight = await h.request('OPTIONS', 'users', undefined, { token: null, headers: { ...PREFLIGHT, origin: 'https://evil.example' } });
      assert.equal(preflight.statusCode, 401);
      assert.equal(preflight.headers['access-control-allow-origin'], undefined);
      const read = await h.get('users', { headers: { origin: 'https://evil.example' } });
      assert.equal(read.statusCode, 200);
      assert.equal(read.headers['access-control-allow-origin'], undefined);
      const options = await h.request('OPTIONS', 'users');
      assert.equal(options.statusCode, 405);
      assert.equal((await h.request('OPTIONS', 'users', undefined, { token: null })).statusCode, 401);
      assert.equal((await h.request('OPTIONS', 'nowhere')).statusCode, 404);
    });
  },
  { corsOrigins: [APP, 'http://localhost:3000'] },
);

forEachEngine('CORS off by default', (h) => {
  it('answers a preflight like any other unauthenticated request, without CORS headers', async () => {
    const preflight = await h.request('OPTIONS', 'users', undefined, { token: null, headers: PREFLIGHT });
    assert.equal(preflight.statusCode, 401);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    const read = await h.get('users', { headers: { origin: APP } });
    assert.equal(read.headers['access-control-allow-origin'], undefined);
  });
});

it('reads CORS_ORIGINS as a comma list of origins', () => {
  assert.deepEqual(loadConfig({}).corsOrigins, []);
  assert.deepEqual(loadConfig({ CORS_ORIGINS: ' https://a.example , http://localhost:3000 ' }).corsOrigins, [
    'https://a.example',
    'http://localhost:3000',
  ]);
  assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://A.example:443/' }).corsOrigins, ['https://a.example']);
  for (const bad of ['a.example', 'https://a.example/path', '*', 'ftp://a.example', 'https://a.example?x=1']) {
    assert.throws(() => loadConfig({ CORS_ORIGINS: bad }), /CORS_ORIGINS/, bad);
  }
});
