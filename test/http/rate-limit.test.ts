import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parseRateLimit } from '../../src/config.js';
import { forEachEngine } from '../helpers/harness.js';

forEachEngine(
  'rate limits',
  (h) => {
    it('gives each token its budget, then 429 with Retry-After and RateLimit headers', async () => {
      for (let i = 0; i < 3; i += 1) {
        const response = await h.get('users');
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['ratelimit-limit'], '3');
        assert.equal(response.headers['ratelimit-remaining'], String(2 - i));
      }
      const refused = await h.get('users');
      assert.equal(refused.statusCode, 429);
      assert.deepEqual(refused.json(), { errors: ['Too many requests'] });
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      assert.ok(refused.headers['ratelimit-reset']);
      assert.match(String(refused.headers['x-request-id']), /^[0-9a-f]{32}$/);

      const other = await h.createOrganization('Other');
      assert.equal((await h.get('users', { token: other.token })).statusCode, 200);
    });

    it('does not count requests without a token, nor the public endpoints', async () => {
      for (let i = 0; i < 5; i += 1) {
        assert.equal((await h.get('users', { token: null })).statusCode, 401);
        assert.equal((await h.get('/healthz', { token: null })).statusCode, 200);
      }
    });
  },
  { rateLimit: { max: 3, windowMs: 60_000 } },
);

it('parses RATE_LIMIT settings', () => {
  assert.deepEqual(parseRateLimit('1200/minute'), { max: 1200, windowMs: 60_000 });
  assert.deepEqual(parseRateLimit('5 / Second'), { max: 5, windowMs: 1000 });
  assert.equal(parseRateLimit('off'), undefined);
  assert.throws(() => parseRateLimit('lots'), /RATE_LIMIT must look like/);
  assert.throws(() => parseRateLimit('0/minute'), /RATE_LIMIT/);
});
