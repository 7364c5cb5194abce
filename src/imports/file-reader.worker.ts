import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { delimitedLayout, delimitedRows, jsonLines, type TableRow } from './delimited.js';
import { FileTooLarge } from './file-limits.js';
import type { OpenedFile, ReaderInput, ReaderMessage, ReaderRequest, SheetPreview } from './file-reader.js';
import { bytesInMemory, bytesOnDisk, decodedText, encodingOf, UndecodableFile, type Encoding, type FileBytes } from './file-text.js';
import type { FileRow, Problem } from './rows.js';
import type { Sheet } from './spreadsheet.js';

/**
 * The thread that reads an import file (see file-reader.ts): it opens the file (decodes it, or unpacks
 * the workbook), reads it once whole to find its headings, count its rows and cells against the
 * budgets and collect what cannot be read, then sends its rows in batches, once per pass the import asks for.
 */

const input = workerData as ReaderInput;
const port = parentPort!;

/** Rows sent at once. */
const BATCH_ROWS = 1000;
/** The first rows with something in them, shown for each sheet when no heading names the email column. */
const PREVIEW_ROWS = 3;
/** How often opening tells how far it is, in rows. */
const PROGRESS_ROWS = 10_000;
/** A file can have a problem on every row; the first ones say enough. */
const MAX_PROBLEMS = 1000;

const send = (message: ReaderMessage) => port.postMessage(message);

const filled = (cell: unknown) => cell !== null && cell !== undefined && cell !== '';
const text = (cell: unknown) => (cell instanceof Date ? cell.toISOString().slice(0, 10) : filled(cell) ? String(cell).trim() : '');

