import { main } from '../../src/cli/main.js';
import type { Env } from '../../src/config.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs the command line in this process against the database at `databaseUrl`, capturing its output. */
export function runCli(databaseUrl: string, ...argv: string[]): Promise<CliRun> {
  return runCliWith({ DATABASE_URL: databaseUrl }, ...argv);
}

/** Runs the command line in this process with `env` as its environment, capturing its output. */
export async function runCliWith(env: Env, ...argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, env, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
