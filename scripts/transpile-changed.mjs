// Transpiles, file by file and without a type check, every TypeScript source that is newer than its JavaScript in
// dist/: the quick step of `npm run test:file`, and the first step of `npm run build`, which then leaves tsc to check
// types and emit what changed since its build info. Running it first in the build keeps dist/ right when a source
// tried with test:file returns to what tsc last compiled: tsc would see no change and leave the tried output there.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

export const OUT = 'dist';

/** The JavaScript that `source` compiles to. */
export const outputOf = (source) => join(OUT, source.replace(/\.ts$/, '.js'));

/** Every TypeScript source the build compiles (tsconfig.json's `include`). */
export function sources() {
  const { include } = JSON.parse(readFileSync('tsconfig.json', 'utf8'));
  return include
    .filter(existsSync)
    .flatMap((dir) => readdirSync(dir, { recursive: true }).map((name) => join(dir, name)))
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'));
}

/** Transpiles each source newer than its output (or without one); returns how many it wrote. */
export function transpileChanged() {
  const { config } = ts.readConfigFile('tsconfig.json', ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, '.');
  let transpiled = 0;
  for (const source of sources()) {
    const output = outputOf(source);
    if (existsSync(output) && statSync(output).mtimeMs >= statSync(source).mtimeMs) continue;
    const { outputText, sourceMapText } = ts.transpileModule(readFileSync(source, 'utf8'), {
      // The package is ESM ("type": "module"), which NodeNext would learn from package.json.
      compilerOptions: { ...options, module: ts.ModuleKind.ESNext },
      fileName: relative(dirname(output), source),
    });
    mkdirSync(dirname(output), { recursive: true });
    writeFileSync(output, outputText);
    if (sourceMapText) writeFileSync(`${output}.map`, sourceMapText);
    transpiled++;
  }
  return transpiled;
}
