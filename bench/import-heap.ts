/**
 * Where an import's memory goes as it runs: `importUsers` of a generated HR file of PEOPLE people
 * (default 200,000; three userfield values each, as bench:import-memory's) into a fresh SQLite
 * organization, in this process with the command line's heap settings. At each tenth of every stage
 * it prints the process's RSS, the main heap used and the external memory; with SNAPSHOT_DIR, it also
 * writes a heap snapshot at each fraction of the write stage in SNAPSHOTS (default `0.25,0.95`), to
 * compare with `node dist/bench/heap-summary.js <before> <after>`.
 *
 *   npm run build && PEOPLE=200000 SNAPSHOT_DIR=/tmp/heap node dist/bench/import-heap.js
 */
import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import type { Caller } from '../src/auth/caller.js';
import { migrateToLatest, openDatabase } from '../src/db/database.js';
import { COMMAND_LINE_ACTOR } from '../src/lib/actors.js';
import { importUsers } from '../src/imports/users-import.js';
import type { Stage } from '../src/imports/progress.js';
import { DEFAULT_PASSWORD_POLICY } from '../src/lib/password-policy.js';
import { freshOrganization, hrFile } from './import-files.js';

const PEOPLE = Number(process.env.PEOPLE ?? 200_000);
const SNAPSHOT_DIR = process.env.SNAPSHOT_DIR;
const SNAPSHOTS = (process.env.SNAPSHOTS ?? '0.25,0.95').split(',').map(Number);

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)}`;

/** The statements SQLite prepared: how many, how many distinct texts, and those texts' characters. */
const prepared = { count: 0, texts: new Set<string>(), characters: 0 };
const prepare = BetterSqlite3.prototype.prepare;
BetterSqlite3.prototype.prepare = function (this: BetterSqlite3.Database, sql: string) {
  prepared.count++;
  if (!prepared.texts.has(sql)) {
    prepared.texts.add(sql);
    prepared.characters += sql.length;
  }
  return prepare.call(this, sql);
} as typeof prepare;
function sample(label: string): void {
  const usage = process.memoryUsage();
  console.log(
    `${label}: rss ${mib(usage.rss)} MiB, heap used ${mib(usage.heapUsed)} of ${mib(usage.heapTotal)}, external ${mib(usage.external)} (array buffers ${mib(usage.arrayBuffers)}); ` +
      `${prepared.count} statements prepared, ${prepared.texts.size} texts of ${mib(prepared.characters)} MiB`,
  );
}

setFlagsFromString('--heap-growing-percent=20');
const dir = mkdtempSync(path.join(tmpdir(), 'import-heap-'));
try {
  const file = hrFile(dir, PEOPLE);
  const target = await freshOrganization(dir, 'import-heap');
  const { db, close } = openDatabase(target.url, { poolSize: 2 });
  await migrateToLatest(db);
  const caller: Caller = { orgId: target.orgId, tokenId: 'bench', scopes: ['read', 'write'], actor: COMMAND_LINE_ACTOR };
  let stage: Stage = 'read';
  let total = 0;
  let done = 0;
  let nextTenth = 1;
  let snapshots = [...SNAPSHOTS];
  const started = performance.now();
  sample('start');
  const outcome = await importUsers(
    db,
    caller,
    { path: file },
    {
      format: 'csv',
      map: new Map(),
      ignore: [],
      dryRun: false,
      deactivateMissing: false,
      onlyImported: false,
      passwordPolicy: DEFAULT_PASSWORD_POLICY,
      progress: {
        stage(next, rows) {
          stage = next;
          total = rows ?? 0;
          done = 0;
          nextTenth = 1;
        },
        advance(rows) {
          done += rows;
          if (total === 0) return;
          if (done >= (total * nextTenth) / 10) {
            sample(`${stage} ${done} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
            nextTenth = Math.floor((done * 10) / total) + 1;
          }
          if (SNAPSHOT_DIR && stage === 'imported' && snapshots.length > 0 && done >= total * snapshots[0]!) {
            const written = writeHeapSnapshot(path.join(SNAPSHOT_DIR, `import-${PEOPLE}-${done}.heapsnapshot`));
            console.log(`snapshot ${written}`);
            snapshots = snapshots.slice(1);
          }
        },
        stop() {},
      },
    },
  );
  const seconds = (performance.now() - started) / 1000;
  sample('end');
  console.log(
    `${PEOPLE} people: ${'summary' in outcome ? JSON.stringify(outcome.summary) : JSON.stringify(outcome)}; ${seconds.toFixed(0)} s, ${Math.round(PEOPLE / seconds)} people/s; peak RSS ${mib(process.resourceUsage().maxRSS * 1024)} MiB`,
  );
  await close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
