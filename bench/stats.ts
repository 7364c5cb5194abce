/** Shared arithmetic and layout of the benchmarks' tables. */
import { loadavg } from 'node:os';

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function formatOps(opsPerSecond: number, unit = 'ops/s'): string {
  return `${Math.round(opsPerSecond).toLocaleString('en-US')} ${unit}`;
}

export function row(scenario: string, baseline: string, ours: string, ratio: string): string {
  return `${scenario.padEnd(24)}${baseline.padStart(22)}${ours.padStart(22)}${ratio.padStart(12)}`;
}

/** The machine's load averages over 1, 5 and 15 minutes, as printed beside a bench's figures. */
export function loadAverage(digits = 2): string {
  return loadavg()
    .map((load) => load.toFixed(digits))
    .join(' ');
}
