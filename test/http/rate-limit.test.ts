import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRateLimit } from '../../src/config.js';
import { addressKey } from '../../src/plugins/rate-limit.js';
import { clientsService } from '../../src/oauth/clients.service.js';
import { forEachEngine, type Harness, type Response } from '../helpers/harness.js';

function assertTooMany(response: Response): void {
  assert.equal(response.statusCode, 429, response.body);
  assert.deepEqual(response.json(), { errors: ['Too many requests'] });
  assert.ok(Number(response.headers['retry-after']) >= 1);
  assert.match(String(response.headers['x-request-id']), /^[0-9a-f]{32}$/);
}

async function injectFrom(h: Harness, address: string, url: string, headers: Record<string, string> = {}): Promise<Response> {
  return await h.app.inject({ method: 'GET', url, headers, remoteAddress: address });
}

forEachEngine(
  'rate limits',
  (h) => {
    it('gives each token its budget, then 429 with Retry-After and RateLimit headers', async () => {
      const token = await h.token(h.org.id);
      for (let i = 0; i < 3; i += 1) {
        const response = await h.get('users', { token });
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['ratelimit-limit'], '3');
        assert.equal(response.headers['ratelimit-remaining'], String(2 - i));
        assert.ok(Number(response.headers['ratelimit-reset']) >= 1);
      }
      assertTooMany(await h.get('users', { token }));
      assert.equal((await h.get('users', { token: await h.token(h.org.id) })).statusCode, 200);
    });

    it('counts what is refused after authentication against the token: 400, 404, 405', async () => {
      const token = await h.token(h.org.id);
      assert.equal((await h.get('users?limit=0', { token })).statusCode, 400);
      assert.equal((await h.get(`users/${'0'.repeat(32)}`, { token })).statusCode, 404);
      assert.equal((await h.request('PATCH', 'users', undefined, { token })).statusCode, 405);
      assertTooMany(await h.get('users', { token }));
    });

    it('counts requests without a valid token against their address, and then refuses them', async () => {
      const address = '203.0.113.7';
      const statuses: number[] = [];
      const attempts: Record<string, string>[] = [
        {},
        { authorization: 'Bearer tpa_never-issued' },
        { authorization: `Bearer tpa_${'x'.repeat(43)}` },
        {},
        {},
      ];
      for (const headers of attempts) {
        statuses.push((await injectFrom(h, address, '/api/v5/users', headers)).statusCode);
      }
      assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
      // Bad tokens stay refused once the address's budget is spent, malformed or not, and so do unknown addresses.
      assertTooMany(await injectFrom(h, address, '/api/v5/users', { authorization: `Bearer tpa_${'y'.repeat(43)}` }));
      assertTooMany(await injectFrom(h, address, '/api/v5/users', { authorization: 'Basic abc' }));
      assert.equal((await injectFrom(h, address, '/scim/v2/Users')).statusCode, 429);
      assertTooMany(await injectFrom(h, address, '/wp-login.php'));
      // Another address is not concerned.
      assert.equal((await injectFrom(h, '203.0.113.8', '/api/v5/users')).statusCode, 401);
    });

    it('serves a valid token from an address whose bad tokens spent its budget, on the budget of the token', async () => {
      // A stranger behind the same address translation must not lock out the callers who share it.
      const address = '203.0.113.20';
      for (let i = 0; i < 3; i++)
        assert.equal((await injectFrom(h, address, '/api/v5/users', { authorization: 'Bearer tpa_guess' })).statusCode, 401);
      assertTooMany(await injectFrom(h, address, '/api/v5/users', { authorization: 'Bearer tpa_guess' }));
      const authorization = `Bearer ${await h.token(h.org.id)}`;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await injectFrom(h, address, '/api/v5/users', { authorization })).statusCode);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      const scim = `Bearer ${await h.token(h.org.id, { scopes: ['scim'] })}`;
      assert.equal((await injectFrom(h, address, '/scim/v2/Users', { authorization: scim })).statusCode, 200);
      assertTooMany(await injectFrom(h, address, '/api/v5/users', { authorization: 'Bearer tpa_guess' }));
    });

    it('counts 403 answers against the token: insufficient_scope, and a token of the other API', async () => {
      const cases: [string, string, string][] = [
        [await h.token(h.org.id, { scopes: ['read'] }), 'DELETE', `/api/v5/users/${'0'.repeat(32)}`],
        [await h.token(h.org.id, { scopes: ['read', 'write'] }), 'GET', '/scim/v2/Users'],
        [await h.token(h.org.id, { scopes: ['scim'] }), 'GET', '/api/v5/users'],
      ];
      for (const [token, method, url] of cases) {
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) {
          const response = await h.app.inject({
            method: method as 'GET',
            url,
            headers: { authorization: `Bearer ${token}` },
            remoteAddress: '203.0.113.30',
          });
          statuses.push(response.statusCode);
        }
        assert.deepEqual(statuses, [403, 403, 403, 429], `${method} ${url}`);
      }
    });

    it('counts unknown addresses outside the API against the address too', async () => {
      const address = '203.0.113.9';
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await injectFrom(h, address, '/wp-login.php')).statusCode);
      assert.deepEqual(statuses, [404, 404, 404, 429]);
      const counted = await injectFrom(h, '203.0.113.10', '/wp-login.php');
      assert.equal(counted.headers['ratelimit-remaining'], '2');
    });

    it('never counts the health probes', async () => {
      for (let i = 0; i < 10; i += 1) {
        assert.equal((await injectFrom(h, '203.0.113.11', '/healthz')).statusCode, 200);
        assert.equal((await injectFrom(h, '203.0.113.11', '/readyz')).statusCode, 200);
      }
    });

    describe('the OAuth token endpoint', () => {
      it('has a stricter budget per client, counted once the client is authenticated', async () => {
        const { info, secret } = await clientsService(h.database.db).create(h.org.id);
        const authorization = `Basic ${Buffer.from(`${info.id}:${secret}`).toString('base64')}`;
        const token = (address: string) =>
          h.app.inject({
            method: 'POST',
            url: '/oauth/token',
            remoteAddress: address,
            headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
            payload: 'grant_type=client_credentials',
          }) as Promise<Response>;
        // Two per window and client, from addresses with budget to spare.
        assert.equal((await token('198.51.100.1')).statusCode, 200);
        assert.equal((await token('198.51.100.2')).statusCode, 200);
        assertTooMany(await token('198.51.100.3'));
      });

      it('and per address, whoever asks', async () => {
        const guess = () =>
          h.app.inject({
            method: 'POST',
            url: '/oauth/token',
            remoteAddress: '198.51.100.9',
            headers: { authorization: `Basic ${btoa('someone:guess')}`, 'content-type': 'application/x-www-form-urlencoded' },
            payload: 'grant_type=client_credentials',
          }) as Promise<Response>;
        assert.equal((await guess()).statusCode, 401);
        assert.equal((await guess()).statusCode, 401);
        assertTooMany(await guess());
      });
    });
  },
  { rateLimit: { api: { max: 3, windowMs: 60_000 }, oauth: { max: 2, windowMs: 60_000 } } },
);

