/**
 * The retained size of two heap snapshots (`v8.writeHeapSnapshot`, `node --heapsnapshot-signal`)
 * by constructor: each node's self size summed by its type and name, and what grew from the first
 * snapshot to the second, largest growth first.
 *
 *   node dist/bench/heap-summary.js before.heapsnapshot after.heapsnapshot [rows]
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Self size and count by `type name` (strings, arrays and code by type alone: their names are their contents). */
function bySize(file: string): Map<string, { bytes: number; count: number }> {
  const { snapshot, nodes, strings } = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const [type, name, size] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field)) as [number, number, number];
  const sizes = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < nodes.length; i += fields.length) {
    const kind = types[nodes[i + type]!]!;
    const key = ['object', 'closure', 'native', 'hidden', 'synthetic'].includes(kind) ? `${kind} ${strings[nodes[i + name]!]}` : kind;
    const entry = sizes.get(key) ?? { bytes: 0, count: 0 };
    entry.bytes += nodes[i + size]!;
    entry.count++;
    sizes.set(key, entry);
  }
  return sizes;
}

const [before, after, rows = '25'] = process.argv.slice(2);
if (!before || !after) throw new Error('usage: heap-summary <before.heapsnapshot> <after.heapsnapshot> [rows]');
const first = bySize(before);
const second = bySize(after);
const total = (sizes: Map<string, { bytes: number }>) => [...sizes.values()].reduce((sum, { bytes }) => sum + bytes, 0);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
console.log(`total: ${kib(total(first))} -> ${kib(total(second))} (${kib(total(second) - total(first))})`);
const keys = new Set([...first.keys(), ...second.keys()]);
const grown = [...keys]
  .map((key) => {
    const a = first.get(key) ?? { bytes: 0, count: 0 };
    const b = second.get(key) ?? { bytes: 0, count: 0 };
    return { key, a, b, growth: b.bytes - a.bytes };
  })
  .sort((x, y) => Math.abs(y.growth) - Math.abs(x.growth))
  .slice(0, Number(rows));
for (const { key, a, b, growth } of grown) {
  console.log(`${kib(growth).padStart(12)}  ${kib(a.bytes).padStart(10)} (${a.count}) -> ${kib(b.bytes).padStart(10)} (${b.count})  ${key}`);
}
