/**
 * Primary-key SELECT throughput through Kysely: stock SqliteDialect versus
 * createSqliteDialect, on the same WAL database file. Rounds alternate between
 * the two so drift on the machine (thermal, other load) hits both alike.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { createSqliteDialect } from '../../src/db/sqlite-dialect.js';
import { formatOps, median, row } from '../stats.js';

interface Schema {
  users: { id: number; email: string; display_name: string; created_at: string };
}

const ROW_COUNT = 1_000;
const ROUNDS = 7;
const ROUND_MS = 500;
// Concurrent callers model an HTTP server with several requests in flight.
const SCENARIOS = [
  { name: 'sequential (1 caller)', callers: 1 },
  { name: '32 concurrent callers', callers: 32 },
];

export async function run(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-dialect-bench-'));
  const file = path.join(dir, 'bench.sqlite');
  createUsersTable(file);
  const stock = new Kysely<Schema>({ dialect: new SqliteDialect({ database: openDatabase(file) }) });
  const ours = new Kysely<Schema>({ dialect: createSqliteDialect(openDatabase(file)) });
  try {
    console.log(
      `Primary-key SELECT on a ${ROW_COUNT.toLocaleString('en-US')}-row WAL table; ` +
        `median of ${ROUNDS} alternating rounds of ${ROUND_MS} ms each.`,
    );
    console.log(row('scenario', 'stock SqliteDialect', 'createSqliteDialect', 'ours/stock'));
    for (const { name, callers } of SCENARIOS) {
      await measure(stock, callers, ROUND_MS); // warm-up: JIT and page cache
      await measure(ours, callers, ROUND_MS);
      const stockOps: number[] = [];
      const oursOps: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        stockOps.push(await measure(stock, callers, ROUND_MS));
        oursOps.push(await measure(ours, callers, ROUND_MS));
      }
      const stockMedian = median(stockOps);
      const oursMedian = median(oursOps);
      console.log(row(name, formatOps(stockMedian), formatOps(oursMedian), `${(oursMedian / stockMedian).toFixed(2)}x`));
    }
  } finally {
    await stock.destroy();
    await ours.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function openDatabase(file: string): Database.Database {
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  return database;
}

function createUsersTable(file: string): void {
  const database = openDatabase(file);
  database.exec('create table users (id integer primary key, email text not null unique, display_name text not null, created_at text not null)');
  const insert = database.prepare('insert into users (id, email, display_name, created_at) values (?, ?, ?, ?)');
  database.transaction(() => {
    for (let id = 1; id <= ROW_COUNT; id++) {
      insert.run(id, `user${id}@example.com`, `User ${id}`, new Date(Date.UTC(2024, 0, 1, 0, 0, id)).toISOString());
    }
  })();
  database.close();
}

/** Operations per second over `durationMs`, with `callers` loops each awaiting one select at a time. */
async function measure(db: Kysely<Schema>, callers: number, durationMs: number): Promise<number> {
  let operations = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  const caller = async (offset: number): Promise<void> => {
    for (let i = offset; performance.now() < deadline; i += callers) {
      const id = (i % ROW_COUNT) + 1;
      await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      operations++;
    }
  };
  await Promise.all(Array.from({ length: callers }, (_, offset) => caller(offset)));
  return operations / ((performance.now() - start) / 1000);
}
