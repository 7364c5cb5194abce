import { parse } from 'csv-parse/sync';
import { textOf, UndecodableFile, type Encoding } from './file-text.js';

/** The formats an import reads and an export writes. */
export type Format = 'csv' | 'jsonl';
export const FORMATS: readonly Format[] = ['csv', 'jsonl'];

/** The file's format, told by its extension. */
export function formatOf(file: string): Format | undefined {
  const extension = file.slice(file.lastIndexOf('.')).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  return undefined;
}

export interface FileRow {
  /** As a spreadsheet numbers it: in a CSV file the header is row 1 (a cell may span lines); in JSON Lines, the line. */
  number: number;
  /** Column → value: the cell's text in CSV, any JSON value in JSON Lines. */
  record: Record<string, unknown>;
}

/**
 * What is wrong, and where: the spreadsheet row, the file's column (its heading; for bytes the
 * encoding cannot read, the character in the line) and the property or userfield it stands for.
 */
export interface Problem {
  row?: number;
  column?: string | number;
  field?: string;
  message: string;
}

/** A problem as one line of text. */
export function problemText({ row, column, field, message }: Problem): string {
  const where = typeof column === 'number' ? `row ${row}, column ${column}` : row === undefined ? undefined : `row ${row}`;
  const label = typeof column === 'string' ? (row === undefined ? `column "${column}"` : column) : field;
  return [where, label, message].filter((part) => part !== undefined && part !== '').join(': ');
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

function recordsOf(text: string, format: Format, problems: Problem[]): FileRow[] {
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

/** The file's rows; a file that cannot be decoded or parsed is a problem, and then there are no rows. */
export function fileRows(bytes: Uint8Array, format: Format, encoding: Encoding | undefined, problems: Problem[]): FileRow[] {
  try {
    const { text } = textOf(bytes, encoding, format === 'csv');
    return recordsOf(text, format, problems);
  } catch (error) {
    if (!(error instanceof UndecodableFile)) throw error;
    problems.push({ row: error.row, column: error.column, message: error.message });
    return [];
  }
}
