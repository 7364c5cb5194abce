/**
 * Copies every organization's data from one database to another, engine to engine, driven by
 * the schema itself: the tables, their keys and the order between them are read from the
 * database, so tables added by later migrations are copied without any change here.
 */
import { sql, type Kysely } from 'kysely';
import { analyze, migrateToLatest, type DatabaseHandle } from './database.js';
import { migrations } from './migrations/index.js';
import { VERSIONS_TABLE } from './migration-versions.js';

/** A copy that must not start (unknown migrations, a target that already holds data). */
export class CopyRefusedError extends Error {}

export interface CopyProgress {
  /** Called once, with the number of rows to copy, before the first row is written. */
  start(totalRows: number): void;
  /** Called after each batch written. */
  advance(rows: number, table: string): void;
}

/** Rows counted in one table, on each side, after the copy. */
export interface TableCount {
  table: string;
  source: number;
  target: number;
}

interface Column {
  name: string;
  dataType: string;
}

interface TableShape {
  name: string;
  columns: Column[];
  primaryKey: string[];
  /** Tables this one's foreign keys point at. */
  parents: string[];
}

const BATCH_ROWS = 1_000;
/** Bound values in one INSERT, under SQLite's limit (32,766) and PostgreSQL's (65,535). */
const MAX_PARAMETERS = 30_000;
const MIGRATION_TABLE = 'kysely_migration';

/**
 * Migrates both databases, then copies every row of the source into the target inside one
 * target transaction: any failure leaves the target without a single copied row. The source is
 * read from one snapshot. Returns the per-table counts, checked equal before the commit.
 */
export async function copyDatabase(source: DatabaseHandle, target: DatabaseHandle, progress?: CopyProgress): Promise<TableCount[]> {
  await refuseUnknownMigrations(source, 'source');
  await refuseUnknownMigrations(target, 'target');
  await migrateToLatest(source.db);
  await migrateToLatest(target.db);
  const tables = parentsFirst(await describeTables(target));
  assertSameTables(tables, await describeTables(source));

  const counts = await readSnapshot(source, (reader) =>
    target.db.transaction().execute(async (writer) => {
      await refuseNonEmpty(writer, tables);
      const sourceCounts = new Map<string, number>();
      for (const table of tables) sourceCounts.set(table.name, await countRows(reader, table.name));
      progress?.start([...sourceCounts.values()].reduce((sum, count) => sum + count, 0));

      for (const table of tables) await copyTable(reader, writer, table, progress);
      if (target.engine === 'postgres') await advanceIdentities(writer);

      const counts: TableCount[] = [];
      for (const table of tables) {
        counts.push({ table: table.name, source: sourceCounts.get(table.name)!, target: await countRows(writer, table.name) });
      }
      const unequal = counts.filter((count) => count.source !== count.target);
      if (unequal.length > 0) {
        throw new Error(`Row counts differ after the copy: ${unequal.map((c) => `${c.table} ${c.source} → ${c.target}`).join(', ')}`);
      }
      return counts;
    }),
  );
  // The copied tables are new to the target's planner (see `analyze`).
  await analyze(
    target.db,
    tables.map((table) => table.name),
  );
  return counts;
}

/** Runs `read` in one transaction on the source, so every table is read as of the same moment. */
function readSnapshot<T>(source: DatabaseHandle, read: (reader: Kysely<any>) => Promise<T>): Promise<T> {
  const transaction = source.db.transaction();
  // SQLite transactions are already exclusive (our dialect begins them IMMEDIATE).
  const snapshot = source.engine === 'postgres' ? transaction.setIsolationLevel('repeatable read').setAccessMode('read only') : transaction;
  return snapshot.execute((trx) => read(trx as Kysely<any>));
}

async function refuseUnknownMigrations(database: DatabaseHandle, role: 'source' | 'target'): Promise<void> {
  const tables = await tablesOf(database, { withInternalKyselyTables: true });
  if (!tables.some((table) => table.name === MIGRATION_TABLE)) return;
  const applied = await (database.db as Kysely<any>).selectFrom(MIGRATION_TABLE).select('name').execute();
  const unknown = applied.map((row) => String(row.name)).filter((name) => !(name in migrations));
  if (unknown.length > 0) {
    throw new CopyRefusedError(
      `The ${role} database has migrations this version of training-api does not know (${unknown.join(', ')}); ` +
        'run the copy with the version that created them',
    );
  }
}

