/** Micro-benchmarks (`npm run bench:micro`): runs every compiled `*.bench.js` module next to this file, one after another. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface BenchModule {
  run(): Promise<void>;
}

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const files = fs
  .readdirSync(benchDir)
  .filter((file) => file.endsWith('.bench.js'))
  .sort();

for (const file of files) {
  console.log(`\n=== ${file.replace(/\.bench\.js$/, '')} ===`);
  const bench = (await import(pathToFileURL(path.join(benchDir, file)).href)) as BenchModule;
  await bench.run();
}
