import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import iconv from 'iconv-lite';

/**
 * The text of an import file, from the encodings HR systems and spreadsheets write: UTF-8 (with or
 * without a byte order mark), UTF-16 (with one, or told by its zero bytes), and Windows-1252 /
 * ISO-8859-1. Bytes the encoding cannot hold are refused with where they are, never replaced: a name
 * is stored as written or not at all. Decoding is iconv-lite's: Node's TextDecoder reads
 * 'windows-1252' as Latin-1 (0x80-0x9F as control characters) since Node 20.18.
 */

export const ENCODINGS = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252', 'iso-8859-1'] as const;
export type Encoding = (typeof ENCODINGS)[number];

const ALIASES: Record<string, Encoding> = { utf8: 'utf-8', utf16le: 'utf-16le', utf16be: 'utf-16be', cp1252: 'windows-1252', latin1: 'iso-8859-1' };

/** The encoding `--encoding` names, or undefined. */
export function encodingNamed(name: string): Encoding | undefined {
  const lower = name.toLowerCase();
  return (ENCODINGS as readonly string[]).includes(lower) ? (lower as Encoding) : ALIASES[lower.replace(/[-_]/g, '')];
}

/** Where the first byte the encoding cannot read is, counted as a spreadsheet counts: row 1 is the first line. */
export class UndecodableFile extends Error {
  constructor(
    readonly row: number,
    readonly column: number,
    message: string,
  ) {
    super(message);
  }
}

const BOMS: [Encoding, number[]][] = [
  ['utf-8', [0xef, 0xbb, 0xbf]],
  ['utf-16le', [0xff, 0xfe]],
  ['utf-16be', [0xfe, 0xff]],
];

/** Bytes Windows-1252 leaves undefined. */
const UNDEFINED_IN_1252 = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

/** The length of the UTF-8 sequence at `i`, or 0 when it is not one (overlong forms and surrogates included). */
function utf8SequenceAt(bytes: Uint8Array, i: number): number {
  const first = bytes[i]!;
  if (first < 0x80) return 1;
  const [length, low, high] =
    first >= 0xc2 && first <= 0xdf
      ? [2, 0x80, 0xbf]
      : first === 0xe0
        ? [3, 0xa0, 0xbf]
        : first === 0xed
          ? [3, 0x80, 0x9f]
          : first >= 0xe1 && first <= 0xef
            ? [3, 0x80, 0xbf]
            : first === 0xf0
              ? [4, 0x90, 0xbf]
              : first >= 0xf1 && first <= 0xf3
                ? [4, 0x80, 0xbf]
                : first === 0xf4
                  ? [4, 0x80, 0x8f]
                  : [0, 0, 0];
  if (length === 0 || i + length > bytes.length) return 0;
  if (bytes[i + 1]! < low || bytes[i + 1]! > high) return 0;
  for (let k = 2; k < length; k++) if (bytes[i + k]! < 0x80 || bytes[i + k]! > 0xbf) return 0;
  return length;
}

/** Bytes read and decoded per step: a file's text is made a slice at a time, never whole. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * An import file's bytes, read a chunk at a time: from disk, where they stay (a pass over a file of
 * 60 MiB holds 1 MiB of it), or from memory (an upload).
 */
export interface FileBytes {
  readonly size: number;
  /** The bytes from `start` on, a chunk at a time; a chunk may be overwritten by the next, so keep none. */
  chunks(start: number): Iterable<Uint8Array>;
  /** A copy of the bytes from `start` to `end` (the first bytes, and what an error message quotes). */
  slice(start: number, end: number): Uint8Array;
}

export function bytesInMemory(bytes: Uint8Array): FileBytes {
  return {
    size: bytes.length,
    *chunks(start) {
      for (let offset = start; offset < bytes.length; offset += CHUNK_BYTES)
        yield bytes.subarray(offset, Math.min(bytes.length, offset + CHUNK_BYTES));
    },
    slice: (start, end) => Uint8Array.prototype.slice.call(bytes, start, Math.min(end, bytes.length)),
  };
}

/** The file changed on disk while it was read: the rows checked would not be the rows written. */
export class ChangedFile extends Error {}

/**
 * A file on disk, read again for each pass rather than held: opened for each chunk (a reader that
 * stops, or a thread that is ended, leaves no descriptor open), and refused as soon as its size,
 * modification time or inode differ from when it was first opened.
 */
