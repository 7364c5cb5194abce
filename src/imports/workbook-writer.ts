import { once } from 'node:events';
import { createDeflateRaw, type DeflateRaw } from 'node:zlib';
import { type FlateError, Zip, ZipPassThrough } from 'fflate';

/**
 * An Excel workbook (.xlsx) of one sheet, written row after row as the rows come: strings inline in
 * their cells (a shared-strings table would have to be complete before the first row is written),
 * dates as day numbers with a date format, as Excel keeps them. The zip is fflate's streaming one:
 * each entry deflated as its chunks come, its CRC and sizes in a data descriptor after it, and the
 * central directory at the end. fflate lays out the archive, but the deflating is zlib's, native
 * code, where fflate's own (JavaScript) took 2.5 times the CPU. Memory holds a chunk of the sheet's
 * XML and the deflate window, however many rows.
 */

export type SheetCell = string | number | boolean | Date | null;

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_RELATIONSHIPS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
/** The style of a date cell: cellXfs' second entry, with the format of numFmts. */
const DATE_STYLE = 1;
/** A chunk of the sheet's XML, about this many characters, deflated at a time. */
const CHUNK = 64 * 1024;
const DAY_MS = 86_400_000;
/** Day 0 of Excel's 1900 date system, 1899-12-30, from the Unix epoch in days. */
const EXCEL_EPOCH_DAYS = 25_569;
/** The time of every entry, 1980-01-01 00:00 (the earliest a zip holds): the workbook's parts carry no time of their own. */
const ENTRY_TIME = new Date(1980, 0, 1);
/** No ZIP64: an entry or an archive past 4 GiB is refused. */
const LARGEST = 0xffffffff;
/** Deflate, APPNOTE 4.4.5. */
const DEFLATED = 8;
/** zlib's default level, the one the sheet was deflated at before fflate. */
const LEVEL = 6;

/**
 * An entry of fflate's Zip deflated by zlib: ZipPassThrough counts the size and the CRC of what is
 * pushed, zlib's raw deflate stream compresses it, and what zlib gives back goes to the Zip as it
 * comes (fflate's documented way to bring a compressor of one's own). `pushed` resolves once zlib
 * has taken the chunk in, and the last chunk once the entry is complete, so that no more than one
 * chunk waits in zlib.
 */
class ZlibDeflated extends ZipPassThrough {
  private readonly deflate: DeflateRaw = createDeflateRaw({ level: LEVEL });
  /** Settles once zlib has given back its last bytes, or failed. */
  private readonly ended: Promise<void>;
  /** Settles once zlib has taken in the chunk last pushed, or failed. */
  private taken: Promise<void> = Promise.resolve();
  private release = () => {};

  constructor(name: string) {
    super(name);
    this.compression = DEFLATED;
    this.mtime = ENTRY_TIME;
    this.deflate.on('data', (bytes: Buffer) => this.ondata(null, bytes as Uint8Array<ArrayBuffer>, false));
    // The Zip's callback has the error; whoever waits for zlib goes on, and finds it there.
    this.deflate.on('error', (error: Error) => {
      this.ondata(error as FlateError, new Uint8Array(0), true);
      this.release();
    });
    // The last chunk, empty, once zlib is done: fflate then writes the data descriptor, with the
    // CRC and size that ZipPassThrough completed when the last chunk was pushed.
    this.ended = once(this.deflate, 'end').then(
      () => this.ondata(null, new Uint8Array(0), true),
      () => {},
    );
  }

  protected override process(chunk: Uint8Array<ArrayBuffer>, final: boolean): void {
    this.taken = new Promise((resolve) => {
      this.release = resolve;
      this.deflate.write(chunk, () => resolve());
    });
    if (final) this.deflate.end();
  }

  /** Frees zlib's memory when the archive is given up before its end. */
  terminate() {
    this.deflate.destroy();
  }

  async pushed(chunk: Uint8Array, final = false): Promise<void> {
    this.push(chunk, final);
    await this.taken;
    if (final) await this.ended;
  }
}

