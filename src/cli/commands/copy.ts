import { existsSync } from 'node:fs';
import cliProgress from 'cli-progress';
import { copyDatabase, CopyRefusedError, type CopyProgress, type TableCount } from '../../db/copy.js';
import { engineOf, openDatabase } from '../../db/database.js';

interface CopyOptions {
  from: string;
  to: string;
  json: boolean;
}

interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** Why the copy must not start, before any database is opened; undefined when it may. */
function refusalOf({ from, to }: CopyOptions): string | undefined {
  if (from === to) return '--from and --to name the same database';
  for (const [flag, url] of [
    ['--from', from],
    ['--to', to],
  ] as const) {
    try {
      engineOf(url);
    } catch (error) {
      return `${flag}: ${(error as Error).message}`;
    }
  }
  // Opening a SQLite path that does not exist would create an empty database and copy nothing.
  const sourcePath = from.slice('sqlite:'.length);
  if (engineOf(from) === 'sqlite' && sourcePath !== ':memory:' && !existsSync(sourcePath)) {
    return `--from: no SQLite database at ${sourcePath}`;
  }
  return undefined;
}

/** A bar on stderr (drawn only on a terminal), so stdout keeps just the summary. */
function progressBar(): CopyProgress & { stop(): void } {
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'Copying [{bar}] {percentage}% | {value}/{total} rows | {table}', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    start(totalRows) {
      bar.start(totalRows, 0, { table: '' });
      started = true;
    },
    advance(rows, table) {
      bar.increment(rows, { table });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

function summary(counts: TableCount[]): string {
  const width = Math.max('table'.length, ...counts.map((count) => count.table.length));
  const number = (value: number) => value.toLocaleString('en-US').padStart(12);
  const total = counts.reduce((sum, count) => sum + count.target, 0);
  return [
    `${'table'.padEnd(width)}${'source'.padStart(12)}${'target'.padStart(12)}`,
    ...counts.map((count) => `${count.table.padEnd(width)}${number(count.source)}${number(count.target)}`),
    `Copied ${total.toLocaleString('en-US')} rows in ${counts.length} tables; every table's row count matches.`,
  ].join('\n');
}

/**
 * `training-api copy --from <url> --to <url>`: every organization's data into an empty database,
 * all or nothing. Returns the exit code: 2 when the copy is refused before it starts.
 */
export async function copyCommand(options: CopyOptions, io: Output): Promise<number> {
  const refusal = refusalOf(options);
  if (refusal) {
    io.err(`training-api: ${refusal}`);
    return 2;
  }
  const source = openDatabase(options.from, { poolSize: 2 });
  const target = openDatabase(options.to, { poolSize: 2 });
  const bar = progressBar();
  try {
    const counts = await copyDatabase(source, target, bar);
    bar.stop();
    io.out(options.json ? JSON.stringify({ tables: counts }, null, 2) : summary(counts));
    return 0;
  } catch (error) {
    bar.stop();
    if (error instanceof CopyRefusedError) {
      io.err(`training-api: ${error.message}`);
      return 2;
    }
    io.err('training-api: the copy failed and was rolled back; the target holds none of the copied rows');
    throw error;
  } finally {
    await source.close();
    await target.close();
  }
}
