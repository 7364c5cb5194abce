import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { loadConfig, SETTING_NAMES, settingsTable } from '../src/config.js';

const CONFIGURATION = new URL('../../docs/configuration.md', import.meta.url);

it('keeps the table of docs/configuration.md as the settings table makes it (npm run docs:settings writes it)', async () => {
  const page = await readFile(CONFIGURATION, 'utf8');
  const start = page.indexOf('| Variable | Default | Meaning |');
  assert.ok(start > 0, 'docs/configuration.md has the settings table');
  assert.equal(page.slice(start, page.indexOf('\n\n', start)), settingsTable());
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

it('takes an OPERATOR_TOKEN of 32 characters or more only, and none when unset', () => {
  assert.equal(loadConfig({}).people.operatorToken, undefined);
  assert.equal(loadConfig({ OPERATOR_TOKEN: 'o'.repeat(32) }).people.operatorToken, 'o'.repeat(32));
  assert.throws(() => loadConfig({ OPERATOR_TOKEN: 'o'.repeat(31) }), /OPERATOR_TOKEN must be at least 32 characters long/);
});
