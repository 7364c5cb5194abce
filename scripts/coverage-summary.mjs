// Reads c8's json-summary (coverage/coverage-summary.json) and prints the line coverage of each folder of src/,
// then every file under the bar (80% of its lines), lowest first. It is a gate: it fails the run for a file under
// the bar that EXCEPTIONS does not name with its reason, and for a module of src/ that no test loaded.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const BAR = 80;

/** The files allowed under the bar, each with why its missing lines are not run by the suite. */
const EXCEPTIONS = {
  'src/oauth/oauth-errors.ts': 'renders every kind of domain error, as each edge must, while the OAuth endpoints meet only a few of them today',
  'src/pages/userfield-inputs.ts': "the account page's inputs of userfield types the page tests do not fill yet (dates, numbers, checkboxes)",
  'src/db/migrations/0019-account-types.ts': 'its down() is run only by the downgrade test, which does not take every branch of it',
};
const summary = JSON.parse(readFileSync('coverage/coverage-summary.json', 'utf8'));
const files = Object.entries(summary)
  .filter(([path]) => path !== 'total')
  .map(([path, { lines }]) => ({ path: relative(process.cwd(), path), covered: lines.covered, total: lines.total }));

const percent = (covered, total) => (total === 0 ? 100 : (100 * covered) / total);
const folders = new Map();
for (const file of files) {
  const folder = file.path.split('/').slice(0, 2).join('/');
  const sum = folders.get(folder) ?? { covered: 0, total: 0, files: 0 };
  folders.set(folder, { covered: sum.covered + file.covered, total: sum.total + file.total, files: sum.files + 1 });
}

const { lines } = summary.total;
console.log(
  `\nLine coverage of src/: ${percent(lines.covered, lines.total).toFixed(1)}% (${lines.covered}/${lines.total} lines, ${files.length} files)`,
);
for (const [folder, { covered, total, files: count }] of [...folders].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(`  ${folder.padEnd(28)} ${percent(covered, total).toFixed(1).padStart(5)}%  ${String(total).padStart(6)} lines, ${count} files`);
}
const under = files
  .filter((file) => percent(file.covered, file.total) < BAR)
  .sort((a, b) => percent(a.covered, a.total) - percent(b.covered, b.total));
console.log(`Files under ${BAR}% of their lines: ${under.length}`);
for (const file of under) {
  const excused = EXCEPTIONS[file.path];
  console.log(
    `  ${percent(file.covered, file.total).toFixed(1).padStart(5)}%  ${file.path} (${file.total - file.covered} of ${file.total} lines not run)${excused ? `: allowed, ${excused}` : ''}`,
  );
}
const failing = under.filter((file) => !EXCEPTIONS[file.path]);
for (const path of Object.keys(EXCEPTIONS).filter((path) => !under.some((file) => file.path === path))) {
  console.log(`  ${path} is allowed under the bar but is over it now: take it out of EXCEPTIONS in scripts/coverage-summary.mjs`);
}

// A module no test process ever loaded is missing from the summary; one that holds only types compiles to nothing.
const measured = new Set(files.map((file) => file.path));
const holdsCode = (source) =>
  readFileSync(join('dist', source.replace(/\.ts$/, '.js')), 'utf8')
    .replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
    .trim() !== 'export {};';
const unloaded = readdirSync('src', { recursive: true })
  .map((name) => join('src', name))
  .filter((path) => path.endsWith('.ts') && !measured.has(path) && holdsCode(path));
console.log(`Modules of src/ no test loaded: ${unloaded.length}`);
for (const path of unloaded.sort()) console.log(`  ${path}`);

if (failing.length > 0 || unloaded.length > 0) {
  console.log(
    `\nCoverage gate: FAILED. Every file of src/ runs ${BAR}% of its lines in the suite, or is named in EXCEPTIONS of scripts/coverage-summary.mjs with why.`,
  );
  process.exit(1);
}
