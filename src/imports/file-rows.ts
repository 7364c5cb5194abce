import { parse } from 'csv-parse/sync';
import { textOf, UndecodableFile, type Encoding } from './file-text.js';
import type { FileRow, Problem } from './rows.js';
import { spreadsheetRows } from './spreadsheet.js';

/** The formats an import reads and an export writes: CSV, JSON Lines, and Excel's workbooks. */
export type Format = 'csv' | 'jsonl' | 'xlsx';
export const FORMATS: readonly Format[] = ['csv', 'jsonl', 'xlsx'];

/** The file's format, told by its extension. */
export function formatOf(file: string): Format | undefined {
  const extension = file.slice(file.lastIndexOf('.')).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  if (extension === '.xlsx') return 'xlsx';
  return undefined;
}

const DELIMITERS = [',', ';', '\t'] as const;

/** The delimiter the header line uses most, outside quotes: Excel writes `;` where the decimal mark is a comma. */
function delimiterOf(text: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((delimiter) => [delimiter, 0]));
  let inQuotes = false;
  for (const char of text) {
    if (char === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (char === '\n' || char === '\r')) break;
    else if (!inQuotes && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  return DELIMITERS.reduce((best, delimiter) => (counts.get(delimiter)! > counts.get(best)! ? delimiter : best));
}

function recordsOf(text: string, format: 'csv' | 'jsonl', problems: Problem[]): FileRow[] {
  if (format === 'csv') {
    try {
      const parsed = parse<{ record: Record<string, string>; info: { records: number } }>(text, {
        columns: true,
        delimiter: delimiterOf(text),
        skip_empty_lines: true,
        info: true,
      });
      return parsed.map(({ record, info }) => ({ number: info.records + 1, record }));
    } catch (error) {
      const { records, message } = error as { records?: number; message: string };
      problems.push(records === undefined ? { message } : { row: records + 2, message });
      return [];
    }
  }
  const rows: FileRow[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const number = index + 1;
    if (!line.trim()) return;
    try {
      const record: unknown = JSON.parse(line);
      if (record === null || typeof record !== 'object' || Array.isArray(record)) problems.push({ row: number, message: 'must be a JSON object' });
      else rows.push({ number, record: record as Record<string, unknown> });
    } catch {
      problems.push({ row: number, message: 'is not valid JSON' });
    }
  });
  return rows;
}

/** Where the rows are: the text's encoding, or the workbook's sheet (the first unless named). */
interface RowsSource {
  encoding?: Encoding | undefined;
  sheet?: string | undefined;
}

/** The file's rows; a file that cannot be decoded or parsed is a problem, and then there are no rows. */
export async function fileRows(bytes: Uint8Array, format: Format, { encoding, sheet }: RowsSource, problems: Problem[]): Promise<FileRow[]> {
  if (format === 'xlsx') return spreadsheetRows(bytes, sheet, problems);
  try {
    const { text } = textOf(bytes, encoding, format === 'csv');
    return recordsOf(text, format, problems);
  } catch (error) {
    if (!(error instanceof UndecodableFile)) throw error;
    problems.push({ row: error.row, column: error.column, message: error.message });
    return [];
  }
}
