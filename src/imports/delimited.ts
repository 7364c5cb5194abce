import { once } from 'node:events';
import { parse, type CsvError } from 'csv-parse';
import type { Problem } from './rows.js';

/** A row of a sheet or of delimited text, numbered as a spreadsheet shows it: every line counts, empty ones too. */
export interface TableRow {
  number: number;
  cells: unknown[];
}

const DELIMITERS = [',', ';', '\t'] as const;

/** Lines looked at for the delimiter, before a title row or two gives way to the headings. */
const SNIFFED_LINES = 20;

/** How many of each delimiter `line` holds outside quotes. */
function delimitersIn(line: string): Map<string, number> {
  const counts = new Map<string, number>(DELIMITERS.map((delimiter) => [delimiter, 0]));
  let inQuotes = false;
  for (const char of line) {
    if (char === '"') inQuotes = !inQuotes;
    else if (!inQuotes && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  return counts;
}

/**
 * The delimiter the heading line uses most (Excel writes `;` where the decimal mark is a comma):
 * the line `headerRow` names, else the first line holding any delimiter (title rows hold none).
 */
function delimiterOf(lines: readonly string[], headerRow: number | undefined): string {
  const candidates = headerRow === undefined ? lines.slice(0, SNIFFED_LINES) : lines.slice(headerRow - 1, headerRow);
  for (const line of candidates) {
    const counts = delimitersIn(line);
    const best = DELIMITERS.reduce((most, delimiter) => (counts.get(delimiter)! > counts.get(most)! ? delimiter : most));
    if (counts.get(best)! > 0) return best;
  }
  return ',';
}

/** Excel's first line naming the delimiter (`sep=;`); Excel shows it as no row. */
const SEPARATOR_LINE = /^sep=(.)\r?\n/i;

/** A cell exported with an apostrophe before `=`, `+`, `-`, `@`, tab or CR (see users-export.ts) reads back as it was. */
const NEUTRALISED = /^'(?=[=+\-@\t\r])/;

/** The delimiter, and whether the text opens with Excel's `sep=` line (left out of the rows). */
export function delimitedLayout(firstText: string, headerRow: number | undefined): { delimiter: string; separatorLine: number } {
  const declared = SEPARATOR_LINE.exec(firstText);
  if (declared) return { delimiter: declared[1]!, separatorLine: declared[0].length };
  return { delimiter: delimiterOf(firstText.split(/\r?\n/), headerRow), separatorLine: 0 };
}

/**
 * The rows of delimited text (CSV, TSV, Excel's "Unicode Text"), read as a workbook's are: each cell
 * trimmed, a row per record (a quoted cell may span lines), empty lines counted as the empty rows a
 * spreadsheet shows. `texts` is the text in slices, laid out as `delimitedLayout` tells from the
 * first; a record the parser cannot read is a problem, and the rows end there.
 */
export async function* delimitedRows(
  texts: Iterable<string>,
  { delimiter, separatorLine }: { delimiter: string; separatorLine: number },
  problems: Problem[],
): AsyncGenerator<TableRow> {
  const slices = texts[Symbol.iterator]();
  let first = slices.next();
  if (first.done) return;
  const parser = parse({ delimiter, relax_column_count: true, skip_empty_lines: false });
  const feeding = (async () => {
    let text = first.value.slice(separatorLine);
    while (!first.done) {
      if (!parser.write(text)) await once(parser, 'drain');
      first = slices.next();
      text = first.done ? '' : first.value;
    }
    parser.end();
  })();
  let number = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      number++;
      yield { number, cells: record.map((cell) => cell.trim().replace(NEUTRALISED, '')) };
    }
  } catch (error) {
    const { message } = error as CsvError;
    problems.push({ row: number + 1, message });
  } finally {
    // A reader that stops early leaves the feeding waiting for a drain that will not come: it is let go.
    parser.destroy();
    feeding.catch(() => undefined);
  }
}

/** The records of JSON Lines text, each numbered by its line; a line that is no JSON object is a problem. */
export function* jsonLines(texts: Iterable<string>, problems: Problem[]): Generator<{ number: number; record: Record<string, unknown> }> {
  let pending = '';
  let number = 0;
  function* lines(text: string) {
    const parts = (pending + text).split('\n');
    pending = parts.pop()!;
    yield* parts;
  }
  function* records(lineTexts: Iterable<string>) {
    for (const line of lineTexts) {
      number++;
      if (!line.trim()) continue;
      try {
        const record: unknown = JSON.parse(line);
        if (record === null || typeof record !== 'object' || Array.isArray(record)) problems.push({ row: number, message: 'must be a JSON object' });
        else yield { number, record: record as Record<string, unknown> };
      } catch {
        problems.push({ row: number, message: 'is not valid JSON' });
      }
    }
  }
  for (const text of texts) yield* records(lines(text));
  yield* records([pending]);
}
