// Fails when modules of src/ import each other in a loop, type-only imports included: a loop means two
// modules that cannot be understood, tested or moved apart, and at run time one of them sees the other
// half-initialized. Part of `npm run lint`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sources = readdirSync(join(root, 'src'), { recursive: true })
  .filter((name) => name.endsWith('.ts'))
  .map((name) => join(root, 'src', name));
const known = new Set(sources);

/** The modules of src/ that `file` imports (static, dynamic and type-only imports, and re-exports). */
function importsOf(file) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, '.ts')))
    .filter((target) => known.has(target));
}

const graph = new Map(sources.map((file) => [file, importsOf(file)]));

/** Tarjan's strongly connected components: every group of two or more modules is a loop. */
function loops() {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (module) => {
    index.set(module, index.size);
    low.set(module, index.get(module));
    stack.push(module);
    onStack.add(module);
    for (const target of graph.get(module)) {
      if (!index.has(target)) {
        visit(target);
        low.set(module, Math.min(low.get(module), low.get(target)));
      } else if (onStack.has(target)) {
        low.set(module, Math.min(low.get(module), index.get(target)));
      }
    }
    if (low.get(module) !== index.get(module)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== module);
    if (component.length > 1 || graph.get(module).includes(module)) found.push(component);
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return found;
}

const found = loops();
for (const component of found) {
  const names = new Set(component);
  console.error(`Import cycle among ${component.length} modules:`);
  for (const module of component.sort()) {
    const inLoop = graph.get(module).filter((target) => names.has(target));
    console.error(`  ${relative(root, module)} -> ${inLoop.map((target) => relative(root, target)).join(', ')}`);
  }
}
if (found.length > 0) process.exit(1);
console.log(`No import cycle among the ${graph.size} modules of src/`);
