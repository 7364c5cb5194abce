import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import type { Database } from '../db/schema.js';
import { ImportInterrupted } from '../imports/apply.js';
import type { Format } from '../imports/file-rows.js';
import { problemText } from '../imports/rows.js';
import { exportUsers } from '../imports/users-export.js';
import { importUsers, type ImportOptions } from '../imports/users-import.js';
import { progressOf } from './progress.js';

/** `import users` and `export users` at the command line: the file in and out, the outcome printed (src/imports/ does the work). */

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** Imports `file`; problems are printed with their row numbers (as JSON lines with `json`). The exit code. */
export async function importCommand(
  db: Kysely<Database>,
  caller: Caller,
  file: string,
  options: Omit<ImportOptions, 'progress'> & { json: boolean },
  io: Output,
): Promise<number> {
  const name = basename(file);
  try {
    const outcome = await importUsers(db, caller, await readFile(file), { ...options, progress: (total, stage) => progressOf(total, stage, io) });
    if ('problems' in outcome) {
      const { problems } = outcome;
      if (options.json) {
        for (const problem of problems) io.out(JSON.stringify({ row: null, column: null, field: null, ...problem }));
      } else {
        io.err(`${name}: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}; nothing was written`);
        for (const problem of problems) io.err(`  ${problemText(problem)}`);
      }
      return 1;
    }
    const { summary } = outcome;
    // One line, like the problems a refused file prints as JSON lines.
    if (options.json) {
      io.out(JSON.stringify(summary));
      return 0;
    }
    const counts = `${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.userfieldValues} userfield values`;
    const missing = options.deactivateMissing ? `; ${summary.deactivated} missing from the file` : '';
    if (!summary.dryRun) {
      io.out(`Imported ${summary.rows} users from ${name}: ${counts} set${missing && `${missing} deactivated`}`);
      return 0;
    }
    io.out(
      `${name} is valid: ${summary.rows} users would be imported (${counts})${missing && `${missing} would be deactivated`}; nothing was written`,
    );
    for (const { email, change } of summary.changes ?? []) io.out(`  ${change === 'updated' ? 'would update' : 'would deactivate'} ${email}`);
    return 0;
  } catch (error) {
    if (!(error instanceof ImportInterrupted)) throw error;
    io.err(`training-api: ${error.message}`);
    return 1;
  }
}

/** Exports the organization's users to `outputFile`, else to stdout; the count. */
export async function exportCommand(
  db: Kysely<Database>,
  caller: Caller,
  format: Format,
  outputFile: string | undefined,
  excel: boolean,
): Promise<number> {
  if (!outputFile) return exportUsers(db, caller, format, process.stdout, excel);
  const output = createWriteStream(outputFile);
  const count = await exportUsers(db, caller, format, output, excel);
  output.end();
  await once(output, 'finish');
  return count;
}
