import type { SqlBool } from 'kysely';

/** A row as repositories hand it on: its `SqlBool` columns (see db/schema.ts) as booleans. */
export type Row<T> = { [K in keyof T]: T[K] extends SqlBool ? boolean : T[K] };

/** Reads a row's boolean columns, which SQLite gives as 0 or 1 and PostgreSQL as false or true, as booleans. */
export function withBooleans<T extends object>(row: T, columns: readonly (keyof T)[]): Row<T> {
  const read = { ...row } as Record<keyof T, unknown>;
  for (const column of columns) read[column] = Boolean(row[column]);
  return read as Row<T>;
}

/** The entries of `patch` that differ from `row`: a resource written back as it was read changes nothing. */
export function changedColumns<P extends object>(row: object, patch: P): Partial<P> {
  const current = row as Record<string, unknown>;
  return Object.fromEntries(Object.entries(patch).filter(([column, value]) => current[column] !== value)) as Partial<P>;
}
