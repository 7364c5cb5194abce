/**
 * What reading one import file may take. A file is read off the event loop, in a worker thread of
 * its own (file-reader.ts), so that no other organization's request waits for it; these budgets keep
 * that thread's memory and time bounded whatever the file holds, and a file beyond them is refused
 * (413 at POST /imports) before anything is checked or written.
 */
export interface FileLimits {
  /** A workbook's XML, unpacked. */
  unpackedBytes: number;
  /** Rows of people (the headings and empty rows aside): a spreadsheet's own limit. */
  rows: number;
  /** Cells that hold something, over all those rows. */
  cells: number;
  /** The reading thread's heap. */
  heapMb: number;
  /** Opening the file (for a workbook, unpacking and parsing it) and each batch of rows after. */
  readMs: number;
}

export const FILE_LIMITS: FileLimits = {
  unpackedBytes: 96 * 1024 * 1024,
  rows: 1_048_576,
  cells: 16 * 1024 * 1024,
  heapMb: 768,
  readMs: 120_000,
};

/** The file is beyond one of the budgets: nothing of it is imported. */
export class FileTooLarge extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileTooLarge';
  }
}