/** The parts besides the sheet, the same for every workbook but for the sheet's name. */
function fixedParts(sheetName: string): [string, string][] {
  return [
    [
      '[Content_Types].xml',
      `${DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>',
    ],
    [
      '_rels/.rels',
      `${DECLARATION}<Relationships xmlns="${PACKAGE_RELATIONSHIPS}">` +
        `<Relationship Id="rId1" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `${DECLARATION}<workbook xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}"><sheets>` +
        `<sheet name="${escaped(sheetName)}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${DECLARATION}<Relationships xmlns="${PACKAGE_RELATIONSHIPS}">` +
        `<Relationship Id="rId1" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet1.xml"/>` +
        `<Relationship Id="rId2" Type="${RELATIONSHIPS}/styles" Target="styles.xml"/></Relationships>`,
    ],
    [
      'xl/styles.xml',
      `${DECLARATION}<styleSheet xmlns="${MAIN}"><numFmts count="1"><numFmt numFmtId="164" formatCode="mm/dd/yyyy"/></numFmts>` +
        '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>' +
        '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
        '<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
        '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs></styleSheet>',
    ],
  ];
}

/** XML's five special characters escaped, and the control characters XML 1.0 cannot hold at all left out. */
function escaped(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- these are the characters to remove
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[&<>"]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[character]!)
  );
}

/** A column's letters: 0 is A, 25 Z, 26 AA. */
function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function cellXml(cell: SheetCell, reference: string): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return `<c r="${reference}"><v>${cell}</v></c>`;
  if (typeof cell === 'boolean') return `<c r="${reference}" t="b"><v>${cell ? 1 : 0}</v></c>`;
  if (cell instanceof Date) return `<c r="${reference}" s="${DATE_STYLE}"><v>${cell.getTime() / DAY_MS + EXCEL_EPOCH_DAYS}</v></c>`;
  // Spaces at either end are kept only when the text says so.
  const space = /^\s|\s$/.test(cell) ? ' xml:space="preserve"' : '';
  return `<c r="${reference}" t="inlineStr"><is><t${space}>${escaped(cell)}</t></is></c>`;
}

/** The sheet's XML, in chunks of about CHUNK characters. */
async function* sheetXml(rows: AsyncIterable<readonly SheetCell[]>): AsyncGenerator<string> {
  let chunk = `${DECLARATION}<worksheet xmlns="${MAIN}"><sheetData>`;
  const columns: string[] = [];
  let number = 0;
  for await (const row of rows) {
    number++;
    chunk += `<row r="${number}">`;
    row.forEach((cell, index) => {
      chunk += cellXml(cell, `${(columns[index] ??= columnName(index))}${number}`);
    });
    chunk += '</row>';
    if (chunk.length >= CHUNK) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}</sheetData></worksheet>`;
}

/**
 * Writes a workbook of one sheet, `sheetName`, holding `rows`, through `write`, which resolves once
 * the bytes may be followed by more (the destination drained). fflate calls back with the archive's
 * bytes as zlib makes them; once zlib has taken a chunk in, what was made is written, and waited for,
 * before the next chunk is pushed.
 */
export async function writeWorkbook(sheetName: string, rows: AsyncIterable<readonly SheetCell[]>, write: (bytes: Buffer) => Promise<void>) {
  let made: Uint8Array[] = [];
  let failure: Error | null = null;
  let archiveSize = 0;
  const zip = new Zip((error, bytes) => {
    if (error) failure = error;
    else made.push(bytes);
  });
  const flush = async () => {
    if (failure) throw failure;
    const bytes = made;
    made = [];
    for (const chunk of bytes) {
      archiveSize += chunk.length;
      if (archiveSize > LARGEST) throw new Error('the archive grew past 4 GiB, more than a zip without ZIP64 holds');
      await write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
  };
  const entry = async (name: string, content: Iterable<string> | AsyncIterable<string>) => {
    const file = new ZlibDeflated(name);
    zip.add(file);
    for await (const chunk of content) {
      await file.pushed(Buffer.from(chunk));
      if (file.size > LARGEST) throw new Error(`${name} grew past 4 GiB, more than a zip entry without ZIP64 holds`);
      await flush();
    }
    await file.pushed(new Uint8Array(0), true);
    await flush();
  };
  try {
    for (const [name, content] of fixedParts(sheetName)) await entry(name, [content]);
    await entry('xl/worksheets/sheet1.xml', sheetXml(rows));
    zip.end();
    await flush();
  } catch (error) {
    zip.terminate();
    throw error;
  }
}
