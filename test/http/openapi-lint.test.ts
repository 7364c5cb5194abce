import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { Harness } from '../helpers/harness.js';

const redocly = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
const projectRoot = join(import.meta.dirname, '..', '..', '..');

// The document does not depend on the engine: one is enough.
describe('OpenAPI document, linted', () => {
  const h = new Harness('sqlite');
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  before(() => h.start());
  after(async () => {
    await h.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes @redocly/cli lint with its recommended rules, without a warning', async () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, (await h.get('openapi.json', { token: null })).body);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [redocly, 'lint', file, '--config', join(projectRoot, 'redocly.yaml'), '--format', 'json'],
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' } },
    ).catch((error: { stdout: string; stderr: string }) => assert.fail(`redocly lint failed:\n${error.stdout}\n${error.stderr}`));
    const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
    assert.deepEqual(
      report.problems.map((problem: { ruleId: string; message: string }) => `${problem.ruleId}: ${problem.message}`),
      [],
    );
    assert.deepEqual(report.totals, { errors: 0, warnings: 0, ignored: 0 });
  });
});
