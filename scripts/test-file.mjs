// `npm run test:file -- test/resources/users.test.ts [more files] [node --test options]`: the edit-and-rerun loop.
// Every source newer than its output in dist/ is transpiled on its own (no type check: `npm run build`, the
// editor, `npm test` and CI check types), then node's test runner runs the named files with the summary reporter.
// Start from one `npm run build`; after that an edited file is re-run within seconds.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withMigratedTemplates } from './test-templates.mjs';
import { OUT, outputOf, transpileChanged } from './transpile-changed.mjs';

if (!existsSync(join(OUT, '.tsbuildinfo'))) {
  console.error('test:file: nothing is built yet; run `npm run build` once first');
  process.exit(1);
}

const transpiled = transpileChanged();
if (transpiled > 0) console.log(`test:file: transpiled ${transpiled} changed source${transpiled === 1 ? '' : 's'}`);

const args = process.argv.slice(2);
const files = args.filter((arg) => !arg.startsWith('-')).map((file) => (file.endsWith('.ts') ? outputOf(file) : file));
const runnerArgs = args.filter((arg) => arg.startsWith('-'));
if (files.length === 0) {
  console.error('test:file: name the test files to run, as test/resources/users.test.ts');
  process.exit(1);
}
// Node.js 22.1 and later keep the code they compiled for each module (NODE_COMPILE_CACHE) and reuse it in the next
// process: each test file and server process loads ~300 modules. Node.js 20 ignores the variable.
process.env.NODE_COMPILE_CACHE ??= resolve('node_modules/.cache/training-api/compile-cache');
const summary = fileURLToPath(new URL('test-summary.mjs', import.meta.url));
const reporter = runnerArgs.some((arg) => arg.startsWith('--test-reporter'))
  ? []
  : [`--test-reporter=${summary}`, '--test-reporter-destination=stdout'];
const result = await withMigratedTemplates((env) =>
  spawnSync(process.execPath, ['--test', ...reporter, ...runnerArgs, ...files], { stdio: 'inherit', env }),
);
process.exit(result.status ?? 1);
