import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';

function from(h: Harness, remoteAddress: string, url: string, headers: Record<string, string>) {
  return h.app.inject({
    method: 'GET',
    url,
    remoteAddress,
    headers: { host: 'api.example.com', authorization: `Bearer ${h.org.token}`, ...headers },
  });
}

function loggedAddress(h: Harness, requestId: string): string | undefined {
  return h.logs.map((line) => JSON.parse(line)).find((entry) => entry.requestId === requestId && entry.req)?.req.remoteAddress;
}

forEachEngine(
  'allowed hosts',
  (h) => {
    it('serves the configured hosts, with any port or case', async () => {
      for (const host of ['api.example.com', 'API.example.com:8443', 'localhost:3000', '[::1]:8443']) {
        const created = await h.post('users', { email: `${host.length}.${Math.random()}@example.com` }, { headers: { host } });
        assert.equal(created.statusCode, 201, host);
        assert.match(String(created.headers.location), new RegExp(`^http://${host.replace(/[[\]]/g, '\\$&')}/api/v5/users/`));
      }
    });

    it('refuses any other host with a 400 before anything is built from it', async () => {
      for (const host of ['evil.example', 'api.example.com.evil.example', 'evil.example:443']) {
        for (const response of [
          await h.post('users', { email: 'evil@example.com' }, { headers: { host } }),
          await h.get('users', { headers: { host } }),
          await h.get('users', { token: null, headers: { host } }),
        ]) {
          assert.equal(response.statusCode, 400, host);
          assert.deepEqual(response.json(), {
            message: 'The Host header names a host this server does not serve',
            errors: ['The Host header names a host this server does not serve'],
          });
          assert.equal(response.headers.location, undefined);
          assert.ok(response.headers['x-request-id']);
        }
      }
      assert.deepEqual((await h.get('users', { query: { email: 'evil@example.com' } })).json().results, []);
    });

    it('answers health probes whatever host they name', async () => {
      assert.equal((await h.get('/healthz', { token: null, headers: { host: '10.1.2.3:8443' } })).statusCode, 200);
    });
  },
  { allowedHosts: ['api.example.com', 'localhost', '::1'] },
);

forEachEngine(
  'behind configured proxies',
  (h) => {
    it('believes X-Forwarded-* only from a configured proxy', async () => {
      const viaProxy = await from(h, '10.0.0.5', '/api/v5/users', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' });
      assert.equal(viaProxy.statusCode, 200);
      assert.equal(loggedAddress(h, String(viaProxy.headers['x-request-id'])), '203.0.113.7');

      const direct = await from(h, '198.51.100.9', '/api/v5/users', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '6.6.6.6' });
      assert.equal(direct.statusCode, 403);
      assert.deepEqual(direct.json(), { errors: ['HTTPS is required'] });
      assert.equal(loggedAddress(h, String(direct.headers['x-request-id'])), '198.51.100.9');
    });

    it('logs the address the proxy saw, not one the client wrote in front of it', async () => {
      const spoofed = await from(h, '10.0.0.5', '/api/v5/users', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '6.6.6.6, 203.0.113.8' });
      assert.equal(spoofed.statusCode, 200);
      assert.equal(loggedAddress(h, String(spoofed.headers['x-request-id'])), '203.0.113.8');
    });

    it('takes the forwarded host from the proxy only, and checks it', async () => {
      const forwarded = await from(h, '10.0.0.5', '/api/v5/users', {
        host: 'internal:8080',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'api.example.com',
      });
      assert.equal(forwarded.statusCode, 200);
      const evil = await from(h, '10.0.0.5', '/api/v5/users', {
        host: 'api.example.com',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'evil.example',
      });
      assert.equal(evil.statusCode, 400);
    });
  },
  { trustProxy: ['10.0.0.0/8'], allowedHosts: ['api.example.com'] },
);

it('reads ALLOWED_HOSTS and TRUST_PROXY', () => {
  assert.deepEqual(loadConfig({}).allowedHosts, ['127.0.0.1', 'localhost', '127.0.0.1', '::1']);
  assert.deepEqual(loadConfig({ HOST: '0.0.0.0' }).allowedHosts, ['0.0.0.0', 'localhost', '127.0.0.1', '::1']);
  assert.deepEqual(loadConfig({ PUBLIC_URL: 'https://Training.example.com' }).allowedHosts, ['training.example.com']);
  assert.deepEqual(loadConfig({ PUBLIC_URL: 'https://a.example', ALLOWED_HOSTS: 'b.example, C.example' }).allowedHosts, [
    'a.example',
    'b.example',
    'c.example',
  ]);
  assert.equal(loadConfig({ ALLOWED_HOSTS: '*' }).allowedHosts, undefined);

  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  assert.deepEqual(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, ['loopback', 'linklocal', 'uniquelocal']);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.5, 192.168.0.0/16,::1' }).trustProxy, ['10.0.0.5', '192.168.0.0/16', '::1']);
  for (const bad of ['proxy.example', '10.0.0.0/8/8', '*']) assert.throws(() => loadConfig({ TRUST_PROXY: bad }), /TRUST_PROXY/, bad);
});
