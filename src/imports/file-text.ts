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

/** The offset of the first byte that is not UTF-8, or -1; and whether any multi-byte sequence was seen before it. */
function firstNonUtf8(bytes: Uint8Array, start: number): { offset: number; multiByte: boolean } {
  let multiByte = false;
  for (let i = start; i < bytes.length;) {
    const length = utf8SequenceAt(bytes, i);
    if (length === 0) return { offset: i, multiByte };
    if (length > 1) multiByte = true;
    i += length;
  }
  return { offset: -1, multiByte };
}

/** The offset of the first unit that is not UTF-16 (a lone surrogate, an odd last byte), or -1. */
function firstNonUtf16(bytes: Uint8Array, start: number, littleEndian: boolean): number {
  const unit = (i: number) => (littleEndian ? bytes[i]! | (bytes[i + 1]! << 8) : (bytes[i]! << 8) | bytes[i + 1]!);
  for (let i = start; i < bytes.length; i += 2) {
    if (i + 1 >= bytes.length) return i;
    const code = unit(i);
    if (code >= 0xdc00 && code <= 0xdfff) return i;
    if (code >= 0xd800 && code <= 0xdbff) {
      if (i + 3 >= bytes.length || unit(i + 2) < 0xdc00 || unit(i + 2) > 0xdfff) return i;
      i += 2;
    }
  }
  return -1;
}

function decode(bytes: Uint8Array, start: number, end: number, encoding: Encoding): string {
  return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start), encoding, { stripBOM: false });
}

/** Bytes decoded per step: a file's text is made a slice at a time, never whole. */
const DECODED_BYTES = 1024 * 1024;

/** The text of `bytes` from `start`, in slices (a character split between two slices is kept whole). */
export function* decodedText(bytes: Uint8Array, start: number, encoding: Encoding): Generator<string> {
  const decoder = iconv.getDecoder(encoding, { stripBOM: false });
  for (let offset = start; offset < bytes.length; offset += DECODED_BYTES) {
    const text = decoder.write(Buffer.from(bytes.buffer, bytes.byteOffset + offset, Math.min(DECODED_BYTES, bytes.length - offset)));
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
export function encodingOf(bytes: Uint8Array, named: Encoding | undefined, quoted: boolean): { encoding: Encoding; start: number } {
  const bom = BOMS.find(([, mark]) => mark.every((byte, i) => bytes[i] === byte));
  const zeros = named || bom ? undefined : utf16ByZeros(bytes);
  if (zeros === 'unknown') {
    const offset = bytes.indexOf(0);
    const { row, column } = positionOf(decode(bytes, 0, offset, 'windows-1252'), quoted);
    throw new UndecodableFile(
      row,
      column,
      'holds zero bytes, which no text in UTF-8 or Windows-1252 holds: if it is UTF-16, name it with --encoding utf-16le or utf-16be',
    );
  }
  let encoding: Encoding = named ?? bom?.[0] ?? zeros ?? 'utf-8';
  const start = bom && bom[0] === encoding ? bom[1].length : 0;
  const refuse = (offset: number, what: string): never => {
    const { row, column } = positionOf(decode(bytes, start, offset, encoding), quoted);
    const hex = [...bytes.subarray(offset, offset + 1)].map((byte) => `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    throw new UndecodableFile(row, column, `byte ${hex} is not ${what}; name the file's encoding with --encoding (${ENCODINGS.join(', ')})`);
  };
  if (encoding === 'utf-8') {
    const { offset, multiByte } = firstNonUtf8(bytes, start);
    if (offset >= 0) {
      if (named || bom || multiByte) refuse(offset, 'valid UTF-8');
      encoding = 'windows-1252';
    }
  }
  if (encoding === 'utf-16le' || encoding === 'utf-16be') {
    const offset = firstNonUtf16(bytes, start, encoding === 'utf-16le');
    if (offset >= 0) refuse(offset, `valid ${encoding.toUpperCase()}`);
  }
  if (encoding === 'windows-1252') {
    const offset = bytes.findIndex((byte, i) => i >= start && UNDEFINED_IN_1252.has(byte));
    if (offset >= 0) refuse(offset, 'a Windows-1252 character');
  }
  return { encoding, start };
}
