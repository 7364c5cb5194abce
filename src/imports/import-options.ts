import type { Headings } from './columns.js';
import { ENCODINGS, encodingNamed } from './file-text.js';
import type { Format } from './file-reader.js';
import { changeLimitOf, type ImportOptions } from './users-import.js';

/**
 * The options of an import as written: the command line's flags and the query of `POST /imports`
 * (the same names, in camel case), read by one parser so both refuse the same values the same way.
 */
interface WrittenImportOptions {
  dryRun?: boolean | undefined;
  encoding?: string | undefined;
  /** A workbook's sheet, by name (case aside). */
  sheet?: string | undefined;
  /** The row of the headings, as a spreadsheet numbers it. */
  headerRow?: string | number | undefined;
  /** How the file writes numbers and dates: `de`, `en-GB`. */
  locale?: string | undefined;
  /** `Employee Email=email,Dept=Department`. */
  map?: string | undefined;
  /** `Cost centre,Badge`. */
  ignoreColumns?: string | undefined;
  deactivateMissing?: boolean | undefined;
  /** `250` or `10%`. */
  maxChanges?: string | undefined;
  onlyImported?: boolean | undefined;
}

/** Each option's problem, by its name in WrittenImportOptions. */
type OptionErrors = Partial<Record<keyof WrittenImportOptions, string>>;

/** A locale's canonical tag, or undefined when `tag` is none. */
function localeNamed(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag.trim())[0];
  } catch {
    return undefined;
  }
}

/** `a, b,,c` → ['a', 'b', 'c']. */
function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function headingsOf(written: WrittenImportOptions, errors: OptionErrors): Headings {
  const map = new Map<string, string>();
  for (const pair of listOf(written.map)) {
    const [from, to, ...rest] = pair.split('=').map((part) => part.trim());
    if (!from || !to || rest.length > 0) errors.map = `takes Heading=property pairs separated by commas (got "${pair}")`;
    else map.set(from, to);
  }
  return { map, ignore: listOf(written.ignoreColumns) };
}

/** The import's options, or what is wrong with them. */
export function importOptionsOf(
  format: Format,
  written: WrittenImportOptions,
): { options: Omit<ImportOptions, 'progress' | 'passwordPolicy'> } | { errors: OptionErrors } {
  const errors: OptionErrors = {};
  const encoding = written.encoding === undefined ? undefined : encodingNamed(written.encoding);
  if (written.encoding !== undefined && !encoding) errors.encoding = `must be one of ${ENCODINGS.join(', ')} (got "${written.encoding}")`;
  const maxChanges = written.maxChanges === undefined ? undefined : changeLimitOf(written.maxChanges);
  if (written.maxChanges !== undefined && !maxChanges)
    errors.maxChanges = `must be a number of users, a percentage of the organization's users, or both (the larger applies), such as 250, 10% or 10%,5 (got "${written.maxChanges}")`;
  if (written.encoding !== undefined && format === 'xlsx') errors.encoding = 'is for CSV and JSON Lines: a workbook names its own';
  const headerRow = written.headerRow === undefined ? undefined : Number(written.headerRow);
  if (headerRow !== undefined && !(Number.isInteger(headerRow) && headerRow >= 1))
    errors.headerRow = `must be a row number, from 1 (got "${written.headerRow}")`;
  else if (headerRow !== undefined && format === 'jsonl') errors.headerRow = 'is for CSV and workbooks: JSON Lines has no headings';
  const locale = written.locale === undefined ? undefined : localeNamed(written.locale);
  if (written.locale !== undefined && !locale) errors.locale = `must be a language tag such as de, fr-CH or en-US (got "${written.locale}")`;
  if (written.sheet !== undefined && format !== 'xlsx') errors.sheet = 'names a sheet of an Excel workbook (.xlsx)';
  if (written.onlyImported && !written.deactivateMissing)
    errors.onlyImported = 'limits what deactivateMissing deactivates: it needs deactivateMissing';
  const headings = headingsOf(written, errors);
  if (Object.keys(errors).length > 0) return { errors };
  return {
    options: {
      format,
      ...headings,
      ...(encoding ? { encoding } : {}),
      ...(written.sheet !== undefined ? { sheet: written.sheet } : {}),
      ...(headerRow !== undefined ? { headerRow } : {}),
      ...(locale ? { locale } : {}),
      ...(maxChanges ? { maxChanges } : {}),
      dryRun: written.dryRun ?? false,
      deactivateMissing: written.deactivateMissing ?? false,
      onlyImported: written.onlyImported ?? false,
    },
  };
}
