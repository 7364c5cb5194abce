import cliProgress from 'cli-progress';
import type { Progress, Stage } from '../imports/progress.js';

/** How often progress is told when no terminal shows a bar (cron, CI, `docker exec`). */
const LINE_INTERVAL_MS = 5000;

const numbers = new Intl.NumberFormat('en-US');

/**
 * Progress through `total` rows, on stderr: a bar on a terminal (for the writes, whose pace matters;
 * checking is quick), else a line such as `rows 12,500/50,000 checked` every five seconds. Time is
 * looked at on each increment, so a loop that never yields still reports.
 */
export function progressOf(total: number, verb: Stage, io: { err(line: string): void }): Progress {
  if (process.stderr.isTTY) {
    if (verb === 'checked') return { increment: () => undefined, stop: () => undefined };
    const bar = new cliProgress.SingleBar(
      {
        format: `${verb === 'imported' ? 'Importing' : 'Comparing'} users [{bar}] {percentage}% | {value}/{total} rows | ETA {eta_formatted}`,
        stream: process.stderr,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0);
    return { increment: (rows) => bar.increment(rows), stop: () => bar.stop() };
  }
  let done = 0;
  let lastLine = Date.now();
  return {
    increment(rows) {
      done += rows;
      const now = Date.now();
      if (now - lastLine < LINE_INTERVAL_MS) return;
      lastLine = now;
      io.err(`rows ${numbers.format(done)}/${numbers.format(total)} ${verb}`);
    },
    stop: () => undefined,
  };
}
