import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { it } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);
const TIMEOUT_MS = 180_000;

/** The shell block of the client's README that installs it. */
async function installInstructions(): Promise<string> {
  const readme = await readFile(join(ROOT, 'clients/typescript/README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Installing'));
  const block = /```sh\n([\s\S]*?)\n```/.exec(section)?.[1];
  assert.ok(block, 'the README has an Installing section with a shell block');
  return block;
}

/** What a project using the client writes: every helper, a path without parameters, and a mistake the types catch. */
const PROGRAM = `import { createClient, ValidationError, type User } from '@training-api/client';

const api = createClient({ baseUrl: 'https://training.example.com/api/v5', token: 'tpo_example' });

export async function tour(): Promise<void> {
  const agreements = await api.get('/agreements');
  const id = await api.create('/users', { email: 'ada@example.com', firstName: 'Ada' });
  const ada: User = await api.get('/users/{id}', { id });
  await api.update('/users/{id}', { id }, { lastName: 'Lovelace' });
  await api.delete('/users/{id}', { id });
  // @ts-expect-error GET /users/{id} needs its id
  await api.get('/users/{id}');
  for await (const user of api.list('/users', { query: { tags: 'engineering' } })) console.log(user.email, ada.id, agreements);
  try {
    await api.create('/users', { email: 'not an email' });
  } catch (error) {
    if (error instanceof ValidationError) console.log(error.fieldErrors);
  }
}
`;

/** Run, not only compiled: a client made without a token throws, and sends nothing. */
const MISSING_TOKEN = `import { createClient } from '@training-api/client';
let sent = 0;
const fetch = async () => { sent++; return new Response('{}'); };
for (const token of [undefined, '', '  ']) {
  try {
    createClient({ baseUrl: 'https://training.example.com/api/v5', token, fetch });
    console.log('accepted', JSON.stringify(token));
  } catch (error) {
    console.log(error.constructor.name, error.message);
  }
}
console.log('sent', sent);
`;

it('installs as its README says into an empty project, which type-checks a program against it', { timeout: TIMEOUT_MS }, async () => {
  const project = await mkdtemp(join(tmpdir(), 'client-install-'));
  try {
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'uses-the-client', private: true, type: 'module' }));
    // Tests install from the npm cache, without the registry: the project's lock pins the client's
    // dependencies at the versions this repository locks (which the cache holds), and nothing else.
    const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const packages: Record<string, unknown> = { '': { name: 'uses-the-client' } };
    for (const name of ['openapi-fetch', 'openapi-typescript-helpers']) {
      const { dev: _dev, ...entry } = lock.packages[`node_modules/${name}`]!;
      packages[`node_modules/${name}`] = entry;
    }
    await writeFile(join(project, 'package-lock.json'), JSON.stringify({ name: 'uses-the-client', lockfileVersion: 3, requires: true, packages }));

    await run('bash', ['-e', '-o', 'pipefail', '-c', await installInstructions()], {
      cwd: ROOT,
      env: { ...process.env, PROJECT: project, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
      timeout: TIMEOUT_MS,
    });
    const installed = JSON.parse(await readFile(join(project, 'node_modules/@training-api/client/package.json'), 'utf8')) as { name: string };
    assert.equal(installed.name, '@training-api/client');

    await writeFile(join(project, 'program.ts'), PROGRAM);
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          strict: true,
          noEmit: true,
          types: [],
        },
        files: ['program.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const checked = await run(process.execPath, [tsc, '-p', project], { cwd: project }).catch((error: { stdout: string }) => error);
    assert.equal(checked.stdout, '', 'the program type-checks against the installed package');

    await writeFile(join(project, 'missing-token.mjs'), MISSING_TOKEN);
    const { stdout } = await run(process.execPath, ['missing-token.mjs'], { cwd: project });
    const lines = stdout.trim().split('\n');
    assert.equal(lines.filter((line) => line.startsWith('TypeError createClient: token is required')).length, 3, stdout);
    assert.equal(lines.at(-1), 'sent 0');
  } finally {
    await rm(project, { recursive: true, force: true });
  }
});
