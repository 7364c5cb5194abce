/** The benchmark's results: medians and ratios of interleaved rounds, the printed table and the JSON file. */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median } from './stats.js';

export interface Round {
  rps: number;
  p50: number;
  p99: number;
  /** Of one core; the floor of a password scenario is the hashing process. */
  cpuPercent?: number;
  rssMB?: number;
  /** The load generator's own CPU (of one core): near 100 means it, not the target, set the pace. */
  loadCpuPercent?: number;
  failures: Record<string, number>;
}

export type TargetKind = 'floor' | 'hash-floor' | 'server' | 'reference';

export interface TargetResult {
  name: string;
  kind: TargetKind;
  rounds: Round[];
  median: Omit<Round, 'failures'>;
  /** Median over rounds of this target's rate divided by the floor's in the same round. */
  ratio?: number;
  /** Median over rounds of the target's CPU time per request (ms of one core). */
  cpuMsPerRequest?: number;
  /**
   * Median over rounds of the floor's CPU time per request divided by this target's: what the ratio
   * would be if both were limited by their own CPU alone, which survives a busy machine far better.
   */
  cpuRatio?: number;
  failures: Record<string, number>;
  exhausted?: boolean;
}

export interface ScenarioResult {
  engine: string;
  scenario: string;
  title: string;
  /** Status and body size of the real response, which the floor repeats. */
  status: number;
  responseBytes: number;
  hashScheme?: string;
  loadavg: { start: number[]; end: number[] };
  targets: TargetResult[];
}

export interface RunReport {
  kind: 'training-api benchmark';
  version: 1;
  startedAt: string;
  finishedAt?: string;
  mode: 'quick' | 'full';
  argv: string[];
  method: { connections: number; rounds: number; seconds: number; warmupSeconds: number };
  machine: { cpus: number; cpuModel: string; memoryGB: number; node: string; platform: string };
  loadavg: { start: number[]; end?: number[] };
  datasets: { engine: string; label: string; users: number; userfieldValues: number; registrations: number; seedSeconds: number }[];
  scenarios: ScenarioResult[];
}

export function newReport(mode: RunReport['mode'], argv: string[], method: RunReport['method']): RunReport {
  const cpus = os.cpus();
  return {
    kind: 'training-api benchmark',
    version: 1,
    startedAt: new Date().toISOString(),
    mode,
    argv,
    method,
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model ?? 'unknown',
      memoryGB: Math.round(os.totalmem() / 1024 ** 3),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    loadavg: { start: os.loadavg() },
    datasets: [],
    scenarios: [],
  };
}

/** CPU milliseconds per request in a round, when its CPU was measured. */
function cpuMsPerRequest(round: Round): number | undefined {
  return round.cpuPercent === undefined || round.rps <= 0 ? undefined : (round.cpuPercent * 10) / round.rps;
}

function medianOf(rounds: Round[], key: keyof Omit<Round, 'failures'>): number | undefined {
  const values = rounds.map((round) => round[key]).filter((value): value is number => value !== undefined);
  return values.length > 0 ? median(values) : undefined;
}

/** Medians of each measure, the failures summed, and the paired ratio to the floor's rounds. */
export function summarize(name: string, kind: TargetKind, rounds: Round[], floorRounds?: Round[]): TargetResult {
  const failures: Record<string, number> = {};
  for (const round of rounds) for (const [what, count] of Object.entries(round.failures)) failures[what] = (failures[what] ?? 0) + count;
  const result: TargetResult = {
    name,
    kind,
    rounds,
    median: {
      rps: medianOf(rounds, 'rps')!,
      p50: medianOf(rounds, 'p50')!,
      p99: medianOf(rounds, 'p99')!,
      cpuPercent: medianOf(rounds, 'cpuPercent'),
      rssMB: medianOf(rounds, 'rssMB'),
      loadCpuPercent: medianOf(rounds, 'loadCpuPercent'),
    },
    failures,
  };
  const cpuCosts = rounds.map(cpuMsPerRequest).filter((cost) => cost !== undefined);
  if (cpuCosts.length > 0) result.cpuMsPerRequest = median(cpuCosts);
  if (floorRounds && floorRounds.length === rounds.length) {
    result.ratio = median(rounds.map((round, index) => round.rps / floorRounds[index]!.rps));
    const cpuRatios = rounds.flatMap((round, index) => {
      const ours = cpuMsPerRequest(round);
      const floor = cpuMsPerRequest(floorRounds[index]!);
      return ours && floor ? [floor / ours] : [];
    });
    if (cpuRatios.length > 0) result.cpuRatio = median(cpuRatios);
  }
  return result;
}

const COLUMNS = [
  ['engine', 8],
  ['scenario', 38],
  ['target', 16],
  ['req/s', 9],
  ['p50 ms', 8],
  ['p99 ms', 8],
  ['floor/s', 9],
  ['ratio', 7],
  ['CPU %', 7],
  ['CPU ms/req', 11],
  ['CPU ratio', 10],
  ['RSS MB', 8],
] as const;

function line(cells: string[]): string {
  return cells.map((cell, index) => (index < 3 ? cell.padEnd(COLUMNS[index]![1]) : cell.padStart(COLUMNS[index]![1]))).join(' ');
}

const whole = (value: number | undefined) => (value === undefined ? '-' : Math.round(value).toLocaleString('en-US'));
const decimal = (value: number | undefined, digits = 1) => (value === undefined ? '-' : value.toFixed(digits));

/** One line per measured target (the floor is the `floor/s` column of its scenario). */
export function tableOf(scenarios: ScenarioResult[]): string {
  const lines = [line(COLUMNS.map(([title]) => title))];
  for (const scenario of scenarios) {
    const floor = scenario.targets.find((target) => target.kind === 'floor' || target.kind === 'hash-floor');
    for (const target of scenario.targets) {
      if (target === floor) continue;
      const failed = Object.entries(target.failures).map(([what, count]) => `${count}×${what}`);
      const notes = [...(failed.length ? [`failures: ${failed.join(', ')}`] : []), ...(target.exhausted ? ['pool exhausted'] : [])];
      lines.push(
        line([
          scenario.engine,
          scenario.title,
          target.name,
          whole(target.median.rps),
          decimal(target.median.p50),
          decimal(target.median.p99),
          whole(floor?.median.rps),
          decimal(target.ratio, 2),
          whole(target.median.cpuPercent),
          decimal(target.cpuMsPerRequest, 2),
          decimal(target.cpuRatio, 2),
          whole(target.median.rssMB),
        ]) + (notes.length ? `  ${notes.join('; ')}` : ''),
      );
    }
  }
  return lines.join('\n');
}

/** Writes the report as `<outDir>/<start time>-<mode>.json`; returns the file. */
export function writeReport(report: RunReport, outDir: string): string {
  mkdirSync(outDir, { recursive: true });
  const stamp = report.startedAt.slice(0, 19).replace(/:/g, '-');
  const file = path.join(outDir, `${stamp}-${report.mode}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
