/**
 * Where a server's CPU time goes, from a V8 `.cpuprofile` (node --cpu-prof): self and inclusive
 * shares by module group and by function, over the samples taken while the load ran.
 *
 * Also a command: `node dist/bench/profile-summary.js <file.cpuprofile>`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  name: string;
  selfPercent: number;
  inclusivePercent: number;
}

export interface ProfileSummary {
  /** Milliseconds of samples in the window, and how much of it the process was idle (waiting on I/O). */
  windowMs: number;
  idlePercent: number;
  /** Shares below are of the busy (non-idle) samples. */
  groups: Share[];
  /** Stages of the request path (see STAGES) and the group-based ones: inclusive shares. */
  stages: { name: string; inclusivePercent: number }[];
  /** The top functions by self time, and by inclusive time (whole calls, callees included). */
  functions: Share[];
  callers: Share[];
}

/** Module groups, first match wins; `url` is a file URL or a node: built-in. */
const GROUPS: [string, RegExp][] = [
  ['Kysely (build, compile, driver)', /\/node_modules\/kysely\//],
  ['pino (request log)', /\/node_modules\/(pino|pino-std-serializers|sonic-boom|thread-stream|on-exit-leak-free)\//],
  ['serialization (fast-json-stringify)', /\/node_modules\/fast-json-stringify\//],
  ['validation (Ajv)', /\/node_modules\/(ajv|ajv-formats|fast-uri|fast-deep-equal|@sinclair)\//],
  [
    'Fastify (routing, hooks, reply)',
    /\/node_modules\/(fastify|find-my-way|avvio|@fastify|light-my-request|fast-querystring|toad-cache|process-warning|abstract-logging|fastify-plugin|safe-regex2|ret|rfdc|secure-json-parse|fast-content-type-parse)\//,
  ],
  ['better-sqlite3 (JS side)', /\/node_modules\/better-sqlite3\//],
  ['pg driver', /\/node_modules\/(pg|pg-protocol|pg-pool|pg-types|pg-connection-string|postgres-[a-z]+|pgpass|split2)\//],
  ['other dependencies', /\/node_modules\//],
  // A reference server's own code; its statements (native calls) count as its self time.
  ['reference: its code and statements', /\/dist\/bench\//],
  ['ours: authenticate (token check)', /\/dist\/src\/(plugins\/authentication|resources\/tokens\/)/],
  ['ours: database layer', /\/dist\/src\/db\//],
  ['ours: plugins (protocol, errors, request id, logging)', /\/dist\/src\/plugins\//],
  ['ours: users', /\/dist\/src\/resources\/users\//],
  ['ours: routes, services, lib', /\/dist\/src\//],
  ['TLS and crypto (node)', /^node:(_tls_|tls|internal\/tls|crypto|internal\/crypto)/],
  ['HTTP (node)', /^node:(_http_|http|internal\/http)/],
  ['async hooks (AsyncLocalStorage)', /^node:(internal\/)?async_hooks$/],
  [
    'net, streams, timers (node)',
    /^node:(net|stream|internal\/streams|internal\/stream_base|timers|internal\/timers|events|internal\/process\/task_queues)/,
  ],
  ['node (other)', /^node:/],
];

const TOP = 30;
const ROOT = '(root)';

const SPECIAL = new Map([
  ['(idle)', 'idle'],
  ['(program)', 'V8 and native code outside JavaScript (program)'],
  ['(garbage collector)', 'garbage collector'],
  ['(root)', ROOT],
]);

/** Stages of the request path, each the samples with at least one frame it matches (inclusive). */
const STAGES: [string, (frame: CallFrame) => boolean][] = [
  ['authenticate: the token check, its statement included', (f) => f.functionName === 'authenticate' && /\/tokens\.service\.js$/.test(f.url)],
  [
    'Kysely: building queries',
    (f) => /\/kysely\/dist\/esm\/(query-builder|query-creator|parser|expression|dynamic)\//.test(f.url) && !/^execute/.test(f.functionName),
  ],
  ['Kysely: compiling queries', (f) => f.functionName === 'compileQuery' && /\/kysely\//.test(f.url)],
  [
    'request validation (Ajv)',
    (f) => (!f.url && /^validate\d+$/.test(f.functionName)) || (f.functionName === 'validate' && /\/fastify\/lib\/validation\.js$/.test(f.url)),
  ],
  ['response serialization (fast-json-stringify)', (f) => (!f.url && /^anonymous\d+$/.test(f.functionName)) || /\/fast-json-stringify\//.test(f.url)],
  ['request log (pino)', (f) => /\/node_modules\/(pino|sonic-boom|pino-std-serializers)\//.test(f.url) || /\/plugins\/logging\.js$/.test(f.url)],
];

const STATEMENT = 'SQLite statement (native)';
const SOCKET_WRITE = 'socket write: TLS encryption and syscall (native)';
const DATABASE_WRITE = 'socket write to PostgreSQL (native)';

/** The group of a frame; frames without a source (native functions, generated code) mostly take their caller's. */
function groupOf(frame: CallFrame, callerGroup: string, underDriver: boolean): string {
  // better-sqlite3's native calls show as the self time of the dialect function making them.
  if (frame.functionName === 'runStatement' && frame.url.endsWith('/db/sqlite-dialect.js')) return STATEMENT;
  if (!frame.url) {
    if (callerGroup === 'ours: database layer') return STATEMENT;
    if (/^(writev|writeBuffer|write\w*String)$/.test(frame.functionName) && callerGroup.startsWith('net,')) {
      return underDriver ? DATABASE_WRITE : SOCKET_WRITE;
    }
    return callerGroup;
  }
  return GROUPS.find(([, pattern]) => pattern.test(frame.url))?.[0] ?? 'other';
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  const ours = url.indexOf('/dist/');
  if (ours >= 0) return url.slice(ours + '/dist/'.length);
  return url;
}

function functionKey(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  return frame.url ? `${name} ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : `${name} (native or generated)`;
}

/**
 * Summarizes the samples whose time (the profile's monotonic clock, in microseconds, which is the one
 * process.hrtime reads) falls in `window`; all samples when the window holds none.
 */
export function summarizeProfile(file: string, window?: [number, number]): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  // The sample's stack, leaf first, with each frame's group (native and generated frames take their caller's).
  type Frame = { key: string; group: string; stages: number[] };
  const stacks = new Map<number, Frame[]>();
  function stackOf(id: number): Frame[] {
    const cached = stacks.get(id);
    if (cached) return cached;
    const frames: ProfileNode[] = [];
    for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) frames.push(byId.get(current)!);
    const result: Frame[] = new Array(frames.length);
    let inherited = 'other';
    let underDriver = false;
    for (let index = frames.length - 1; index >= 0; index -= 1) {
      const frame = frames[index]!.callFrame;
      const special = SPECIAL.get(frame.functionName);
      const group: string = special ?? groupOf(frame, inherited, underDriver);
      underDriver ||= group === 'pg driver';
      inherited = group === ROOT ? 'node (other)' : group;
      const stages = STAGES.flatMap(([, matches], stage) => (matches(frame) ? [stage] : []));
      result[index] = { key: special ? frame.functionName : functionKey(frame), group, stages };
    }
    stacks.set(id, result);
    return result;
  }

  const groupSelf = new Map<string, number>();
  const groupInclusive = new Map<string, number>();
  const functionSelf = new Map<string, number>();
  const functionInclusive = new Map<string, number>();
  const stageInclusive = new Array<number>(STAGES.length).fill(0);
  const add = (map: Map<string, number>, key: string, weight: number) => map.set(key, (map.get(key) ?? 0) + weight);

  const inWindow: { node: number; weight: number }[] = [];
  let time = profile.startTime;
  for (let index = 0; index < profile.samples.length; index += 1) {
    time += profile.timeDeltas[index] ?? 0;
    // A sample stands for the time until the next one.
    const weight = profile.timeDeltas[index + 1] ?? 0;
    if (!window || (time >= window[0] && time <= window[1])) inWindow.push({ node: profile.samples[index]!, weight });
  }
  const samples = inWindow.length > 0 ? inWindow : profile.samples.map((node, index) => ({ node, weight: profile.timeDeltas[index + 1] ?? 0 }));

  let total = 0;
  let idle = 0;
  for (const { node, weight } of samples) {
    const stack = stackOf(node);
    total += weight;
    if (stack[0]!.group === 'idle') {
      idle += weight;
      continue;
    }
    add(groupSelf, stack[0]!.group, weight);
    add(functionSelf, stack[0]!.key, weight);
    for (const group of new Set(stack.map((frame) => frame.group))) add(groupInclusive, group, weight);
    for (const key of new Set(stack.map((frame) => frame.key))) add(functionInclusive, key, weight);
    for (const stage of new Set(stack.flatMap((frame) => frame.stages))) stageInclusive[stage]! += weight;
  }
  const busy = total - idle || 1;
  const shares = (self: Map<string, number>, inclusive: Map<string, number>) =>
    [...inclusive.keys()]
      .filter((name) => name !== ROOT)
      .map((name) => ({ name, selfPercent: ((self.get(name) ?? 0) / busy) * 100, inclusivePercent: ((inclusive.get(name) ?? 0) / busy) * 100 }));
  const functions = shares(functionSelf, functionInclusive);
  return {
    windowMs: total / 1000,
    idlePercent: (idle / (total || 1)) * 100,
    groups: shares(groupSelf, groupInclusive).sort((a, b) => b.selfPercent - a.selfPercent),
    stages: STAGES.map(([name], stage) => ({ name, inclusivePercent: (stageInclusive[stage]! / busy) * 100 })),
    functions: functions.sort((a, b) => b.selfPercent - a.selfPercent).slice(0, TOP),
    callers: [...functions].sort((a, b) => b.inclusivePercent - a.inclusivePercent).slice(0, TOP),
  };
}

export function formatSummary(summary: ProfileSummary): string {
  const row = (share: Share, width: number) =>
    `${share.selfPercent.toFixed(1).padStart(6)} ${share.inclusivePercent.toFixed(1).padStart(7)}  ${share.name.slice(0, width)}`;
  return [
    `${(summary.windowMs / 1000).toFixed(1)} s of samples, ${summary.idlePercent.toFixed(1)}% idle; shares of the busy time:`,
    '',
    ' self% incl.%  module group',
    ...summary.groups.map((share) => row(share, 100)),
    '',
    '        incl.%  stage of the request path',
    ...summary.stages.map((stage) => `${stage.inclusivePercent.toFixed(1).padStart(14)}  ${stage.name}`),
    '',
    ` self% incl.%  function (top ${TOP} by self time)`,
    ...summary.functions.map((share) => row(share, 110)),
    '',
    ` self% incl.%  function (top ${TOP} by inclusive time)`,
    ...summary.callers.map((share) => row(share, 110)),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // `--last <seconds>`: only the samples of the profile's last seconds (the measured load, not start-up).
  const [file, flag, seconds] = process.argv.slice(2);
  if (!file || (flag !== undefined && (flag !== '--last' || !(Number(seconds) > 0)))) {
    console.error('Usage: node dist/bench/profile-summary.js <file.cpuprofile> [--last <seconds>]');
    process.exitCode = 2;
  } else {
    const { endTime } = JSON.parse(readFileSync(file, 'utf8')) as { endTime: number };
    const window: [number, number] | undefined = flag ? [endTime - Number(seconds) * 1e6, endTime] : undefined;
    console.log(formatSummary(summarizeProfile(file, window)));
  }
}
