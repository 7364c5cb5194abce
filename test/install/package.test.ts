import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { ServerProcess } from '../helpers/server-process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);
/** Installing ~180 packages from the local cache takes a while on a busy machine. */
const INSTALL_TIMEOUT_MS = 240_000;
const NATIVE_MODULE = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';

interface LockEntry {
  dev?: boolean;
  [key: string]: unknown;
}

const packageJson = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  bin: Record<string, string>;
};

function npm(cwd: string, ...args: string[]) {
  return run('npm', args, { cwd, timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
}

/**
 * Installs offline from the npm cache, without install scripts: better-sqlite3's native module is the one
 * this checkout built (same platform, same Node.js), since compiling or downloading it is not what is tested.
 */
async function installOffline(dir: string, command: 'ci' | 'install', ...args: string[]): Promise<void> {
  await npm(dir, command, '--offline', '--ignore-scripts', '--no-audit', '--no-fund', ...args);
  await mkdir(dirname(join(dir, NATIVE_MODULE)), { recursive: true });
  await cp(join(ROOT, NATIVE_MODULE), join(dir, NATIVE_MODULE));
}

async function healthy(server: ServerProcess): Promise<void> {
  const reply = await server.request('GET', '/healthz');
  assert.equal(reply.status, 200, server.output);
  assert.deepEqual(JSON.parse(reply.body), { status: 'ok' });
}

// The two installs share nothing but the read-only checkout and npm's cache: they run side by side.
describe('installation', { timeout: 2 * INSTALL_TIMEOUT_MS, concurrency: true }, () => {
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];

  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'training-api-install-'));
    dirs.push(dir);
    return dir;
  }

  before(async () => {
    // The build is what the tests run from; the copies below must not need a compiler.
    await stat(join(ROOT, 'dist/src/cli/main.js'));
  });
  after(async () => {
    for (const server of servers) await server.destroy();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('installs the packed tarball into an empty directory and serves from it', async () => {
    const dir = await tempDir();
    // --ignore-scripts: packing must not rebuild the dist/ other tests run from.
    const { stdout } = await npm(ROOT, 'pack', '--json', '--ignore-scripts', '--pack-destination', dir);
    const [packed] = JSON.parse(stdout) as { filename: string; integrity: string; files: { path: string }[] }[];
    const files = packed!.files.map((file) => file.path);
    for (const expected of ['LICENSE', 'README.md', 'bin/training-api.js', 'dist/src/cli/main.js']) assert.ok(files.includes(expected), expected);
    assert.ok(!files.some((file) => file.startsWith('dist/test/') || file.startsWith('src/')), files.join('\n'));

    // The dependency tree is the lock file's production part, so the cache holds every package it names.
    const tarball = `file:${packed!.filename}`;
    const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    const packages: Record<string, unknown> = {
      '': { dependencies: { 'training-api': tarball } },
      'node_modules/training-api': {
        version: packageJson.version,
        resolved: tarball,
        integrity: packed!.integrity,
        dependencies: packageJson.dependencies,
        bin: packageJson.bin,
      },
    };
    for (const [path, entry] of Object.entries(lock.packages)) if (path.startsWith('node_modules/') && !entry.dev) packages[path] = entry;
    await writeFile(join(dir, 'package.json'), JSON.stringify({ private: true, dependencies: { 'training-api': tarball } }));
    await writeFile(join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, requires: true, packages }));
    await installOffline(dir, 'ci');

    const bin = join(dir, 'node_modules/.bin/training-api');
    assert.equal((await run(bin, ['--version'])).stdout.trim(), packageJson.version);

    // Help needs no native module: not even argon2's prebuilt binary, which an install can lack (npm drops
    // optional platform packages after a lock file made elsewhere, npm/cli#4828, or with --omit=optional).
    const argon2 = join(dir, 'node_modules/@node-rs');
    const binaries = (await readdir(argon2)).filter((name) => name.startsWith('argon2-'));
    assert.ok(binaries.length > 0, 'the install has a prebuilt argon2 binary');
    for (const name of binaries) await rename(join(argon2, name), join(dir, name));
    // The three at once: each npx is a second of start-up, and none waits for another.
    const helps = await Promise.all(
      [['--help'], ['serve', '--help'], ['tokens', '--help']].map(async (args) => ({
        args,
        help: await run('npx', ['--offline', 'training-api', ...args], { cwd: dir }),
      })),
    );
    for (const { args, help } of helps) {
      assert.match(help.stdout, /^Usage: training-api/, args.join(' '));
      assert.doesNotMatch(help.stderr, /Error|\n\s+at /, args.join(' '));
    }
    assert.match(helps[1]!.help.stdout, /^ {2}--password-min-length <n> /m);
    for (const name of binaries) await rename(join(dir, name), join(argon2, name));
    const server = await ServerProcess.start({}, { command: [bin, 'serve'], cwd: dir });
    servers.push(server);
    await healthy(server);
  });

  it('keeps a built tree after a production install and `npm start` serves it', async () => {
    const dir = await tempDir();
    for (const path of ['package.json', 'package-lock.json', 'tsconfig.json', 'bin', 'scripts', 'src', 'dist/src']) {
      await cp(join(ROOT, path), join(dir, path), { recursive: true });
    }
    await installOffline(dir, 'ci', '--omit=dev');
    // An edited source file: without a compiler the existing build starts, and nothing deletes it.
    const later = new Date(Date.now() + 60_000);
    await utimes(join(dir, 'src/app.ts'), later, later);

    const server = await ServerProcess.start({}, { command: ['npm', 'start', '--'], cwd: dir });
    servers.push(server);
    await healthy(server);
    assert.match(server.output, /TypeScript is not installed; starting the existing build/);
    await stat(join(dir, 'dist/src/cli/main.js'));

    // SIGTERM to npm alone, as a service manager or `docker stop` sends it: the server behind it stops too, cleanly.
    server.signal('SIGTERM');
    await eventually(() => !server.groupRunning, { what: 'npm start and the server it started to stop' });
    assert.match(server.output, /Shutting down/);
  });
});
