import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadConfig } from '../src/config.js';

it('refuses a KEEP_ALIVE_TIMEOUT too short to advertise a whole second to clients', () => {
  assert.equal(loadConfig({ KEEP_ALIVE_TIMEOUT: '2s' }).clients.keepAliveTimeoutMs, 2000);
  assert.throws(() => loadConfig({ KEEP_ALIVE_TIMEOUT: '1s' }), /KEEP_ALIVE_TIMEOUT must be at least 2s \(got "1s"\)/);
});

it("lets HEADERS_TIMEOUT's default follow a shorter REQUEST_TIMEOUT, and refuses only explicit settings that contradict", () => {
  const limits = loadConfig({ REQUEST_TIMEOUT: '5s' }).clients;
  assert.equal(limits.requestTimeoutMs, 5000);
  assert.equal(limits.headersTimeoutMs, 5000);
  assert.equal(loadConfig({}).clients.headersTimeoutMs, 10_000);
  assert.equal(loadConfig({ REQUEST_TIMEOUT: '60s' }).clients.headersTimeoutMs, 10_000);
  assert.equal(loadConfig({ REQUEST_TIMEOUT: '5s', HEADERS_TIMEOUT: '2s' }).clients.headersTimeoutMs, 2000);
  assert.throws(
    () => loadConfig({ REQUEST_TIMEOUT: '5s', HEADERS_TIMEOUT: '6s' }),
    /HEADERS_TIMEOUT \(6s\) must not be longer than REQUEST_TIMEOUT \(5s\)/,
  );
  assert.throws(() => loadConfig({ HEADERS_TIMEOUT: '40s' }), /HEADERS_TIMEOUT \(40s\) must not be longer than REQUEST_TIMEOUT \(30s, its default\)/);
});
