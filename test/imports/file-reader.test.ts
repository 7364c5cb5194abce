import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { FileReader } from '../../src/imports/file-reader.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'file-reader-'));
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every row of every pass, as `email name` lines. */
async function rowsOf(reader: FileReader): Promise<string[]> {
  const rows: string[] = [];
  for await (const batch of reader.pass()) for (const row of batch) rows.push(`${String(row.record.Email)} ${String(row.record.Name)}`);
  return rows;
}

it('reads a file of several megabytes from disk exactly, on every pass, whatever character a megabyte ends in', async () => {
  // Names of one to four UTF-8 bytes a character, so that the file's megabytes end within characters of every length.
  const names = ['Zoë', 'Ŀukas', '€uro Ω', 'Nguyễn', '😀 Smile', 'O’Brien'];
  const lines = ['Email,Name'];
  const expected: string[] = [];
  for (let n = 0; n < 60_000; n++) {
    const name = `${names[n % names.length]!} ${n}`;
    lines.push(`person${n}@reader.example,${name}`);
    expected.push(`person${n}@reader.example ${name}`);
  }
  const file = join(dir, 'people.csv');
  await writeFile(file, lines.join('\n'));
  const { reader, file: opened } = await FileReader.open({ path: file }, 'csv', {});
  try {
    assert.deepEqual(opened.problems, []);
    assert.equal(opened.rows, expected.length);
    assert.deepEqual(await rowsOf(reader), expected);
    assert.deepEqual(await rowsOf(reader), expected);
  } finally {
    await reader.close();
  }
});

it('refuses to go on with a file that changed on disk after it was opened: the rows checked would not be the rows written', async () => {
  const file = join(dir, 'changing.csv');
  await writeFile(file, 'Email,Name\nann@reader.example,Ann\n');
  const { reader } = await FileReader.open({ path: file }, 'csv', {});
  try {
    await writeFile(file, 'Email,Name\nmallory@reader.example,Mallory\nann@reader.example,Ann\n');
    await assert.rejects(rowsOf(reader), /changed while it was being imported/);
  } finally {
    await reader.close();
  }
});
