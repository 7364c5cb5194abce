/** The command line of `npm run bench`. */
import { parseArgs } from 'node:util';
import { selectScenarios } from './scenarios.js';

export type Engine = 'sqlite' | 'postgres';

export interface BenchOptions {
  help: boolean;
  quick: boolean;
  /** CPU profiles of the server and the references under load instead of the table. */
  profile: boolean;
  engines: Engine[];
  scenarios: string[];
  connections: number;
  rounds: number;
  /** Length of one measured round, per target. */
  seconds: number;
  warmupSeconds: number;
  /** Also run the scale scenarios on the 1,000,000-user dataset. */
  scale: boolean;
  /** Also measure the platform's own floors (Fastify alone, Fastify + better-sqlite3) for GET /users/{id}. */
  references: boolean;
  postgresUrl?: string;
  outDir: string;
}

export const USAGE = `Usage: npm run bench -- [options]

Measures the API server (a separate process, HTTPS, keep-alive) against a bare node:https server
answering the same bytes, in interleaved rounds, and writes the table as JSON to bench/results/.
PostgreSQL joins when BENCH_POSTGRES_URL names a database of your own (datasets are made beside it).

Options:
  --quick                 SQLite, 10,000 users, 3 short rounds: under two minutes once the dataset is cached
  --profile               CPU profiles of the server under load (GET /users/{id}, GET /users?limit=100,
                          POST /users), then of each reference under the same load, instead of the
                          table; written to bench/results/profiles/ with a side-by-side table
  --engine <list>         sqlite, postgres or both (default: sqlite, and postgres when BENCH_POSTGRES_URL is set)
  --scenario <list>       scenario ids, comma-separated (default: all)
  --connections <n>       concurrent keep-alive connections (default 50)
  --rounds <n>            measured rounds per target (default 5, quick 3)
  --seconds <n>           length of a round (default 4, quick 0.6)
  --no-scale              skip the 1,000,000-user dataset (quick skips it)
  --no-references         skip the Fastify reference servers (quick skips them)
  --out <dir>             where results go (default bench/results)
  -h, --help              this help

Background work has benches of its own: npm run bench:delivery (webhook deliveries draining a
backlog, one endpoint and 100 together; its options in bench/delivery-drain.ts), and the others of
package.json's bench:* scripts, each described in docs/performance.md.`;

function positiveNumber(value: string | undefined, flag: string, fallback: number, integer = true): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0 || (integer && !Number.isInteger(number))) {
    throw new Error(`${flag} must be a positive ${integer ? 'integer' : 'number'} (got "${value}")`);
  }
  return number;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** Throws with a message for the user on any unknown option or bad value. */
export function parseOptions(argv: string[], env: Record<string, string | undefined>, defaultOutDir: string): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowNegative: true,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      quick: { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      engine: { type: 'string' },
      scenario: { type: 'string' },
      connections: { type: 'string' },
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      scale: { type: 'boolean' },
      references: { type: 'boolean' },
      out: { type: 'string' },
    },
  });
  const postgresUrl = env.BENCH_POSTGRES_URL || undefined;
  const engines = list(values.engine);
  for (const engine of engines) {
    if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`--engine must be sqlite or postgres (got "${engine}")`);
  }
  if (engines.includes('postgres') && !postgresUrl) throw new Error('--engine postgres needs BENCH_POSTGRES_URL');
  const scenarios = list(values.scenario);
  selectScenarios(scenarios);
  const quick = values.quick;
  return {
    help: values.help,
    quick,
    profile: values.profile,
    engines: engines.length > 0 ? (engines as Engine[]) : quick || !postgresUrl ? ['sqlite'] : ['sqlite', 'postgres'],
    scenarios,
    connections: positiveNumber(values.connections, '--connections', 50),
    rounds: positiveNumber(values.rounds, '--rounds', quick ? 3 : 5),
    seconds: positiveNumber(values.seconds, '--seconds', quick ? 0.6 : 4, false),
    warmupSeconds: quick ? 0.3 : 2,
    scale: values.scale ?? !quick,
    references: values.references ?? !quick,
    postgresUrl,
    outDir: values.out ?? defaultOutDir,
  };
}
