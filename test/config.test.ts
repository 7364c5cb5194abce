import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadConfig } from '../src/config.js';

it('refuses a KEEP_ALIVE_TIMEOUT too short to advertise a whole second to clients', () => {
  assert.equal(loadConfig({ KEEP_ALIVE_TIMEOUT: '2s' }).clients.keepAliveTimeoutMs, 2000);
  assert.throws(() => loadConfig({ KEEP_ALIVE_TIMEOUT: '1s' }), /KEEP_ALIVE_TIMEOUT must be at least 2s \(got "1s"\)/);
});
