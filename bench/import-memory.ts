/**
 * The memory of large imports: `training-api import users` of an HR file of PEOPLE people (a list,
 * default 100,000 and 1,000,000), three userfield values each, each file into a fresh organization
 * of its own database, and the command's peak RSS (the kernel's figure) for each, against the same
 * import of BASELINE_PEOPLE (default 1,000) in the same run. SQLite, and PostgreSQL too when
 * BENCH_POSTGRES_URL is set (a schema of its own, dropped after). DRY_RUN=1 checks and compares
 * every row without writing (`--dry-run`).
 *
 *   npm run bench:import-memory
 *   PEOPLE=20000,200000 BENCH_POSTGRES_URL=postgres://... npm run bench:import-memory
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { freshOrganization, hrFile } from './import-files.js';
import { ROOT } from './processes.js';
import { loadAverage } from './stats.js';

const PEOPLE = (process.env.PEOPLE ?? '100000,1000000').split(',').map(Number);
const BASELINE_PEOPLE = Number(process.env.BASELINE_PEOPLE ?? 1_000);
const DRY_RUN = process.env.DRY_RUN === '1';
/** The import in a process of its own: its peak RSS in bytes and its seconds. */
async function imported(url: string, orgId: string, file: string): Promise<{ peak: number; seconds: number }> {
  const started = performance.now();
  const args = ['import', 'users', '--org', orgId, ...(DRY_RUN ? ['--dry-run'] : []), file];
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'bench', 'peak-rss-cli.js'), ...args], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const peak = /peak RSS (\d+)/.exec(stderr);
  if (code !== 0 || !peak) throw new Error(`training-api ${args.join(' ')} failed (${code}): ${stderr.slice(-2000)}`);
  return { peak: Number(peak[1]), seconds: (performance.now() - started) / 1000 };
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const engine = process.env.BENCH_POSTGRES_URL ? 'postgres' : 'sqlite';
const dir = mkdtempSync(path.join(tmpdir(), 'import-memory-'));
try {
  console.log(`load average at the start: ${loadAverage(1)}`);
  const measured = async (people: number) => {
    const file = hrFile(dir, people);
    const target = await freshOrganization(dir, `import-${people}`);
    try {
      return { people, bytes: statSync(file).size, ...(await imported(target.url, target.orgId, file)) };
    } finally {
      await target.drop();
      rmSync(file);
    }
  };
  const baseline = await measured(BASELINE_PEOPLE);
  console.log(
    `${engine}${DRY_RUN ? ' dry run' : ''}: baseline ${BASELINE_PEOPLE} people, peak RSS ${mib(baseline.peak)} in ${baseline.seconds.toFixed(1)} s`,
  );
  for (const people of PEOPLE) {
    const run = await measured(people);
    console.log(
      `${engine}${DRY_RUN ? ' dry run' : ''}: ${people.toLocaleString('en-US')} people (${mib(run.bytes)} file), peak RSS ${mib(run.peak)}, ` +
        `${mib(run.peak - baseline.peak)} over the baseline's (${((run.peak - baseline.peak) / run.bytes).toFixed(2)}x the file, ` +
        `${((run.peak - baseline.peak) / people).toFixed(0)} bytes a person); ${run.seconds.toFixed(0)} s, ${Math.round(people / run.seconds)} people/s`,
    );
  }
  console.log(`load average at the end: ${loadAverage(1)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