/** The rate limiter's time, set by the test: a window's edge is where the test puts it, however busy the machine. */
let windowClock = Date.UTC(2026, 0, 1);

forEachEngine(
  'rate limit across a window edge',
  (h) => {
    it('keeps a burst at the end of one window and the start of the next within the limit', async () => {
      const token = await h.token(h.org.id);
      // The last fifth of a second, where a fixed window of one second would be about to start afresh...
      windowClock = Math.ceil(windowClock / 1000) * 1000 + 10_800;
      const first = await Promise.all(Array.from({ length: 5 }, () => h.get('users', { token })));
      // ... and the next second's first moments.
      windowClock += 300;
      const second = await Promise.all(Array.from({ length: 5 }, () => h.get('users', { token })));
      const admitted = [...first, ...second].filter((response) => response.statusCode === 200).length;
      assert.equal(admitted, 5, [...first, ...second].map((response) => response.statusCode).join(' '));
      // A whole window later the budget is back.
      windowClock += 1100;
      assert.equal((await h.get('users', { token })).statusCode, 200);
    });
  },
  { rateLimit: { api: { max: 5, windowMs: 1000 }, clock: () => windowClock } },
);

it('keys IPv6 addresses by their /64, and IPv4-mapped ones as IPv4', () => {
  assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
  assert.equal(addressKey('::ffff:192.0.2.1'), '192.0.2.1');
  assert.equal(addressKey('192.0.2.1'), '192.0.2.1');
});

it('parses RATE_LIMIT settings', () => {
  assert.deepEqual(parseRateLimit('1200/minute'), { max: 1200, windowMs: 60_000 });
  assert.deepEqual(parseRateLimit('5 / Second'), { max: 5, windowMs: 1000 });
  assert.equal(parseRateLimit('off'), undefined);
  assert.throws(() => parseRateLimit('lots'), /RATE_LIMIT must look like/);
  assert.throws(() => parseRateLimit('0/minute', 'OAUTH_RATE_LIMIT'), /OAUTH_RATE_LIMIT/);
});