export function bytesOnDisk(path: string): FileBytes {
  const identity = (fd: number) => {
    const stats = fstatSync(fd, { bigint: true });
    return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
  };
  const read = <T>(then: (fd: number) => T): T => {
    const fd = openSync(path, 'r');
    try {
      if (identity(fd) !== opened)
        throw new ChangedFile(`${path} changed while it was being imported: nothing more is read from it; import it again once it is written`);
      return then(fd);
    } finally {
      closeSync(fd);
    }
  };
  const first = openSync(path, 'r');
  let opened: string;
  let size: number;
  try {
    opened = identity(first);
    size = fstatSync(first).size;
  } finally {
    closeSync(first);
  }
  const bytesAt = (buffer: Uint8Array, position: number, length: number) =>
    read((fd) => {
      let got = 0;
      while (got < length) {
        const n = readSync(fd, buffer, got, length - got, position + got);
        if (n === 0) break;
        got += n;
      }
      return buffer.subarray(0, got);
    });
  return {
    size,
    *chunks(start) {
      const buffer = Buffer.allocUnsafeSlow(CHUNK_BYTES);
      for (let offset = start; offset < size; offset += CHUNK_BYTES) {
        const chunk = bytesAt(buffer, offset, Math.min(CHUNK_BYTES, size - offset));
        if (chunk.length === 0) return;
        yield chunk;
      }
    },
    slice: (start, end) => {
      const length = Math.max(0, Math.min(end, size) - start);
      return bytesAt(new Uint8Array(length), start, length);
    },
  };
}

/** The most bytes past its first that a sequence (a UTF-8 character, a UTF-16 surrogate pair) takes. */
const SEQUENCE_TAIL = 3;

/**
 * Scans the bytes from `start`, a chunk at a time. `scan(bytes, from, to, offset)` reads the
 * sequences starting at `from` up to `to` and returns where it stopped (`to` or past it), or true to
 * stop; `offset` is where `bytes` is in the file, and `bytes` holds SEQUENCE_TAIL bytes past `to`
 * unless the file ends first. A sequence cut by a chunk's end is read from the few bytes joining the
 * two chunks, so no chunk is ever copied.
 */
function scanChunks(file: FileBytes, start: number, scan: (bytes: Uint8Array, from: number, to: number, offset: number) => number | true): void {
  let left: Uint8Array = new Uint8Array(0);
  let leftAt = start;
  let offset = start;
  for (const chunk of file.chunks(start)) {
    const last = offset + chunk.length >= file.size;
    let from = 0;
    if (left.length > 0) {
      const joint = Buffer.concat([left, chunk.subarray(0, SEQUENCE_TAIL)]);
      const ends = last && chunk.length <= SEQUENCE_TAIL;
      const read = scan(joint, 0, ends ? joint.length : left.length, leftAt);
      if (read === true || ends) return;
      from = read - left.length;
    }
    const read = scan(chunk, from, last ? chunk.length : chunk.length - SEQUENCE_TAIL, offset);
    if (read === true) return;
    // A copy (a Buffer's slice would share the chunk's memory, which the next chunk overwrites).
    left = Uint8Array.prototype.slice.call(chunk, read);
    leftAt = offset + read;
    offset += chunk.length;
  }
}

/** The offset of the first byte that is not UTF-8, or -1; and whether any multi-byte sequence was seen before it. */
function firstNonUtf8(file: FileBytes, start: number): { offset: number; multiByte: boolean } {
  let multiByte = false;
  let found = -1;
  scanChunks(file, start, (bytes, from, to, offset) => {
    let i = from;
    while (i < to) {
      const length = utf8SequenceAt(bytes, i);
      if (length === 0) {
        found = offset + i;
        return true;
      }
      if (length > 1) multiByte = true;
      i += length;
    }
    return i;
  });
  return { offset: found, multiByte };
}

/** The offset of the first unit that is not UTF-16 (a lone surrogate, an odd last byte), or -1. */
function firstNonUtf16(file: FileBytes, start: number, littleEndian: boolean): number {
  let found = -1;
  scanChunks(file, start, (bytes, from, to, offset) => {
    const unit = (i: number) => (littleEndian ? bytes[i]! | (bytes[i + 1]! << 8) : (bytes[i]! << 8) | bytes[i + 1]!);
    let i = from;
    for (; i < to; i += 2) {
      const code = i + 1 < bytes.length ? unit(i) : undefined;
      const lone =
        code === undefined ||
        (code >= 0xdc00 && code <= 0xdfff) ||
        (code >= 0xd800 && code <= 0xdbff && (i + 3 >= bytes.length || unit(i + 2) < 0xdc00 || unit(i + 2) > 0xdfff));
      if (lone) {
        found = offset + i;
        return true;
      }
      if (code >= 0xd800 && code <= 0xdbff) i += 2;
    }
    return i;
  });
  return found;
}

