import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.js';
import type { Database } from '../../db/schema.js';
import { ImportInterrupted } from '../../imports/apply.js';
import { problemText } from '../../imports/rows.js';
import { exportUsers } from '../../imports/users-export.js';
import { importUsers, type ImportOptions } from '../../imports/users-import.js';
import { progressOf } from '../progress.js';
import { formatOf, FORMATS, type Format } from '../../imports/file-rows.js';
import { importOptionsOf } from '../../imports/import-options.js';
import { commandLineCaller, organizationOf, UsageError, type Context, type Output } from '../command.js';

/**
 * `import users` and `export users`: the options checked, the file in and out, the outcome printed; src/imports/
 * does the work, the import that POST /imports runs too.
 */

export async function importCommand({ db, args, values, config, io }: Context): Promise<number> {
  const caller = commandLineCaller(await organizationOf(db, values.org));
  const file = args[0]!;
  const format = formatOf(file);
  if (!format) throw new UsageError(`${file}: the file must end in .csv, .jsonl or .xlsx`);
  if (!existsSync(file)) throw new UsageError(`No file at ${file}`);
  const written = importOptionsOf(format, {
    dryRun: values['dry-run'],
    encoding: values.encoding,
    sheet: values.sheet,
    map: values.map,
    ignoreColumns: values['ignore-columns'],
    deactivateMissing: values['deactivate-missing'],
    maxChanges: values['max-changes'],
    onlyImported: values['only-imported'],
  });
  if ('errors' in written) {
    const [option, message] = Object.entries(written.errors)[0]!;
    throw new UsageError(`--${option.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)} ${message}`);
  }
  return importFile(db, caller, file, { ...written.options, passwordPolicy: config.passwordPolicy, json: values.json ?? false }, io);
}

export async function exportCommand({ db, values, io }: Context): Promise<number> {
  const caller = commandLineCaller(await organizationOf(db, values.org));
  const format = (values.format ?? (values.output && formatOf(values.output)) ?? 'csv') as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be csv, jsonl or xlsx (got "${values.format}")`);
  if (values.excel && format !== 'csv') throw new UsageError('--excel is for CSV');
  if (format === 'xlsx' && !values.output) throw new UsageError('--format xlsx writes a workbook, which needs a file: name it with --output');
  const count = await exportTo(db, caller, format, values.output, values.excel ?? false);
  if (values.output) io.err(`Exported ${count} users to ${values.output}`);
  return 0;
}

/** Imports `file`; problems are printed with their row numbers (as JSON lines with `json`). The exit code. */
async function importFile(
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
async function exportTo(db: Kysely<Database>, caller: Caller, format: Format, outputFile: string | undefined, excel: boolean): Promise<number> {
  if (!outputFile) return exportUsers(db, caller, format, process.stdout, excel);
  const output = createWriteStream(outputFile);
  const count = await exportUsers(db, caller, format, output, excel);
  output.end();
  await once(output, 'finish');
  return count;
}
