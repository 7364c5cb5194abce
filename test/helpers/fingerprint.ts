import { sql, type Kysely } from 'kysely';
import type { Engine } from '../../src/db/database.js';

/**
 * What a request may write without changing anything a client sees: authentication records when a
 * token or client was last used (any table's `last_used_date`), and a read of the event feed gives
 * the events committed since the last read their positions (`events.position` and the table
 * `event_feeds`; see src/events/feed-positions.ts), and a SCIM request is kept in its
 * organization's log of them (`scim_requests`, src/scim/request-log.ts).
 */
const BOOKKEEPING_COLUMNS = new Set(['last_used_date', 'events.position']);
const BOOKKEEPING_TABLES = new Set(['event_feeds', 'scim_requests']);
const COUNTS = 'test_row_writes';

async function tablesOf(db: Kysely<any>, engine: Engine): Promise<Map<string, string[]>> {
  // Ordinary tables only: SQLite's name index (a virtual table and its shadow tables) follows `users`.
  const rows =
    engine === 'sqlite'
      ? await sql<{ table_name: string; column_name: string }>`
          select m.name as table_name, p.name as column_name from pragma_table_list m, pragma_table_info(m.name) p
          where m.schema = 'main' and m.type = 'table' and m.name not like 'sqlite_%' and m.name not like 'kysely_%' order by m.name, p.cid`.execute(
          db,
        )
      : await sql<{ table_name: string; column_name: string }>`
          select table_name, column_name from information_schema.columns
          where table_schema = current_schema() and table_name not like 'kysely_%' order by table_name, ordinal_position`.execute(db);
  const tables = new Map<string, string[]>();
  for (const { table_name, column_name } of rows.rows) {
    if (BOOKKEEPING_TABLES.has(table_name)) continue;
    if (!tables.has(table_name)) tables.set(table_name, []);
    const bookkeeping = BOOKKEEPING_COLUMNS.has(column_name) || BOOKKEEPING_COLUMNS.has(`${table_name}.${column_name}`);
    if (!bookkeeping) tables.get(table_name)!.push(column_name);
  }
  return tables;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Triggers that count, per table, every row inserted, deleted or changed (bookkeeping columns aside). */
function countingTriggers(engine: Engine, tables: Map<string, string[]>): string[] {
  const statements = [`create table ${COUNTS} (table_name text primary key, n integer not null)`];
  if (engine === 'postgres') {
    statements.push(`create function ${COUNTS}_count() returns trigger language plpgsql as $$
      begin update ${COUNTS} set n = n + 1 where table_name = TG_TABLE_NAME; return null; end $$`);
  }
  for (const [table, columns] of tables) {
    statements.push(`insert into ${COUNTS} values ('${table}', 0)`);
    const events = ['insert', 'delete', `update of ${columns.map(quote).join(', ')}`];
    if (engine === 'postgres') {
      statements.push(`create trigger ${COUNTS} after ${events.join(' or ')} on ${quote(table)} for each row execute function ${COUNTS}_count()`);
    } else {
      for (const [index, event] of events.entries()) {
        statements.push(`create trigger ${COUNTS}_${table}_${index} after ${event} on ${quote(table)}
          begin update ${COUNTS} set n = n + 1 where table_name = '${table}'; end`);
      }
    }
  }
  return statements;
}

/**
 * Watches every table of a test database for writes: the function returned answers the same
 * exactly when no row was added, removed or altered in between (a rolled-back write leaves no
 * trace), at the cost of one small query whatever the amount of data.
 */
export async function fingerprinter(db: Kysely<any>, engine: Engine): Promise<() => Promise<string>> {
  const tables = await tablesOf(db, engine);
  for (const statement of countingTriggers(engine, tables)) await sql.raw(statement).execute(db);
  const query = sql.raw<{ table_name: string; n: number | string }>(`select table_name, n from ${COUNTS} order by table_name`);
  return async () => (await query.execute(db)).rows.map(({ table_name, n }) => `${table_name}=${n}`).join('\n');
}

/** Names the tables whose fingerprints differ, for an assertion message. */
export function changedTables(before: string, after: string): string[] {
  const old = new Set(before.split('\n'));
  return after
    .split('\n')
    .filter((line) => !old.has(line))
    .map((line) => line.slice(0, line.indexOf('=')));
}
