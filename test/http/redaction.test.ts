import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { before, it } from 'node:test';
import { loggableUrl } from '../../src/plugins/logging.js';
import { forEachEngine } from '../helpers/harness.js';

const lines: string[] = [];
const trace = {
  level: 'trace',
  stream: new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  }),
};

/** Percent-encodes every character of `text`. */
const encodedWhole = (text: string) => [...Buffer.from(text)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');

forEachEngine(
  'secrets in URLs at LOG_LEVEL=trace',
  (h) => {
    let secrets: string[];
    before(async () => {
      const other = await h.token(h.org.id);
      const clientSecret = `tpcs_${'s'.repeat(43)}`;
      secrets = [h.org.token, other, clientSecret];
      const requests: Array<[string, string, Record<string, string>?]> = [
        ['GET', `/api/v5/users?%61ccess_token=${other}`],
        ['GET', `/api/v5/users?apikey=${other}`],
        ['GET', `/api/v5/users?API-Key=${other}&limit=5`],
        ['GET', `/api/v5/users?note=${other}`],
        ['GET', `/api/v5/users?note=${encodedWhole(other)}`],
        ['GET', `/api/v5/users?${other}`],
        ['GET', `/api/v5/users/${other}`, { authorization: `Bearer ${h.org.token}` }],
        ['GET', `/api/v5/${encodedWhole(other)}/x`, { authorization: `Bearer ${h.org.token}` }],
        ['GET', `/api/v5/users/${other}%zz`],
        ['POST', `/oauth/token?client_secret=${clientSecret}`],
        ['GET', `/api/v5/users`, { 'x-request-id': other, authorization: `Bearer ${h.org.token}` }],
      ];
      for (const [method, url, headers] of requests) {
        const response = await h.app.inject({ method: method as 'GET', url, headers });
        assert.ok(response.statusCode < 500, `${method} ${url}: ${response.statusCode}`);
        assert.notEqual(response.headers['x-request-id'], other);
      }
    });

    it('logged every request', () => {
      assert.ok(lines.filter((line) => JSON.parse(line).req).length >= 11);
    });

    it('never writes a secret into the log, however the URL carries it', () => {
      const text = lines.join('');
      for (const secret of secrets) {
        assert.equal(text.includes(secret), false, `the log holds ${secret}`);
        assert.equal(text.includes(secret.slice(4, 24)), false, `the log holds part of ${secret}`);
      }
      assert.ok(text.includes('[redacted]'));
    });
  },
  { logger: trace },
);

it('masks secrets in URLs by name and by shape, and keeps the rest readable', () => {
  const token = `tpa_${'a'.repeat(43)}`;
  assert.equal(loggableUrl(`/api/v5/users?%61ccess_token=${token}&limit=5`), '/api/v5/users?%61ccess_token=[redacted]&limit=5');
  assert.equal(loggableUrl('/api/v5/users?password=hunter2&email=a%40b.c'), '/api/v5/users?password=[redacted]&email=a%40b.c');
  assert.equal(loggableUrl('/api/v5/users?Client_Secret=x'), '/api/v5/users?Client_Secret=[redacted]');
  assert.equal(loggableUrl(`/api/v5/users?q=${encodeURIComponent(encodeURIComponent(token))}`), '/api/v5/users?q=[redacted]');
  assert.equal(loggableUrl(`/api/v5/users/${token}/userfieldvalues`), '/api/v5/users/[redacted]/userfieldvalues');
  assert.equal(loggableUrl(`/api/v5/users?${token}`), '/api/v5/users?[redacted]');
  assert.equal(loggableUrl('/api/v5/users?limit=10&offset=20&tags=a,b'), '/api/v5/users?limit=10&offset=20&tags=a,b');
  assert.equal(loggableUrl('/api/v5/users/%zz?x=%zz'), '/api/v5/users/%zz?x=%zz');
});
