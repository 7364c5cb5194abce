// `npm run build`: compiles TypeScript into dist/ incrementally (tsc's build info in dist/.tsbuildinfo), then
// removes what an earlier build left for a source that is gone, so that no deleted test still runs and no
// removed module can still be imported. A fresh clone builds everything; an unchanged tree takes seconds, and so
// does the build after `npm run test:file`, which leaves tsc's state as it is.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { OUT, outputOf, sources, transpileChanged } from './transpile-changed.mjs';

const OUTPUTS = ['.js', '.js.map', '.d.ts'];

const INFO = join(OUT, '.tsbuildinfo');

// tsc's incremental build trusts its build info, not dist/: an output deleted by hand would never come back, so
// the build starts over then. A source tried with test:file and then undone is transpiled again first: tsc, which
// compiled it before the try, would not emit it.
if (existsSync(INFO) && sources().some((source) => !existsSync(outputOf(source)))) rmSync(INFO);
if (existsSync(INFO)) transpileChanged();

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
