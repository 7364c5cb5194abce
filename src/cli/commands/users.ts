import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import { basename } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.js';
import type { Database } from '../../db/schema.js';
import { importActor } from '../../lib/actors.js';
import { ImportInterrupted } from '../../imports/apply.js';
import { problemText } from '../../imports/rows.js';
import { exportUsers } from '../../imports/users-export.js';
import { importUsers, type ImportOptions, type ImportOutcome } from '../../imports/users-import.js';
import type { ImportSummary } from '../../resources/imports/imports.schemas.js';
import { FileTooLarge } from '../../imports/file-limits.js';
import { progressOf } from '../progress.js';
import { formatOf, FORMATS, type Format } from '../../imports/file-reader.js';
import { importOptionsOf } from '../../imports/import-options.js';
import { commandLineCaller, organizationOf, UsageError, type Context, type Output } from '../command.js';

/**
 * `import users` and `export users`: the options checked, the file in and out, the outcome printed; src/imports/
 * does the work, the import that POST /imports runs too.
 */

export async function importCommand({ db, args, values, config, io }: Context): Promise<number> {
  const administrator = commandLineCaller(await organizationOf(db, values.org));
  // Its changes are the import's, as those of an import started through the API.
  const caller = { ...administrator, actor: importActor(administrator.actor, null) };
  const file = args[0]!;
  const format = formatOf(file);
  if (!format) throw new UsageError(`${file}: the file must end in .csv, .tsv, .txt, .jsonl or .xlsx`);
  if (!existsSync(file)) throw new UsageError(`No file at ${file}`);
  const written = importOptionsOf(format, {
    dryRun: values['dry-run'],
    encoding: values.encoding,
    sheet: values.sheet,
    headerRow: values['header-row'],
    locale: values.locale,
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
  return importFile(
    db,
    caller,
    file,
    { ...written.options, ...config.imports, passwordPolicy: config.passwordPolicy, json: values.json ?? false },
    io,
  );
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

/** The summary of an import as a line of text. */
function summaryText(name: string, summary: ImportSummary, deactivateMissing: boolean): string {
  const counts = `${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.userfieldValues} userfield values`;
  const missing = deactivateMissing ? `; ${summary.deactivated} missing from the file` : '';
  if (!summary.dryRun) return `Imported ${summary.rows} users from ${name}: ${counts} set${missing && `${missing} deactivated`}`;
  return `${name} is valid: ${summary.rows} users would be imported (${counts})${missing && `${missing} would be deactivated`}; nothing was written`;
}

/**
 * Prints the outcome: problems with their row numbers, the summary, and in a dry run who would be
 * changed (a refused one too). With `json`, each problem and the summary are a JSON line on stdout.
 */
function printOutcome(name: string, outcome: ImportOutcome, options: { json: boolean; deactivateMissing: boolean }, io: Output): number {
  const { summary } = outcome;
  if (options.json) {
    if ('problems' in outcome) for (const problem of outcome.problems) io.out(JSON.stringify(problem));
    if (summary) io.out(JSON.stringify(summary));
    return 'problems' in outcome ? 1 : 0;
  }
  if ('problems' in outcome) {
    const { problems } = outcome;
    io.err(`${name}: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}; nothing was written`);
    for (const problem of problems) io.err(`  ${problemText(problem)}`);
  } else io.out(summaryText(name, outcome.summary, options.deactivateMissing));
  // Who would be created the summary counts: a first import would list everyone.
  for (const { email, change } of summary?.changes ?? []) {
    if (change !== 'created') io.out(`  ${change === 'updated' ? 'would update' : 'would deactivate'} ${email}`);
  }
  return 'problems' in outcome ? 1 : 0;
}

/**
 * The heap grows by a fifth over what the last full collection kept, not by V8's factor of up to
 * four, for the rest of the process: an import makes garbage at the rate the file is read (each
 * batch of rows lives across a database round trip, so it outlives the young generation), and
 * when the collector got little of a busy machine's CPU the heap grew to several times what was
 * live: the 60 MiB file of issue 37 peaked at up to 4.2x the file beyond a tiny file's, against 1.5x
 * with this (docs/performance.md, "Issue 37: import memory"). A process of its own, whose only
 * work is the import, pays the collections' time; the server does not set it.
 */
function collectSooner(): void {
  setFlagsFromString('--heap-growing-percent=20');
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
  const progress = progressOf(io, options.json);
  collectSooner();
  try {
    return printOutcome(name, await importUsers(db, caller, { path: file }, { ...options, progress }), options, io);
  } catch (error) {
    if (!(error instanceof ImportInterrupted || error instanceof FileTooLarge)) throw error;
    io.err(options.json ? JSON.stringify({ error: `${name}: ${error.message}` }) : `training-api: ${name}: ${error.message}`);
    return 1;
  } finally {
    progress.stop();
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
