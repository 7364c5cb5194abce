import assert from 'node:assert/strict';
import { it, mock } from 'node:test';
import { progressOf } from '../../src/cli/progress.js';

it('without a terminal, tells the rows done on stderr every five seconds, not more often', () => {
  assert.ok(!process.stderr.isTTY, 'the test runner gives no terminal');
  mock.timers.enable({ apis: ['Date'], now: 0 });
  try {
    const lines: string[] = [];
    const progress = progressOf(50_000, 'checked', { err: (line) => lines.push(line) });
    progress.increment(10_000);
    mock.timers.tick(4_999);
    progress.increment(2_500);
    assert.deepEqual(lines, []);
    mock.timers.tick(1);
    progress.increment(0);
    assert.deepEqual(lines, ['rows 12,500/50,000 checked']);
    mock.timers.tick(5_000);
    progress.increment(37_500);
    progress.stop();
    assert.deepEqual(lines, ['rows 12,500/50,000 checked', 'rows 50,000/50,000 checked']);
  } finally {
    mock.timers.reset();
  }
});
