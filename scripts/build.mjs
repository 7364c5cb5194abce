// `npm run build`: compiles TypeScript into dist/ incrementally (tsc's build info in dist/.tsbuildinfo), then
// removes what an earlier build left for a source that is gone, so that no deleted test still runs and no
// removed module can still be imported. A fresh clone builds everything; an unchanged tree takes seconds.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const OUT = 'dist';
const OUTPUTS = ['.js', '.js.map', '.d.ts'];

const INFO = join(OUT, '.tsbuildinfo');

/** Every TypeScript source the build compiles (tsconfig.json's `include`). */
function sources() {
  const { include } = JSON.parse(readFileSync('tsconfig.json', 'utf8'));
  return include
    .filter(existsSync)
    .flatMap((dir) => readdirSync(dir, { recursive: true }).map((name) => join(dir, name)))
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'));
}

// tsc's incremental build trusts its build info, not dist/: an output deleted by hand would never come back, and
// one that `npm run test:file` transpiled after it would stay as it is when its source returns to what tsc last
// compiled (an edit tried, then undone). Either way the build starts over.
if (existsSync(INFO)) {
  const built = statSync(INFO).mtimeMs;
  const outputs = sources().map((source) => join(OUT, source.replace(/\.ts$/, '.js')));
  if (outputs.some((output) => !existsSync(output) || statSync(output).mtimeMs > built)) rmSync(INFO);
}

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

/** The source an output was compiled from (dist/test/a.test.js → test/a.test.ts), or undefined for another file. */
function sourceOf(output) {
  const suffix = OUTPUTS.find((ending) => output.endsWith(ending));
  return suffix && `${relative(OUT, output).slice(0, -suffix.length)}.ts`;
}

let removed = 0;
for (const entry of readdirSync(OUT, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile()) continue;
  const output = join(entry.parentPath ?? entry.path, entry.name);
  const source = sourceOf(output);
  if (source && !existsSync(source)) {
    rmSync(output);
    removed++;
  }
}
if (removed > 0) console.log(`build: removed ${removed} files of ${OUT}/ whose source is gone`);