/** A column's letters, as a spreadsheet names it: 0 → A, 26 → AA. */
function columnLetters(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** The row's filled cells by their heading; undefined for a row with nothing in it. A filled cell without a heading is a problem. */
function recordOf(row: TableRow, headings: readonly string[], problems?: Problem[]): Record<string, unknown> | undefined {
  let record: Record<string, unknown> | undefined;
  row.cells.forEach((cell, column) => {
    if (!filled(cell)) return;
    const name = headings[column];
    if (name) (record ??= {})[name] = cell;
    else if (problems && problems.length < MAX_PROBLEMS) {
      problems.push({
        row: row.number,
        message: `column ${columnLetters(column)} holds "${text(cell)}" but has no heading: give it one, or empty it`,
      });
    }
  });
  return record;
}

const previewOf = (row: TableRow) => ({ number: row.number, cells: row.cells.map(text) });

/** Where the rows come from, read afresh for each pass. */
interface Table {
  rows(problems: Problem[]): AsyncIterable<TableRow>;
  /** Delimited text's delimiter. */
  delimiter?: string;
  sheet?: string;
  sheets: SheetPreview[];
}

/**
 * The file's bytes: a file on disk is read from disk for each pass, a chunk at a time, never held
 * whole (a workbook is read whole: a zip is unpacked from its end).
 */
function bytesOf(): FileBytes {
  if ('path' in input.source) return bytesOnDisk(input.source.path);
  return bytesInMemory(input.source.bytes);
}

async function wholeBytesOf(): Promise<Buffer> {
  if ('path' in input.source) return readFile(input.source.path);
  const { bytes } = input.source;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The file's encoding and where its text starts; a file that cannot be decoded is a problem. */
function textStart(bytes: FileBytes, problems: Problem[]): { encoding: Encoding; start: number } | undefined {
  try {
    return encodingOf(bytes, input.encoding, input.format === 'csv');
  } catch (error) {
    if (!(error instanceof UndecodableFile)) throw error;
    problems.push({ row: error.row, column: error.column, message: error.message });
    return undefined;
  }
}

async function tableOf(problems: Problem[]): Promise<Table | undefined> {
  if (input.format === 'csv') {
    const bytes = bytesOf();
    const start = textStart(bytes, problems);
    if (!start) return undefined;
    const first = decodedText(bytes, start.start, start.encoding).next();
    const layout = delimitedLayout(first.done ? '' : first.value, input.headerRow);
    return {
      rows: (rowProblems) => delimitedRows(decodedText(bytes, start.start, start.encoding), layout, rowProblems),
      delimiter: layout.delimiter,
      sheets: [],
    };
  }
  // The workbook reader is loaded for a workbook only: it is most of what a thread loads, and a thread is started
  // for each file, most of them CSV.
  const { checkUnpackedSize, workbookSheets } = await import('./spreadsheet.js');
  const bytes = await wholeBytesOf();
  checkUnpackedSize(bytes, input.limits.unpackedBytes);
  const sheets = await workbookSheets(bytes);
  if (!sheets) {
    problems.push({ message: 'is not an Excel workbook (.xlsx) that can be read' });
    return undefined;
  }
  const wanted = input.sheet?.toLowerCase();
  const chosen: Sheet | undefined = wanted === undefined ? sheets[0] : sheets.find((sheet) => sheet.name.toLowerCase() === wanted);
  const names = sheets.map((sheet) => JSON.stringify(sheet.name)).join(', ');
  if (!chosen) {
    problems.push({ message: `the workbook has no sheet named "${input.sheet}"; its sheets: ${names}` });
    return undefined;
  }
  return {
    rows: async function* () {
      yield* chosen.rows;
    },
    sheet: chosen.name,
    sheets: sheets.map((sheet) => ({
      name: sheet.name,
      rows: sheet.rows
        .filter((row) => row.cells.some(filled))
        .slice(0, PREVIEW_ROWS)
        .map(previewOf),
    })),
  };
}

/** Counts a row of `cells` filled cells against the budgets. */
function counter() {
  let rows = 0;
  let cells = 0;
  return {
    add(filledCells: number) {
      rows++;
      cells += filledCells;
      if (rows > input.limits.rows) throw new FileTooLarge(`the file holds more than ${input.limits.rows} rows, more than an import reads; split it`);
      if (cells > input.limits.cells)
        throw new FileTooLarge(`the file holds more than ${input.limits.cells} filled cells, more than an import reads; split it`);
      if (rows % PROGRESS_ROWS === 0) send({ type: 'progress', rows });
    },
    get rows() {
      return rows;
    },
  };
}

/** Reads a table whole: its headings (on `headerRow`, else the first row with something in it), rows and problems. */
async function openTable(table: Table, problems: Problem[]): Promise<OpenedFile & { headings?: string[] }> {
  const count = counter();
  let headings: string[] | undefined;
  let headingRow: number | undefined;
  const preview: ReturnType<typeof previewOf>[] = [];
  for await (const row of table.rows(problems)) {
    const filledCells = row.cells.filter(filled).length;
    if (filledCells > 0 && preview.length < PREVIEW_ROWS) preview.push(previewOf(row));
    if (!headings) {
      if (input.headerRow === undefined ? filledCells > 0 : row.number === input.headerRow) {
        headings = row.cells.map(text);
        headingRow = row.number;
      }
      continue;
    }
    if (recordOf(row, headings, problems)) count.add(filledCells);
  }
  const sheets = table.sheets.length > 0 ? table.sheets : [{ rows: preview }];
  const where = table.sheet === undefined ? 'the file' : `the sheet "${table.sheet}"`;
  if (headingRow !== undefined && !headings?.some(Boolean))
    problems.push({ row: headingRow, message: 'is empty: --header-row names the row of the headings' });
  else if (!headings && problems.length === 0) {
    problems.push({ message: input.headerRow === undefined ? `${where} is empty` : `${where} has no row ${input.headerRow}` });
  }
  const seen = new Map<string, number>();
  headings?.forEach((name, column) => {
    const earlier = seen.get(name);
    if (name && earlier !== undefined)
      problems.push({ column: name, message: `is the heading of columns ${columnLetters(earlier)} and ${columnLetters(column)}: rename one` });
    seen.set(name, column);
  });
  return {
    columns: headings?.filter(Boolean) ?? [],
    rows: count.rows,
    ...(headingRow !== undefined ? { headingRow } : {}),
    ...(table.sheet !== undefined ? { sheet: table.sheet } : {}),
    ...(table.delimiter !== undefined ? { delimiter: table.delimiter } : {}),
    sheets,
    problems,
    ...(headings ? { headings } : {}),
  };
}

/** Reads JSON Lines whole: its keys, records and problems. */
function openJsonLines(texts: Iterable<string>, problems: Problem[]): OpenedFile {
  const count = counter();
  const keys = new Set<string>();
  for (const { record } of jsonLines(texts, problems)) {
    for (const key of Object.keys(record)) keys.add(key);
    count.add(Object.keys(record).length);
  }
  return { columns: [...keys], rows: count.rows, sheets: [], problems };
}

/** Credits the import gives for batches: one more for each batch it took. */
let credits = 0;
let creditGiven: (() => void) | undefined;

async function sendRows(rows: FileRow[]): Promise<void> {
  while (credits === 0) await new Promise<void>((resolve) => (creditGiven = resolve));
  credits--;
  send({ type: 'rows', rows });
}

async function* fileRows(bytes: FileBytes | undefined, table: Table | undefined, headings: readonly string[] | undefined): AsyncGenerator<FileRow> {
  if (!table) {
    const start = textStart(bytes!, [])!;
    for (const { number, record } of jsonLines(decodedText(bytes!, start.start, start.encoding), [])) yield { number, record };
    return;
  }
  let started = false;
  for await (const row of table.rows([])) {
    if (!started) {
      started = row.number === input.headerRow || (input.headerRow === undefined && row.cells.some(filled));
      continue;
    }
    const record = recordOf(row, headings!);
    if (record) yield { number: row.number, record };
  }
}

async function pass(bytes: FileBytes | undefined, table: Table | undefined, headings: readonly string[] | undefined): Promise<void> {
  let batch: FileRow[] = [];
  for await (const row of fileRows(bytes, table, headings)) {
    batch.push(row);
    if (batch.length === BATCH_ROWS) {
      await sendRows(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await sendRows(batch);
  send({ type: 'end' });
}

async function open(): Promise<void> {
  const problems: Problem[] = [];
  let bytes: FileBytes | undefined;
  let table: Table | undefined;
  let opened: OpenedFile & { headings?: string[] };
  if (input.format === 'jsonl') {
    bytes = bytesOf();
    const start = textStart(bytes, problems);
    opened = start ? openJsonLines(decodedText(bytes, start.start, start.encoding), problems) : { columns: [], rows: 0, sheets: [], problems };
  } else {
    table = await tableOf(problems);
    opened = table ? await openTable(table, problems) : { columns: [], rows: 0, sheets: [], problems };
  }
  const { headings, ...file } = opened;
  port.on('message', (request: ReaderRequest) => {
    if (request.type === 'read') {
      credits = request.credits;
      pass(bytes, table, headings).catch(fail);
    } else {
      credits++;
      creditGiven?.();
    }
  });
  send({ type: 'opened', file });
}

function fail(error: unknown): void {
  if (error instanceof FileTooLarge) send({ type: 'tooLarge', message: error.message });
  else send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
}

open().catch(fail);
