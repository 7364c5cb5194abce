/** A file's rows as read, and what is wrong with them. */

export interface FileRow {
  /** As a spreadsheet numbers it: in a CSV file the header is row 1 (a cell may span lines); in JSON Lines, the line. */
  number: number;
  /** Column → value: the cell's text in CSV, any JSON value in JSON Lines, a cell's string, number, boolean or date in a workbook. */
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