/** The offset of the first byte Windows-1252 leaves undefined, or -1. */
function firstUndefinedIn1252(file: FileBytes, start: number): number {
  let found = -1;
  scanChunks(file, start, (bytes, from, to, offset) => {
    for (let i = from; i < to; i++) {
      if (!UNDEFINED_IN_1252.has(bytes[i]!)) continue;
      found = offset + i;
      return true;
    }
    return to;
  });
  return found;
}

function decode(bytes: Uint8Array, encoding: Encoding): string {
  return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), encoding, { stripBOM: false });
}

/** The text of the file from `start`, in slices (a character split between two chunks is kept whole). */
export function* decodedText(file: FileBytes, start: number, encoding: Encoding): Generator<string> {
  const decoder = iconv.getDecoder(encoding, { stripBOM: false });
  for (const chunk of file.chunks(start)) {
    const text = decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
    if (text) yield text;
  }
  const rest = decoder.end();
  if (rest) yield rest;
}

/** How much of the file is looked at to tell UTF-16 without a byte order mark by its zero bytes. */
const SNIFFED_BYTES = 64 * 1024;

/**
 * UTF-16 without a byte order mark (some exports of Excel's "Unicode Text"): text in Latin script has
 * a zero in every other byte, the second of each pair in little-endian order. Undefined when the
 * file holds no zero byte, or zeros in no such pattern.
 */
function utf16ByZeros(bytes: Uint8Array): Encoding | 'unknown' | undefined {
  const end = Math.min(bytes.length, SNIFFED_BYTES);
  let even = 0;
  let odd = 0;
  for (let i = 0; i < end; i++) {
    if (bytes[i] !== 0) continue;
    if (i % 2 === 0) even++;
    else odd++;
  }
  if (even + odd === 0) return undefined;
  const pairs = end / 2;
  if (odd > pairs / 4 && even === 0) return 'utf-16le';
  if (even > pairs / 4 && odd === 0) return 'utf-16be';
  return 'unknown';
}

/**
 * Where `offset` is: the row counts the line breaks before it, outside quoted cells when `quoted`
 * (a CSV cell may hold a line break; a JSON Lines record may not); the column is the character in its line.
 */
function positionOf(text: string, quoted: boolean): { row: number; column: number } {
  let row = 1;
  let lineStart = 0;
  let inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted && char === '"') inQuotes = !inQuotes;
    else if (char === '\n') {
      lineStart = i + 1;
      if (!inQuotes) row++;
    }
  }
  return { row, column: [...text.slice(lineStart)].length + 1 };
}

/**
 * The file's encoding and where its text starts (after a byte order mark): the encoding named, else
 * the one its byte order mark tells, else UTF-16 told by its zero bytes, else UTF-8 when it is valid
 * UTF-8, else Windows-1252 when it holds no UTF-8 sequence at all; a file that mixes both is
 * refused, since either reading would alter some names.
 */
export function encodingOf(file: FileBytes, named: Encoding | undefined, quoted: boolean): { encoding: Encoding; start: number } {
  const head = file.slice(0, SNIFFED_BYTES);
  const bom = BOMS.find(([, mark]) => mark.every((byte, i) => head[i] === byte));
  const zeros = named || bom ? undefined : utf16ByZeros(head);
  if (zeros === 'unknown') {
    const offset = head.indexOf(0);
    const { row, column } = positionOf(decode(head.subarray(0, offset), 'windows-1252'), quoted);
    throw new UndecodableFile(
      row,
      column,
      'holds zero bytes, which no text in UTF-8 or Windows-1252 holds: if it is UTF-16, name it with --encoding utf-16le or utf-16be',
    );
  }
  let encoding: Encoding = named ?? bom?.[0] ?? zeros ?? 'utf-8';
  const start = bom && bom[0] === encoding ? bom[1].length : 0;
  const refuse = (offset: number, what: string): never => {
    const { row, column } = positionOf(decode(file.slice(start, offset), encoding), quoted);
    const hex = [...file.slice(offset, offset + 1)].map((byte) => `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    throw new UndecodableFile(row, column, `byte ${hex} is not ${what}; name the file's encoding with --encoding (${ENCODINGS.join(', ')})`);
  };
  if (encoding === 'utf-8') {
    const { offset, multiByte } = firstNonUtf8(file, start);
    if (offset >= 0) {
      if (named || bom || multiByte) refuse(offset, 'valid UTF-8');
      encoding = 'windows-1252';
    }
  }
  if (encoding === 'utf-16le' || encoding === 'utf-16be') {
    const offset = firstNonUtf16(file, start, encoding === 'utf-16le');
    if (offset >= 0) refuse(offset, `valid ${encoding.toUpperCase()}`);
  }
  if (encoding === 'windows-1252') {
    const offset = firstUndefinedIn1252(file, start);
    if (offset >= 0) refuse(offset, 'a Windows-1252 character');
  }
  return { encoding, start };
}