async function refuseNonEmpty(db: Kysely<any>, tables: TableShape[]): Promise<void> {
  const filled: string[] = [];
  for (const table of tables) {
    const count = await countRows(db, table.name);
    if (count > 0) filled.push(`${table.name}: ${count}`);
  }
  if (filled.length > 0) {
    throw new CopyRefusedError(`The target database already holds data (${filled.join(', ')}); copy only into an empty database`);
  }
}

/**
 * Rows were copied with their generated numbers (the events' `seq`): each identity's sequence then
 * goes on after the largest, as if the rows had been inserted here.
 */
async function advanceIdentities(writer: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns where table_schema = current_schema() and is_identity = 'YES'`.execute(writer);
  for (const { table_name: table, column_name: column } of rows) {
    const largest = sql`coalesce((select max(${sql.ref(column)}) from ${sql.table(table)}), 0) + 1`;
    await sql`select setval(pg_get_serial_sequence(${table}, ${column}), ${largest}, false)`.execute(writer);
  }
}

async function copyTable(reader: Kysely<any>, writer: Kysely<any>, table: TableShape, progress?: CopyProgress): Promise<void> {
  const columns = table.columns.map((column) => column.name);
  const convert = rowConverter(table);
  const batchRows = Math.max(1, Math.min(BATCH_ROWS, Math.floor(MAX_PARAMETERS / columns.length)));
  // Keyset paging on the primary key: each batch starts after the last key read, whatever the table's size.
  let lastKey: unknown[] | undefined;
  for (;;) {
    let query = reader.selectFrom(table.name).select(columns).limit(batchRows);
    for (const column of table.primaryKey) query = query.orderBy(column);
    if (lastKey) query = query.where(sql<boolean>`(${sql.join(table.primaryKey.map((column) => sql.ref(column)))}) > (${sql.join(lastKey)})`);
    const rows = await query.execute();
    if (rows.length === 0) return;
    try {
      await writer.insertInto(table.name).values(rows.map(convert)).execute();
    } catch (error) {
      throw new Error(`Copying ${table.name} failed: ${(error as Error).message}`, { cause: error });
    }
    progress?.advance(rows.length, table.name);
    if (rows.length < batchRows) return;
    const last = rows[rows.length - 1]!;
    lastKey = table.primaryKey.map((column) => last[column]);
  }
}

/** SQLite keeps booleans as 0/1; PostgreSQL wants true/false. (Our SQLite dialect binds booleans as 0/1 itself.) */
function rowConverter(table: TableShape): (row: Record<string, unknown>) => Record<string, unknown> {
  const booleans = table.columns.filter((column) => column.dataType === 'bool').map((column) => column.name);
  if (booleans.length === 0) return (row) => row;
  return (row) => {
    const converted = { ...row };
    for (const column of booleans) {
      if (typeof converted[column] === 'number') converted[column] = converted[column] !== 0;
    }
    return converted;
  };
}

async function countRows(db: Kysely<any>, table: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count); // PostgreSQL counts are bigints, which pg returns as strings
}

/**
 * Tables, not views, without the record of which version applied each migration: each database keeps its
 * own. Nor SQLite's virtual tables and theirs (the name search's index, migration 0030): the target's
 * triggers index the people copied. (On PostgreSQL our dialect introspects the connection's own schema only.)
 */
async function tablesOf(database: DatabaseHandle, options: { withInternalKyselyTables: boolean }) {
  const indexes =
    database.engine === 'sqlite'
      ? (await sql<{ name: string }>`select name from pragma_table_list where type in ('virtual', 'shadow')`.execute(database.db)).rows
      : [];
  const skipped = new Set([VERSIONS_TABLE, ...indexes.map(({ name }) => name)]);
  return (await database.db.introspection.getTables(options)).filter((table) => !table.isView && !skipped.has(table.name));
}

async function describeTables(database: DatabaseHandle): Promise<TableShape[]> {
  const tables = await tablesOf(database, { withInternalKyselyTables: false });
  const { primaryKeys, references } = await keysOf(database);
  return tables.map((table) => {
    const primaryKey = primaryKeys.filter((key) => key.table === table.name).map((key) => key.column);
    if (primaryKey.length === 0)
      throw new Error(`Table ${table.name} has no primary key; every table needs one, led by org_id (docs/decisions/0007)`);
    return {
      name: table.name,
      columns: table.columns.map((column) => ({ name: column.name, dataType: column.dataType.toLowerCase() })),
      primaryKey,
      parents: [...new Set(references.filter((reference) => reference.table === table.name).map((reference) => reference.parent))],
    };
  });
}

interface Keys {
  /** Primary-key columns, in key order within each table. */
  primaryKeys: { table: string; column: string }[];
  references: { table: string; parent: string }[];
}

async function keysOf(database: DatabaseHandle): Promise<Keys> {
  const { db } = database;
  if (database.engine === 'sqlite') {
    const primaryKeys = await sql<{ table: string; column: string }>`
      select m.name as "table", p.name as "column"
      from sqlite_master m join pragma_table_info(m.name) p
      where m.type = 'table' and p.pk > 0
      order by m.name, p.pk`.execute(db);
    const references = await sql<{ table: string; parent: string }>`
      select m.name as "table", f."table" as parent
      from sqlite_master m join pragma_foreign_key_list(m.name) f
      where m.type = 'table'`.execute(db);
    return { primaryKeys: primaryKeys.rows, references: references.rows };
  }
  const primaryKeys = await sql<{ table: string; column: string }>`
    select t.relname as "table", a.attname as "column"
    from pg_constraint c
    join pg_class t on t.oid = c.conrelid
    join pg_namespace n on n.oid = t.relnamespace
    cross join lateral unnest(c.conkey) with ordinality as k(attnum, position)
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
    where c.contype = 'p' and n.nspname = current_schema()
    order by t.relname, k.position`.execute(db);
  const references = await sql<{ table: string; parent: string }>`
    select t.relname as "table", p.relname as parent
    from pg_constraint c
    join pg_class t on t.oid = c.conrelid
    join pg_class p on p.oid = c.confrelid
    join pg_namespace n on n.oid = t.relnamespace
    where c.contype = 'f' and n.nspname = current_schema()`.execute(db);
  return { primaryKeys: primaryKeys.rows, references: references.rows };
}

/**
 * Orders the tables so that every table comes after the tables it references, which lets the
 * target check each foreign key as rows arrive. A table referencing itself is copied in key
 * order, in which a parent row (older, so a smaller id) comes first.
 */
function parentsFirst(tables: TableShape[]): TableShape[] {
  const ordered: TableShape[] = [];
  const placed = new Set<string>();
  let pending = [...tables].sort((a, b) => a.name.localeCompare(b.name));
  while (pending.length > 0) {
    const ready = pending.filter((table) => table.parents.every((parent) => parent === table.name || placed.has(parent)));
    if (ready.length === 0) throw new Error(`Foreign keys form a cycle among ${pending.map((table) => table.name).join(', ')}`);
    for (const table of ready) {
      ordered.push(table);
      placed.add(table.name);
    }
    pending = pending.filter((table) => !placed.has(table.name));
  }
  return ordered;
}

/** After both are migrated by this program they match; anything else is a schema edited by hand. */
function assertSameTables(target: TableShape[], source: TableShape[]): void {
  const signatures = (tables: TableShape[]) =>
    new Set(
      tables.map(
        (table) =>
          `${table.name}(${table.columns
            .map((column) => column.name)
            .sort()
            .join(', ')})`,
      ),
    );
  const targetTables = signatures(target);
  const sourceTables = signatures(source);
  const sourceOnly = [...sourceTables].filter((table) => !targetTables.has(table));
  const targetOnly = [...targetTables].filter((table) => !sourceTables.has(table));
  if (sourceOnly.length > 0 || targetOnly.length > 0) {
    throw new CopyRefusedError(
      `The source and target schemas differ after migrating both (source only: ${sourceOnly.join('; ') || 'none'}; ` +
        `target only: ${targetOnly.join('; ') || 'none'})`,
    );
  }
}
