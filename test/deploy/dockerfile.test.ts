import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { ServerProcess } from '../helpers/server-process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined and comments dropped, split into stages at FROM. */
function stagesOf(text: string): Instruction[][] {
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const stages: Instruction[][] = [];
  for (const line of lines.map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    const instruction = { keyword: keyword!.toUpperCase(), args: args!.replace(/\s+/g, ' ') };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)!.push(instruction);
  }
  return stages;
}

function argsOf(stage: Instruction[], keyword: string): string[] {
  return stage.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);
}

describe('Dockerfile', () => {
  let stages: Instruction[][];
  let build: Instruction[];
  let runtime: Instruction[];

  before(async () => {
    stages = stagesOf(await readFile(join(ROOT, 'Dockerfile'), 'utf8'));
    [build, runtime] = [stages[0]!, stages.at(-1)!];
  });

  it('builds in one stage and runs from another that takes only the build output', () => {
    assert.equal(stages.length, 2);
    assert.match(build[0]!.args, /^node:24\S* AS build$/i);
    assert.match(runtime[0]!.args, /^node:24\S*$/);
    assert.ok(argsOf(build, 'RUN').some((args) => args.includes('npm ci')));
    assert.ok(argsOf(build, 'RUN').some((args) => args.includes('npm run build') && args.includes('npm prune --omit=dev')));
    const copies = argsOf(runtime, 'COPY');
    for (const path of ['/app/node_modules', '/app/dist/src', '/app/bin', '/app/package.json']) {
      assert.ok(
        copies.some((args) => args.startsWith('--from=build ') && args.includes(`${path} `)),
        `${path} copied from the build stage`,
      );
    }
    // No compiler, toolchain or development dependency in the image that runs.
    assert.ok(!argsOf(runtime, 'RUN').some((args) => /npm (ci|install)|apt-get|tsc/.test(args)));
  });

  it('copies only files that exist, and the build context leaves out what the build makes', async () => {
    for (const stage of stages) {
      for (const args of argsOf(stage, 'COPY').filter((a) => !a.startsWith('--from'))) {
        for (const source of args.split(' ').slice(0, -1)) assert.ok(existsSync(join(ROOT, source)), `${source} exists`);
      }
    }
    const ignored = (await readFile(join(ROOT, '.dockerignore'), 'utf8')).split('\n');
    for (const path of ['node_modules', 'dist', 'data', '.git']) assert.ok(ignored.includes(path), `.dockerignore has ${path}`);
  });

  it('runs as an unprivileged user with its data in a volume', () => {
    const user = argsOf(runtime, 'USER');
    assert.equal(user.length, 1);
    assert.doesNotMatch(user[0]!, /^(root|0)(:|$)/);
    // Everything after USER runs unprivileged; the data directory was made theirs before.
    const userIndex = runtime.findIndex((instruction) => instruction.keyword === 'USER');
    assert.ok(runtime.slice(0, userIndex).some((i) => i.keyword === 'RUN' && i.args.includes(`chown ${user[0]}`) && i.args.includes('/data')));
    assert.deepEqual(argsOf(runtime, 'VOLUME'), ['["/data"]']);
    const env = argsOf(runtime, 'ENV').join(' ');
    assert.match(env, /DATA_DIR=\/data/);
    assert.match(env, /HOST=0\.0\.0\.0/);
  });

  it('exposes the port it listens on, checks its health and serves by default', () => {
    const port = /PORT=(\d+)/.exec(argsOf(runtime, 'ENV').join(' '))?.[1];
    assert.deepEqual(argsOf(runtime, 'EXPOSE'), [port]);
    const [healthcheck] = argsOf(runtime, 'HEALTHCHECK');
    assert.match(healthcheck!, /CMD \["node", "bin\/training-api\.js", "healthcheck"\]$/);
    assert.deepEqual(JSON.parse(argsOf(runtime, 'CMD')[0]!), ['node', 'bin/training-api.js', 'serve']);
  });
});

describe('training-api healthcheck (the container HEALTHCHECK)', () => {
  let server: ServerProcess;

  before(async () => {
    server = await ServerProcess.start();
  });
  after(async () => {
    await server.destroy();
  });

  function healthcheck(port: number, ...options: string[]) {
    return run(process.execPath, ['bin/training-api.js', 'healthcheck', ...options], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, PORT: String(port) },
    });
  }

  it('exits 0 while the server answers /healthz over HTTPS, saying so in JSON with --json', async () => {
    assert.equal((await healthcheck(server.port)).stdout, 'ok\n');
    assert.deepEqual(JSON.parse((await healthcheck(server.port, '--json')).stdout), { status: 'ok' });
  });

  it('exits 1 with one line when nothing answers', async () => {
    const port = server.port;
    await server.kill('SIGTERM');
    await assert.rejects(healthcheck(port), (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 1);
      assert.match(error.stderr, /^training-api: .*ECONNREFUSED.*\n$/);
      return true;
    });
  });
});
