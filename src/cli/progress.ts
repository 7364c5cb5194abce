import cliProgress from 'cli-progress';
import type { Progress, Stage } from '../imports/progress.js';

/** How often progress is told when no terminal shows a bar (cron, CI, `docker exec`), after the first line. */
const LINE_INTERVAL_MS = 5000;
/** The first line comes this soon, so that a log shows at once that the import started. */
const FIRST_LINE_MS = 1000;

const numbers = new Intl.NumberFormat('en-US');

/** What a line tells: the stage, its rows so far and its total when known. */
interface State {
  stage: Stage;
  rows: number;
  total?: number;
}

function lineOf({ stage, rows, total }: State): string {
  return `rows ${numbers.format(rows)}${total === undefined ? '' : `/${numbers.format(total)}`} ${stage}`;
}

/**
 * An import's progress, on stderr: on a terminal, a bar while rows are compared and written (whose
 * pace matters; reading and checking are quick); elsewhere a line such as `rows 12,500/50,000
 * checked` a second after the start and every five seconds after, whatever the import is doing
 * (reading a workbook included) — a JSON line with `json`, as everything the command prints then is.
 */
export function progressOf(io: { err(line: string): void }, json = false): Progress {
  if (process.stderr.isTTY && !json) return terminalBar();
  const state: State = { stage: 'read', rows: 0 };
  const tell = () => io.err(json ? JSON.stringify({ progress: state }) : lineOf(state));
  let interval: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    tell();
    interval = setInterval(tell, LINE_INTERVAL_MS).unref();
  }, FIRST_LINE_MS).unref();
  return {
    stage(stage, total) {
      state.stage = stage;
      state.rows = 0;
      if (total === undefined) delete state.total;
      else state.total = total;
    },
    advance(rows) {
      state.rows += rows;
    },
    stop() {
      clearTimeout(first);
      clearInterval(interval);
    },
  };
}

function terminalBar(): Progress {
  let bar: cliProgress.SingleBar | undefined;
  const stop = () => {
    bar?.stop();
    bar = undefined;
  };
  return {
    stage(stage, total) {
      stop();
      if (stage !== 'compared' && stage !== 'imported') return;
      bar = new cliProgress.SingleBar(
        {
          format: `${stage === 'imported' ? 'Importing' : 'Comparing'} users [{bar}] {percentage}% | {value}/{total} rows | ETA {eta_formatted}`,
          stream: process.stderr,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total ?? 0, 0);
    },
    advance: (rows) => bar?.increment(rows),
    stop,
  };
}
