import { InvalidInputError, InvalidSpreadsheetError, readSheet, SheetNotFoundError, type SheetData } from 'read-excel-file/node';
import type { FileRow, Problem } from './rows.js';

/**
 * The rows of an Excel workbook's sheet (.xlsx): the first row holds the headings, each other row a
 * user, numbered as Excel numbers it. Cells keep their type (string, number, boolean, date): the
 * column's property or userfield converts them (see columns.ts).
 */
export async function spreadsheetRows(bytes: Uint8Array, sheet: string | undefined, problems: Problem[]): Promise<FileRow[]> {
  let data: SheetData;
  try {
    data = sheet === undefined ? await readSheet(Buffer.from(bytes)) : await readSheet(Buffer.from(bytes), sheet);
  } catch (error) {
    if (error instanceof SheetNotFoundError) problems.push({ message: `the workbook has no sheet named "${sheet}"` });
    else if (error instanceof InvalidInputError || error instanceof InvalidSpreadsheetError)
      problems.push({ message: 'is not an Excel workbook (.xlsx) that can be read' });
    else throw error;
    return [];
  }
  const [headings = [], ...cells] = data;
  const names = headings.map((heading) => (heading === null ? '' : String(heading).trim()));
  const rows: FileRow[] = [];
  cells.forEach((row, index) => {
    const record: Record<string, unknown> = {};
    row.forEach((cell, column) => {
      if (cell !== null && cell !== '' && names[column]) record[names[column]] = cell;
    });
    // A blank row (Excel keeps some after a deletion) is no user.
    if (Object.keys(record).length > 0) rows.push({ number: index + 2, record });
  });
  return rows;
}
