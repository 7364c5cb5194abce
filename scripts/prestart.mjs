// Runs before `npm start`: compiles only when the sources are newer than the build and the TypeScript
// compiler is installed. A production install (`npm ci --omit=dev`) has no compiler and keeps its build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const BUILD = 'dist/src/cli/main.js';
const SOURCES = ['src', 'tsconfig.json', 'package.json'];

function newestChange(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}

function compilerInstalled() {
  try {
    createRequire(import.meta.url).resolve('typescript');
    return true;
  } catch {
    return false;
  }
}

const built = existsSync(BUILD) ? statSync(BUILD).mtimeMs : 0;
const stale = existsSync('src') && Math.max(...SOURCES.map(newestChange)) > built;

if (!stale) process.exit(0);
if (compilerInstalled()) {
  process.exit(spawnSync('npm', ['run', 'build'], { stdio: 'inherit' }).status ?? 1);
}
if (built) {
  console.error('training-api: the sources are newer than the build, but TypeScript is not installed; starting the existing build');
  process.exit(0);
}
console.error('training-api: nothing is built and TypeScript is not installed; run `npm ci && npm run build` first');
process.exit(1);
