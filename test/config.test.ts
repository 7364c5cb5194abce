import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { loadConfig, SETTING_NAMES, settingsTable } from '../src/config.js';

const README = new URL('../../README.md', import.meta.url);

it("keeps the README's Configuration table as the settings table makes it (npm run docs:settings writes it)", async () => {
  const readme = await readFile(README, 'utf8');
  const start = readme.indexOf('| Variable | Default | Meaning |');
  assert.ok(start > 0, 'the README has a Configuration table');
  assert.equal(readme.slice(start, readme.indexOf('\n\n', start)), settingsTable());
});

it('reads each setting from its flag before the environment, and the table default when neither is given', () => {
  assert.equal(SETTING_NAMES.length, new Set(SETTING_NAMES).size);
  assert.equal(loadConfig({ PORT: '9000' }, { PORT: '9001' }).port, 9001);
  assert.equal(loadConfig({ PORT: '9000' }).port, 9000);
  assert.equal(loadConfig({}).port, 8443);
  assert.equal(loadConfig({}, { PASSWORD_MIN_LENGTH: '12' }).passwordPolicy.minLength, 12);
  assert.equal(loadConfig({ DATA_DIR: '/srv/training' }).databaseUrl, 'sqlite:/srv/training/training-api.db');
});

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
