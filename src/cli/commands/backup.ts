import { closeSync, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { engineOf } from '../../db/database.js';

interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** Every page in one step: a step is one read transaction, so the copy is one moment of the database. */
const ALL_PAGES = 0x7fffffff;

/** Why the backup cannot be made, before anything is written; undefined when it can. */
function refusalOf(databaseUrl: string, to: string): string | undefined {
  if (engineOf(databaseUrl) === 'postgres') {
    return (
      'backup copies SQLite databases; for PostgreSQL use its own tools, e.g. ' +
      'pg_dump --format=custom --file=training-api.dump "$DATABASE_URL" (restore with pg_restore), see docs/operations.md'
    );
  }
  const source = databaseUrl.slice('sqlite:'.length);
  if (source === ':memory:' || !existsSync(source)) return `no database at ${source}; set DATABASE_URL`;
  if (existsSync(to)) return `--to: ${to} already exists; back up into a new file`;
  return undefined;
}

/**
 * `training-api backup --to <file>`: a consistent copy of the SQLite database made through SQLite's online
 * backup API while the server keeps serving (WAL readers never block its writers), checked before it is
 * named `<file>`. Returns the exit code: 2 when refused (PostgreSQL, an existing file).
 */
export async function backupCommand(databaseUrl: string, to: string, io: Output): Promise<number> {
  const refusal = refusalOf(databaseUrl, to);
  if (refusal) {
    io.err(`training-api: ${refusal}`);
    return 2;
  }
  const sourcePath = databaseUrl.slice('sqlite:'.length);
  const partial = `${to}.partial`;
  const started = performance.now();
  // Readable by its owner only, like the database: it holds password and token hashes.
  closeSync(openSync(partial, 'w', 0o600));
  const source = new BetterSqlite3(sourcePath, { fileMustExist: true });
  try {
    io.err(`Backing up ${sourcePath} (${(statSync(sourcePath).size / 1024 ** 2).toFixed(1)} MB before the write-ahead log)...`);
    const { totalPages } = await source.backup(partial, { progress: () => ALL_PAGES });
    const copy = new BetterSqlite3(partial, { fileMustExist: true });
    try {
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`the copy fails SQLite's integrity check: ${String(check)}`);
    } finally {
      copy.close();
    }
    renameSync(partial, to);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    io.out(
      `Backed up ${sourcePath} to ${to}: ${totalPages} pages, ${(statSync(to).size / 1024 ** 2).toFixed(1)} MB in ${seconds} s; integrity check ok`,
    );
    return 0;
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
}
