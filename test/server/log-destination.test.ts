import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';

const DESTINATION = new URL('../../src/server/log-destination.js', import.meta.url).href;

/** Runs `body` in a process of its own with `log`, the server's log destination, and returns its standard output. */
async function outputOf(body: string): Promise<string> {
  const script = `import { turnBufferedStdout } from ${JSON.stringify(DESTINATION)};\nconst log = turnBufferedStdout();\n${body}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
  return output;
}

const numbered = (output: string) => output.trimEnd().split('\n');

describe('the log on standard output', () => {
  it('writes every line of a turn, in order, once the turn ends', async () => {
    const output = await outputOf(`
      for (let n = 0; n < 50; n += 1) log.write('line ' + n + '\\n');
      setImmediate(() => {
        log.write('next turn\\n');
        setTimeout(() => process.exit(0), 20);
      });`);
    assert.deepEqual(numbered(output), [...Array.from({ length: 50 }, (_, n) => `line ${n}`), 'next turn']);
  });

  it('writes a turn that logs more than it holds without waiting for the turn to end, and loses nothing', async () => {
    // 3,000 lines of 120 characters: past what a turn holds (256 Ki characters), so some are written within the turn.
    const output = await outputOf(`
      const padding = 'x'.repeat(110);
      for (let n = 0; n < 3000; n += 1) log.write(n + ' ' + padding + '\\n');
      setImmediate(() => process.exit(0));`);
    const lines = numbered(output);
    assert.equal(lines.length, 3000);
    lines.forEach((line, n) => assert.equal(line.split(' ')[0], String(n)));
  });

  it('writes what it holds when the process exits within the turn', async () => {
    const output = await outputOf(`
      log.write('first\\n');
      log.write('written at exit\\n');
      process.exit(0);`);
    assert.deepEqual(numbered(output), ['first', 'written at exit']);
  });
});
