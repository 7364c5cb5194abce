import { existsSync } from 'node:fs';
import { formatOf, FORMATS, type Format } from '../../imports/file-rows.js';
import { importOptionsOf } from '../../imports/import-options.js';
import { commandLineCaller, organizationOf, UsageError, type Context } from '../command.js';
import { exportCommand, importCommand } from '../users-transfer.js';

/** `import users` and `export users`: the options checked, then the import and export that POST /imports shares. */

export async function importUsers({ db, args, values, config, io }: Context): Promise<number> {
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
  return importCommand(db, caller, file, { ...written.options, passwordPolicy: config.passwordPolicy, json: values.json ?? false }, io);
}

export async function exportUsers({ db, values, io }: Context): Promise<number> {
  const caller = commandLineCaller(await organizationOf(db, values.org));
  const format = (values.format ?? (values.output && formatOf(values.output)) ?? 'csv') as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be csv, jsonl or xlsx (got "${values.format}")`);
  if (values.excel && format !== 'csv') throw new UsageError('--excel is for CSV');
  if (format === 'xlsx' && !values.output) throw new UsageError('--format xlsx writes a workbook, which needs a file: name it with --output');
  const count = await exportCommand(db, caller, format, values.output, values.excel ?? false);
  if (values.output) io.err(`Exported ${count} users to ${values.output}`);
  return 0;
}
