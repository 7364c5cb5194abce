import assert from 'node:assert/strict';
import { afterEach, it, mock } from 'node:test';
import { now } from '../../src/lib/time.js';

afterEach(() => mock.timers.reset());

it('now() is the current second, following the clock forwards and backwards', () => {
  mock.timers.enable({ apis: ['Date'], now: Date.UTC(2026, 10, 26, 9, 59, 59, 500) });
  assert.equal(now(), '2026-11-26T09:59:59Z');
  mock.timers.tick(499);
  assert.equal(now(), '2026-11-26T09:59:59Z');
  mock.timers.tick(1);
  assert.equal(now(), '2026-11-26T10:00:00Z');
  mock.timers.setTime(Date.UTC(2025, 0, 1));
  assert.equal(now(), '2025-01-01T00:00:00Z');
});
