import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The server's first start, a TLS handshake or two, the import and the typed client: a minute on a busy machine. */
const TIMEOUT_MS = 240_000;

/**
 * A shell block of the documentation: ```sh (or bash, shell). One preceded by
 * `<!-- doc-test: skip (reason) -->` is not run, and the test lists it with its reason.
 */
interface Block {
  file: string;
  line: number;
  text: string;
  skip?: string;
}

const SHELL = /^```(sh|bash|shell)\b/;
const SKIP = /^<!-- doc-test: skip \((.+)\) -->$/;

export function shellBlocks(file: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!SHELL.test(lines[i]!)) continue;
    const end = lines.indexOf('```', i + 1);
    assert.ok(end > i, `${file}:${i + 1}: a block without its end`);
    const skip = SKIP.exec(lines[i - 1] ?? '')?.[1];
    assert.ok(!(lines[i - 1] ?? '').startsWith('<!-- doc-test') || skip, `${file}:${i}: a doc-test mark must read <!-- doc-test: skip (reason) -->`);
    blocks.push({ file, line: i + 1, text: lines.slice(i + 1, end).join('\n'), ...(skip ? { skip } : {}) });
    i = end;
  }
  return blocks;
}

async function documentation(): Promise<Block[]> {
  const docs = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  const blocks: Block[] = [];
  for (const file of ['README.md', ...docs.sort()]) blocks.push(...shellBlocks(file, await readFile(join(ROOT, file), 'utf8')));
  return blocks;
}

/** One file's blocks as one shell session, in order, each announced; the first failing command ends it. */
function session(blocks: readonly Block[]): string {
  return [
    'set -e -o pipefail',
    // Written for a person, who sees an error page; here an HTTP error must fail the block.
    'curl() { command curl --fail-with-body "$@"; }',
    ...blocks.flatMap((block) => [`echo '::block ${block.file}:${block.line}'`, block.text, `echo '::done ${block.file}:${block.line}'`]),
  ].join('\n');
}

/**
 * Runs every shell block of README.md and docs/ exactly as written, in a fresh directory that looks
 * like the built checkout the README starts from, against a server started there with `npm start`
 * (with METRICS_PORT=9464, as step 4 of the tour asks). Everything runs in a network namespace of
 * its own, so the documented port 8443 is free whatever else runs on this machine.
 */
/** Whether this machine lets an unprivileged user make a network namespace (Linux user namespaces). */
const namespaces = spawnSync('unshare', ['--user', '--map-root-user', '--net', 'true']).status === 0;

it(
  'runs the shell blocks of README.md and docs/ as written, but for those marked not to run',
  { timeout: TIMEOUT_MS, skip: namespaces ? false : 'no user namespaces on this machine (unshare --user --net)' },
  async (t) => {
    const blocks = await documentation();
    const skipped = blocks.filter((block) => block.skip);
    const runnable = blocks.filter((block) => !block.skip);
    assert.ok(runnable.length >= 8, 'the quick start, the tour, the import, its job, OAuth, SCIM tokens, conditional writes and the backup run');

    const dir = await mkdtemp(join(tmpdir(), 'doc-blocks-'));
    try {
      for (const entry of ['package.json', 'bin', 'dist', 'node_modules', 'scripts']) await symlink(join(ROOT, entry), join(dir, entry));
      const files = [...new Set(runnable.map((block) => block.file))];
      for (const [index, file] of files.entries()) {
        await writeFile(join(dir, `.session-${index}.sh`), session(runnable.filter((block) => block.file === file)));
      }
      const runner = [
        'set -u',
        'ip link set lo up',
        `cd ${JSON.stringify(dir)}`,
        'METRICS_PORT=9464 npm start > .server.log 2>&1 &',
        'for i in $(seq 1 240); do [ -f data/bootstrap-token ] && curl -sk -o /dev/null https://127.0.0.1:8443/healthz && break; sleep 0.5; done',
        ...files.map((file, index) => `echo '::file ${file}'; bash .session-${index}.sh 2>&1; echo "::exit $?"`),
        'echo "::server log"; cat .server.log',
      ].join('\n');
      await writeFile(join(dir, '.runner.sh'), runner);
      const output = await new Promise<string>((resolve, reject) => {
        // npm start leaves its server running when npm is stopped: the namespace ends with everything in it.
        const child = spawn('unshare', ['--user', '--map-root-user', '--net', '--pid', '--fork', '--kill-child', 'bash', join(dir, '.runner.sh')], {
          env: { ...process.env, npm_config_update_notifier: 'false', npm_config_offline: 'true' },
        });
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
        child.on('error', reject);
        child.on('close', () => resolve(text));
      });

      const failures: string[] = [];
      for (const section of output.split('::file ').slice(1)) {
        const file = section.split('\n')[0]!;
        const exit = /::exit (\d+)/.exec(section)?.[1];
        if (exit !== '0') {
          const started = [...section.matchAll(/::block (\S+)/g)].map((match) => match[1]);
          const done = new Set([...section.matchAll(/::done (\S+)/g)].map((match) => match[1]));
          const failed = started.find((block) => !done.has(block));
          failures.push(`${failed ?? file} failed (exit ${exit}):\n${section.slice(-3000)}`);
        }
      }
      const ran = runnable.map((block) => `${block.file}:${block.line}`);
      for (const block of ran) assert.ok(output.includes(`::block ${block}`), `${block} did not run:\n${output.slice(-3000)}`);
      t.diagnostic(`ran ${ran.length} blocks: ${ran.join(', ')}`);
      t.diagnostic(
        `skipped ${skipped.length} blocks, as marked: ${skipped.map((block) => `${block.file}:${block.line} (${block.skip})`).join('; ')}`,
      );
      assert.deepEqual(failures, []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
