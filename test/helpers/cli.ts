import { main } from '../../src/cli/main.js';
import type { Env } from '../../src/config.js';

export interface CliRun {
  code: number;
  out: string;
  /** What it printed on stderr but its progress lines, which come only when it runs a second or more (a busy machine). */
  err: string;
  /** Its progress lines (`rows 12,500/50,000 checked`, or JSON lines with --json). */
  progress: string[];
}

/** A progress line of an import (src/cli/progress.ts), as text or as a JSON line. */
const PROGRESS_LINE = /^(rows [\d,]+(\/[\d,]+)? [a-z]+|\{"progress":.*)$/;

/** Runs the command line in this process against the database at `databaseUrl`, capturing its output. */
export function runCli(databaseUrl: string, ...argv: string[]): Promise<CliRun> {
  return runCliWith({ DATABASE_URL: databaseUrl }, ...argv);
}

/** Runs the command line in this process with `env` as its environment, capturing its output. */
export async function runCliWith(env: Env, ...argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, env, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return {
    code,
    out: out.join('\n'),
    err: err.filter((line) => !PROGRESS_LINE.test(line)).join('\n'),
    progress: err.filter((line) => PROGRESS_LINE.test(line)),
  };
}
