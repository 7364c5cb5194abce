import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import { readSheet } from 'read-excel-file/node';
import { runCli } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { forEachEngine } from '../helpers/harness.js';

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/import');
const fixture = (name: string) => join(FIXTURES, name);
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The committed files as HR systems and spreadsheets write them: a workbook, a semicolon file, headings in people's spelling. */
forEachEngine('import of the files HR systems export', (h) => {
  const dir = mkdtempSync(join(tmpdir(), 'file-formats-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const fields: Record<string, string> = {};
  before(async () => {
    fields.department = await h.create('userfields', {
      type: 'dropdown',
      name: 'Department',
      categoryName: 'HR',
      options: [{ name: 'Sales' }, { name: 'Support' }],
    });
    fields.number = await h.create('userfields', { type: 'number', name: 'Employee number', categoryName: 'HR' });
    fields.start = await h.create('userfields', { type: 'date', name: 'Start date', categoryName: 'HR' });
  });

  const cli = (...argv: string[]) => runCli(h.database.url, ...argv);
  const importUsers = (path: string, ...options: string[]) => cli('import', 'users', '--org', h.org.id, ...options, path);
  async function user(email: string) {
    const found = (await h.get('users', { query: { email } })).json().results[0];
    return { ...found, values: (await h.get(`users/${found.id}/userfieldvalues`)).json() };
  }

  it("reads an Excel workbook's first sheet, converting numbers, dates and booleans by each field's type", async () => {
    const run = await importUsers(fixture('people.xlsx'));
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /^Imported 2 users from people\.xlsx: 2 created, 0 updated, 0 unchanged, 6 userfield values set$/);
    const ines = await user('ines.costa@example.com');
    assert.equal(ines.firstName, 'Inês');
    assert.equal(ines.active, true);
    assert.deepEqual(ines.values, { [fields.department!]: 'Sales', [fields.number!]: 301, [fields.start!]: '03/15/2021' });
    const tomas = await user('tomas.novak@example.com');
    assert.equal(tomas.active, false);
    assert.equal(tomas.values[fields.start!], '11/01/2019');
    const again = await importUsers(fixture('people.xlsx'));
    assert.match(again.out, /: 0 created, 0 updated, 2 unchanged, 0 userfield values set$/);
  });

  it('reads the sheet --sheet names, and says when there is none', async () => {
    const run = await importUsers(fixture('people.xlsx'), '--sheet', 'Leavers');
    assert.equal(run.code, 0, run.err);
    assert.equal((await user('petra.lind@example.com')).values[fields.number!], 303);
    const missing = await importUsers(fixture('people.xlsx'), '--sheet', 'Payroll');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /the workbook has no sheet named "Payroll"/);
    const csv = await importUsers(fixture('semicolon.csv'), '--sheet', 'Staff');
    assert.equal(csv.code, 2, 'a sheet is for workbooks');
    assert.match(csv.err, /--sheet names a sheet of an Excel workbook/);
    const notWorkbook = join(dir, 'fake.xlsx');
    writeFileSync(notWorkbook, 'email\nx@example.com\n');
    const refused = await importUsers(notWorkbook);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /is not an Excel workbook \(\.xlsx\) that can be read/);
  });

  it('reads a semicolon file with a byte order mark, CRLF and a quoted semicolon', async () => {
    const run = await importUsers(fixture('semicolon.csv'));
    assert.equal(run.code, 0, run.err);
    const lars = await user('lars.holm@example.com');
    assert.equal(lars.lastName, 'Holm; Jr.');
    assert.deepEqual(lars.values, { [fields.department!]: 'Support', [fields.number!]: 102 });
  });

  it("matches headings in people's spelling to properties and userfields", async () => {
    const run = await importUsers(fixture('people-headings.csv'));
    assert.equal(run.code, 0, run.err);
    const mia = await user('mia.wong@example.com');
    assert.deepEqual([mia.firstName, mia.lastName, mia.username, mia.locale], ['Mia', 'Wong', 'mwong', 'en-GB']);
    assert.deepEqual(mia.values, { [fields.department!]: 'Support', [fields.number!]: 201 });
  });

  it('exports a workbook with --format xlsx, typed cells, which import reads back unchanged', async () => {
    const path = join(dir, 'export.xlsx');
    const run = await cli('export', 'users', '--org', h.org.id, '--format', 'xlsx', '--output', path);
    assert.equal(run.code, 0, run.err);
    const [headings, ...rows] = await readSheet(readFileSync(path));
    assert.deepEqual(headings!.slice(0, 11), [
      'email',
      'firstName',
      'lastName',
      'username',
      'tags',
      'locale',
      'active',
      'accountType',
      'Department',
      'Employee number',
      'Start date',
    ]);
    const ines = rows.find((row) => row[0] === 'ines.costa@example.com')!;
    assert.equal(ines[6], true);
    assert.equal(ines[9], 301);
    assert.deepEqual(ines[10], new Date(Date.UTC(2021, 2, 15)));
    const again = await importUsers(path);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, new RegExp(`: 0 created, 0 updated, ${rows.length} unchanged, 0 userfield values set$`));
    const stdout = await cli('export', 'users', '--org', h.org.id, '--format', 'xlsx');
    assert.equal(stdout.code, 2);
  });

  it('takes a workbook at POST /imports', async () => {
    const workbook = readFileSync(fixture('people.xlsx'));
    const response = await h.request('POST', 'imports', workbook, { headers: { 'content-type': XLSX }, query: { sheet: 'Leavers' } });
    assert.equal(response.statusCode, 202, response.body);
    const job = await eventually(
      async () => {
        const read = (await h.get(`imports/${response.json().id}`)).json();
        return read.state !== 'running' && read;
      },
      { what: 'the import job to finish' },
    );
    assert.equal(job.state, 'succeeded', JSON.stringify(job));
    assert.equal(job.summary.rows, 1);
    const encoding = await h.request('POST', 'imports', workbook, { headers: { 'content-type': XLSX }, query: { encoding: 'utf-8' } });
    assert.equal(encoding.statusCode, 400);
    assert.deepEqual(Object.keys(encoding.json().fieldErrors), ['encoding']);
  });
});
