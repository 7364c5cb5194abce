import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import { loadConfig } from '../../src/config.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { ServerProcess } from '../helpers/server-process.js';

function from(h: Harness, remoteAddress: string, url: string, headers: Record<string, string>) {
  return h.app.inject({
    method: 'GET',
    url,
    remoteAddress,
    headers: { host: 'api.example.com', authorization: `Bearer ${h.org.token}`, ...headers },
  });
}

/** The 400 of a Host naming none of the hosts served: what it got, and the settings that serve it. */
function unknownHost(host: string) {
  const message = `The Host header names "${host}", a host this server does not serve: set PUBLIC_URL to the address clients use, or add the host to ALLOWED_HOSTS`;
  return { message, errors: [message] };
}

function loggedAddress(h: Harness, requestId: string): string | undefined {
  return h.logs.map((line) => JSON.parse(line)).find((entry) => entry.requestId === requestId && entry.req)?.req.remoteAddress;
}

forEachEngine(
  'allowed hosts',
  (h) => {
    // Requests made with inject have no connection, hence no port to check (see the real connections below).
    it('serves the configured hosts, in any case, with links to the host named', async () => {
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
          assert.deepEqual(response.json(), unknownHost(host));
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

interface RawAnswer {
  status: number;
  body: any;
}

/** Sends `head` (request line and headers, without the blank line) over a new TLS connection, as written. */
async function rawRequest(port: number, head: string): Promise<RawAnswer> {
  const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, servername: 'localhost' });
  await once(socket, 'secureConnect');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.write(`${head}\r\nConnection: close\r\n\r\n`);
  await once(socket, 'close');
  const [lines = '', body = ''] = received.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(lines)?.[1] ?? 0), body: body ? JSON.parse(body) : undefined };
}

describe('hosts over real connections', { timeout: 120_000 }, () => {
  let server: ServerProcess;
  let behindUrl: ServerProcess;
  let token: string;
  let publicToken: string;

  before(async () => {
    [server, behindUrl] = await Promise.all([ServerProcess.start(), ServerProcess.start({ PUBLIC_URL: 'https://api.example.com' })]);
    [token, publicToken] = await Promise.all([server.bootstrapToken(), behindUrl.bootstrapToken()]);
    for (const [each, bearer, host] of [
      [server, token, `127.0.0.1:${server.port}`],
      [behindUrl, publicToken, 'api.example.com'],
    ] as const) {
      for (const email of ['first@example.com', 'second@example.com']) {
        assert.equal((await each.request('POST', 'users', { token: bearer, body: { email }, headers: { host } })).status, 201);
      }
    }
  });
  after(() => Promise.all([server?.destroy(), behindUrl?.destroy()]));

  it('checks the authority of an absolute-form target as the Host, and builds links from its path alone', async () => {
    const own = `127.0.0.1:${server.port}`;
    const get = (target: string, host = own) => rawRequest(server.port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}`);

    const evil = await get('https://evil.example/api/v5/users?limit=1');
    assert.equal(evil.status, 400);
    assert.deepEqual(evil.body, unknownHost('evil.example'));
    assert.equal((await get(`https://evil.example:${server.port}/api/v5/users?limit=1`)).status, 400);

    const served = await get(`https://${own}/api/v5/users?limit=1`);
    assert.equal(served.status, 200);
    assert.equal(served.body.next, `https://${own}/api/v5/users?limit=1&offset=1`);
    // RFC 9112 §3.2.2: the target's authority is the host, whatever the Host header says.
    const named = await get(`https://localhost:${server.port}/api/v5/users?limit=1`, 'evil.example');
    assert.equal(named.status, 200);
    assert.equal(named.body.next, `https://localhost:${server.port}/api/v5/users?limit=1&offset=1`);

    const publicEvil = await rawRequest(
      behindUrl.port,
      `GET https://evil.example/api/v5/users?limit=1 HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer ${publicToken}`,
    );
    assert.equal(publicEvil.status, 400);
    const publicServed = await rawRequest(
      behindUrl.port,
      `GET https://api.example.com/api/v5/users?limit=1 HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer ${publicToken}`,
    );
    assert.equal(publicServed.status, 200);
    assert.equal(publicServed.body.next, 'https://api.example.com/api/v5/users?limit=1&offset=1');
  });

  it('refuses a Host whose port is not the one the server listens on, unless PUBLIC_URL makes links independent of it', async () => {
    const get = (port: number, host: string, bearer = token) =>
      rawRequest(port, `GET /api/v5/users?limit=1 HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${bearer}`);
    for (const host of ['localhost:1', 'localhost', `localhost:${server.port + 1}`, '127.0.0.1:443']) {
      const refused = await get(server.port, host);
      assert.equal(refused.status, 400, host);
      const message = `The Host header names "${host}", but this server listens on port ${server.port}: name that port, or set PUBLIC_URL to the address clients use (behind a port mapping)`;
      assert.deepEqual(refused.body, { message, errors: [message] });
    }
    // A proxy such as nginx forwarding the public name, with neither PUBLIC_URL nor ALLOWED_HOSTS naming it.
    const proxied = await get(server.port, 'training.example.com');
    assert.equal(proxied.status, 400);
    assert.deepEqual(proxied.body, unknownHost('training.example.com'));
    const long = `${'h'.repeat(300)}.example`;
    assert.deepEqual((await get(server.port, long)).body, unknownHost(`${'h'.repeat(261)}...`));
    const served = await get(server.port, `LOCALHOST:${server.port}`);
    assert.equal(served.status, 200);
    assert.equal(served.body.next, `https://LOCALHOST:${server.port}/api/v5/users?limit=1&offset=1`);
    assert.equal((await get(server.port, `[::1]:${server.port}`)).status, 200);
    // Health probes reach an instance by its address, whatever port a balancer names.
    assert.equal((await rawRequest(server.port, 'GET /healthz HTTP/1.1\r\nHost: 10.1.2.3:80')).status, 200);

    const behind = await get(behindUrl.port, 'api.example.com:1', publicToken);
    assert.equal(behind.status, 200);
    assert.equal(behind.body.next, 'https://api.example.com/api/v5/users?limit=1&offset=1');
  });

  it('refuses a request with two Host headers (RFC 9112 §3.2): 400 in the v5 shape', async () => {
    const own = `127.0.0.1:${server.port}`;
    for (const second of [own, 'evil.example']) {
      const refused = await rawRequest(
        server.port,
        `GET /api/v5/users HTTP/1.1\r\nHost: ${own}\r\nHost: ${second}\r\nAuthorization: Bearer ${token}`,
      );
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, {
        message: 'An HTTP request must carry exactly one Host header',
        errors: ['An HTTP request must carry exactly one Host header'],
      });
    }
  });
});
