import { inflateRawSync } from 'node:zlib';
import readXlsxFile, { InvalidInputError, InvalidSpreadsheetError } from 'read-excel-file/node';
import { FileTooLarge } from './file-limits.js';
import type { TableRow } from './delimited.js';

/**
 * Excel workbooks (.xlsx): a zip of XML files. Their size unpacked is checked before any is parsed,
 * against what each entry declares and what it really inflates to: a few hundred kilobytes of zip
 * can unpack to gigabytes (a "zip bomb").
 */

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const DEFLATED = 8;

/** What the reader unpacks: the XML parts (read-excel-file leaves images and the rest packed). */
const isXml = (name: string) => name.endsWith('.xml') || name.endsWith('.xml.rels');

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeader: number;
}

/** The entries a zip's central directory lists; undefined when the bytes are not a zip that can be read this way. */
function zipEntries(zip: Buffer): ZipEntry[] | undefined {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0 || end + 22 > zip.length || zip.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) return undefined;
  const entries: ZipEntry[] = [];
  let offset = zip.readUInt32LE(end + 16);
  for (let count = zip.readUInt16LE(end + 10); count > 0; count--) {
    if (offset + 46 > zip.length || zip.readUInt32LE(offset) !== CENTRAL_DIRECTORY_ENTRY) return undefined;
    const nameLength = zip.readUInt16LE(offset + 28);
    entries.push({
      name: zip.toString('utf8', offset + 46, offset + 46 + nameLength),
      method: zip.readUInt16LE(offset + 10),
      compressedSize: zip.readUInt32LE(offset + 20),
      uncompressedSize: zip.readUInt32LE(offset + 24),
      localHeader: zip.readUInt32LE(offset + 42),
    });
    offset += 46 + nameLength + zip.readUInt16LE(offset + 30) + zip.readUInt16LE(offset + 32);
  }
  return entries;
}

const mebibytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;

/**
 * Refuses a workbook whose XML would unpack to more than `limit` bytes, by the sizes its entries declare,
 * then by what each inflates to (an entry that holds more than it declares is refused as soon as it does).
 */
export function checkUnpackedSize(zip: Buffer, limit: number): void {
  const entries = zipEntries(zip)?.filter((entry) => isXml(entry.name));
  if (!entries) return; // not a zip: the reader says so
  const tooLarge = (size: string) =>
    new FileTooLarge(`the workbook unpacks to ${size} of XML, more than the ${mebibytes(limit)} an import reads; save the sheet as CSV, or split it`);
  const declared = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  if (declared > limit) throw tooLarge(mebibytes(declared));
  for (const entry of entries) {
    if (entry.method !== DEFLATED || zip.readUInt32LE(entry.localHeader) !== LOCAL_HEADER) continue;
    const start = entry.localHeader + 30 + zip.readUInt16LE(entry.localHeader + 26) + zip.readUInt16LE(entry.localHeader + 28);
    try {
      inflateRawSync(zip.subarray(start, start + entry.compressedSize), { maxOutputLength: Math.max(1, entry.uncompressedSize) });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(`more than it declares (${entry.name})`);
      // A damaged entry: the reader refuses it in its words.
    }
  }
}

export interface Sheet {
  name: string;
  rows: TableRow[];
}

/** The workbook's sheets, each row with its spreadsheet number; undefined when the bytes are no workbook that can be read. */
export async function workbookSheets(bytes: Buffer): Promise<Sheet[] | undefined> {
  try {
    const sheets = await readXlsxFile(bytes);
    return sheets.map(({ sheet, data }) => ({ name: sheet, rows: data.map((cells, index) => ({ number: index + 1, cells })) }));
  } catch (error) {
    if (error instanceof InvalidInputError || error instanceof InvalidSpreadsheetError) return undefined;
    throw error;
  }
}
