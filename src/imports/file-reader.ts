import { Worker } from 'node:worker_threads';
import { FILE_LIMITS, FileTooLarge, type FileLimits } from './file-limits.js';
import type { Encoding } from './file-text.js';
import type { FileRow, Problem } from './rows.js';

/** The formats an import reads and an export writes: delimited text (CSV, TSV), JSON Lines, and Excel's workbooks. */
export type Format = 'csv' | 'jsonl' | 'xlsx';
export const FORMATS: readonly Format[] = ['csv', 'jsonl', 'xlsx'];

/** The file's format, told by its extension: `.txt` and `.tsv` are delimited text as Excel saves it ("Unicode Text"). */
export function formatOf(file: string): Format | undefined {
  const extension = file.slice(file.lastIndexOf('.')).toLowerCase();
  if (['.csv', '.tsv', '.txt'].includes(extension)) return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  if (extension === '.xlsx') return 'xlsx';
  return undefined;
}

/** A file on disk (the command line), or its bytes (POST /imports), which the reading thread then owns. */
export type FileSource = { path: string } | { bytes: Uint8Array };

/** Where the rows are: the text's encoding, the workbook's sheet (the first unless named), the headings' row. */
export interface RowsSource {
  encoding?: Encoding | undefined;
  sheet?: string | undefined;
  /** The spreadsheet row of the headings; else the first row with something in it. */
  headerRow?: number | undefined;
}

/** A sheet's first rows with something in them, to tell where the headings are when none names the email column. */
export interface SheetPreview {
  name?: string;
  rows: { number: number; cells: string[] }[];
}

/** What opening a file found: its columns and rows, and what cannot be read (then it is not imported). */
export interface OpenedFile {
  /** The headings (delimited text, a sheet), or every key of the records (JSON Lines). */
  columns: string[];
  /** The rows of people. */
  rows: number;
  headingRow?: number;
  /** The workbook's sheet read. */
  sheet?: string;
  /** Delimited text's delimiter. */
  delimiter?: string;
  sheets: SheetPreview[];
  problems: Problem[];
}

export interface ReaderInput extends RowsSource {
  source: FileSource;
  format: Format;
  limits: FileLimits;
}

export type ReaderRequest = { type: 'read'; credits: number } | { type: 'next' };

export type ReaderMessage =
  | { type: 'opened'; file: OpenedFile }
  | { type: 'progress'; rows: number }
  | { type: 'rows'; rows: FileRow[] }
  | { type: 'end' }
  | { type: 'tooLarge'; message: string }
  | { type: 'failed'; message: string };

/** Batches the thread may send ahead of the one being taken. */
const READ_AHEAD = 2;

/**
 * An import file read in a worker thread of its own, with a bounded heap and time: parsing a
 * workbook (or decoding a large text) takes seconds of CPU that the event loop, serving every
 * organization, must not spend. `open` reads the file once whole (headings, counts, problems); each
 * `pass` then hands its rows in batches, as many passes as the import needs (check, compare, write),
 * so that no more than a few batches of rows are ever held here.
 */
export class FileReader {
  readonly #worker: Worker;
  readonly #messages: ReaderMessage[] = [];
  #waiting: { resolve(message: ReaderMessage): void; reject(error: Error): void } | undefined;
  #failure: Error | undefined;

  private constructor(
    input: ReaderInput,
    private readonly onProgress: (rows: number) => void,
  ) {
    // The bytes move to the thread, not copied; bytes sharing their memory with others are copied first.
    let transfer: ArrayBuffer[] = [];
    if ('bytes' in input.source) {
      const { bytes } = input.source;
      const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
      input = { ...input, source: { bytes: own } };
      transfer = [own.buffer as ArrayBuffer];
    }
    this.#worker = new Worker(new URL('./file-reader.worker.js', import.meta.url), {
      workerData: input,
      transferList: transfer,
      resourceLimits: { maxOldGenerationSizeMb: input.limits.heapMb, maxYoungGenerationSizeMb: 8 },
      stdout: true,
      stderr: true,
    });
    this.#worker.on('message', (message: ReaderMessage) => {
      if (message.type === 'progress') this.onProgress(message.rows);
      else this.#deliver(message);
    });
    this.#worker.on('error', (error: Error & { code?: string }) => {
      this.#fail(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new FileTooLarge(`reading the file needs more than the ${input.limits.heapMb} MiB an import may use; save it as CSV, or split it`)
          : new Error(`the file could not be read: ${error.message}`, { cause: error }),
      );
    });
    this.#worker.on('exit', () => this.#fail(new Error('the file reader stopped')));
  }

  /**
   * Opens the file: refuses it (FileTooLarge) beyond the budgets, else tells its columns, rows and
   * problems. `onProgress` is told the rows read so far while it reads.
   */
  static async open(
    source: FileSource,
    format: Format,
    where: RowsSource,
    onProgress: (rows: number) => void = () => undefined,
    limits: FileLimits = FILE_LIMITS,
  ): Promise<{ reader: FileReader; file: OpenedFile }> {
    const { encoding, sheet, headerRow } = where;
    const reader = new FileReader({ source, format, limits, encoding, sheet, headerRow }, onProgress);
    try {
      const message = await reader.#next(limits.readMs);
      if (message.type !== 'opened') throw new Error(`the file reader answered ${message.type}`);
      return { reader, file: message.file };
    } catch (error) {
      await reader.close();
      throw error;
    }
  }

  /** The file's rows, in batches, from the first. */
  async *pass(limits: FileLimits = FILE_LIMITS): AsyncGenerator<FileRow[]> {
    this.#worker.postMessage({ type: 'read', credits: READ_AHEAD } satisfies ReaderRequest);
    for (;;) {
      const message = await this.#next(limits.readMs);
      if (message.type === 'end') return;
      if (message.type !== 'rows') throw new Error(`the file reader answered ${message.type}`);
      this.#worker.postMessage({ type: 'next' } satisfies ReaderRequest);
      yield message.rows;
    }
  }

  async close(): Promise<void> {
    this.#failure ??= new Error('the file reader is closed');
    await this.#worker.terminate();
  }

  #deliver(message: ReaderMessage): void {
    if (message.type === 'tooLarge') return this.#fail(new FileTooLarge(message.message));
    if (message.type === 'failed') return this.#fail(new Error(`the file could not be read: ${message.message}`));
    if (this.#waiting) {
      this.#waiting.resolve(message);
      this.#waiting = undefined;
    } else this.#messages.push(message);
  }

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#waiting?.reject(error);
    this.#waiting = undefined;
  }

  /** The thread's next answer, within `ms`: one that takes longer stops the thread and refuses the file. */
  #next(ms: number): Promise<ReaderMessage> {
    const queued = this.#messages.shift();
    if (queued) return Promise.resolve(queued);
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise<ReaderMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#fail(new FileTooLarge(`reading the file took longer than the ${ms / 1000} s an import may take for it; save it as CSV, or split it`));
        void this.#worker.terminate();
      }, ms);
      const settle =
        <T>(then: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          then(value);
        };
      this.#waiting = { resolve: settle(resolve), reject: settle(reject) };
    });
  }
}
