import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import writeXlsxFile from 'write-excel-file/node';
import { runCli } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { forEachEngine } from '../helpers/harness.js';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Windows-1252's characters for 0x80-0x9F (Unicode's table, cp1252.txt); the five bytes it leaves undefined are undefined. */
const CP1252_HIGH = [
  0x20ac,
  undefined,
  0x201a,
  0x0192,
  0x201e,
  0x2026,
  0x2020,
  0x2021,
  0x02c6,
  0x2030,
  0x0160,
  0x2039,
  0x0152,
  undefined,
  0x017d,
  undefined,
  undefined,
  0x2018,
  0x2019,
  0x201c,
  0x201d,
  0x2022,
  0x2013,
  0x2014,
  0x02dc,
  0x2122,
  0x0161,
  0x203a,
  0x0153,
  undefined,
  0x017e,
  0x0178,
];
/** What byte `b` is in Windows-1252: ASCII below 0x80, Latin-1 from 0xA0, the table between. */
const cp1252 = (b: number) => (b >= 0x80 && b < 0xa0 ? CP1252_HIGH[b - 0x80] : b);

/** HR files as people's systems and spreadsheets write them (issue 37, "HR files still damaged or silently dropped"). */
forEachEngine('HR files read as written', (h) => {
  const dir = mkdtempSync(join(tmpdir(), 'hr-files-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const fields: Record<string, string> = {};
  before(async () => {
    fields.number = await h.create('userfields', { type: 'number', name: 'Employee number', categoryName: 'HR' });
    fields.rate = await h.create('userfields', { type: 'decimal', name: 'Rate', categoryName: 'HR' });
    fields.start = await h.create('userfields', { type: 'date', name: 'Start date', categoryName: 'HR' });
    fields.note = await h.create('userfields', { type: 'text', name: 'Note', categoryName: 'HR' });
  });

  function file(name: string, content: string | Buffer): string {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  }
  const cli = (...argv: string[]) => runCli(h.database.url, ...argv);
  const importUsers = (path: string, ...options: string[]) => cli('import', 'users', '--org', h.org.id, ...options, path);
  const user = async (email: string) => (await h.get('users', { query: { email } })).json().results[0];
  const values = async (email: string) => (await h.get(`users/${(await user(email)).id}/userfieldvalues`)).json();
  const finished = (id: string) =>
    eventually(
      async () => {
        const job = (await h.get(`imports/${id}`)).json();
        return job.state !== 'running' && job;
      },
      { what: `import job ${id} to finish` },
    );

  it('stores a name with any of the 256 byte values of a Windows-1252 file exactly, or refuses the file', async () => {
    const outcomes = { stored: 0, refused: [] as number[] };
    const row = (b: number) =>
      Buffer.concat([Buffer.from(`byte${b}@bytes.example,"A`), Buffer.from(b === 0x22 ? [b, b] : [b]), Buffer.from('B"\r\n')]);
    const importBytes = (bytes: readonly number[]) =>
      importUsers(file(`bytes-${bytes[0]}-${bytes.length}.csv`, Buffer.concat([Buffer.from('email,firstName\r\n'), ...bytes.map(row)])));
    // The bytes 16 at a time, a row each: a run of 16 is all ASCII or all from 0x80, and each byte from 0x80 is
    // followed by "B", so a file of 16 is read in the same encoding as a file of one of them would be. When the file
    // of 16 is refused, each of its bytes is imported in a file of its own, to tell which are refused.
    for (let first = 0; first < 256; first += 16) {
      const group = Array.from({ length: 16 }, (_, n) => first + n);
      const together = await importBytes(group);
      for (const b of group) {
        const run = together.code === 0 ? together : await importBytes([b]);
        const stored = await user(`byte${b}@bytes.example`);
        if (run.code !== 0) {
          assert.equal(stored, undefined, `byte 0x${b.toString(16)}: refused, and nothing stored`);
          outcomes.refused.push(b);
          continue;
        }
        const expected = cp1252(b);
        assert.ok(expected !== undefined, `byte 0x${b.toString(16)} is undefined in Windows-1252, yet the file was imported`);
        assert.equal(stored.firstName, `A${String.fromCodePoint(expected)}B`, `byte 0x${b.toString(16)}`);
        outcomes.stored++;
      }
    }
    // Undefined in Windows-1252, a zero byte, and the control characters the API refuses in a name.
    for (const b of [0x00, 0x81, 0x8d, 0x8f, 0x90, 0x9d]) assert.ok(outcomes.refused.includes(b), `byte 0x${b.toString(16)} refused`);
    assert.ok(outcomes.stored >= 220, JSON.stringify(outcomes));
    console.log(
      `# 256 byte values: ${outcomes.stored} stored exactly, ${outcomes.refused.length} refused (${outcomes.refused.map((b) => `0x${b.toString(16)}`).join(' ')})`,
    );
  });

  it("reads the committed Windows-1252 file's bytes 0x80-0x9F as Windows-1252's characters", async () => {
    const fixture = readFileSync(new URL('../../../test/fixtures/import/windows-1252.csv', import.meta.url));
    assert.ok(fixture.includes(0x92) && fixture.includes(0x96), 'the fixture holds ’ and – as Windows-1252 writes them');
    const run = await importUsers(file('windows-1252.csv', fixture), '--ignore-columns', 'Department');
    assert.equal(run.code, 0, run.err);
    assert.equal((await user('francois@example.com')).lastName, 'O’Brien – Señor');
  });

  it('finds headings below title rows and on a later sheet, and says where they are when it cannot', async () => {
    const workbook = await writeXlsxFile([
      { sheet: 'Cover', data: [[null], ['Quarterly HR report'], ['Generated 2024-03-31']] },
      {
        sheet: 'People',
        data: [['Staff list, all sites'], ['Email', 'First name', 'Employee number'], ['cover1@hr.example', 'Cora', 1]],
      },
    ]).toBuffer();
    const path = file('report.xlsx', workbook);
    const refused = await importUsers(path);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /no heading names a user property or userfield: row 2 of sheet "Cover" holds "Quarterly HR report"/);
    assert.match(
      refused.err,
      /sheet "Cover": row 2 "Quarterly HR report"; row 3 "Generated 2024-03-31" \| sheet "People": row 1 "Staff list, all sites"; row 2 "Email", "First name", "Employee number"/,
    );
    assert.match(refused.err, /The headings look to be on row 2 of sheet "People": --sheet "People" --header-row 2/);
    assert.equal(await user('cover1@hr.example'), undefined);
    const run = await importUsers(path, '--sheet', 'PEOPLE', '--header-row', '2');
    assert.equal(run.code, 0, run.err);
    assert.equal((await values('cover1@hr.example'))[fields.number!], 1);
    const missing = await importUsers(path, '--sheet', 'Payroll');
    assert.match(missing.err, /the workbook has no sheet named "Payroll"; its sheets: "Cover", "People"/);

    const response = await h.request('POST', 'imports', workbook, {
      headers: { 'content-type': XLSX },
      query: { sheet: 'people', headerRow: '2', dryRun: 'true' },
    });
    assert.equal(response.statusCode, 202, response.body);
    assert.equal((await finished(response.json().id)).state, 'succeeded');
    const titled = file('titled.csv', 'Export of 31/03/2024\n\nemail,firstName\ntitled@hr.example,Tia\n');
    assert.equal((await importUsers(titled)).code, 1, 'a title row is not headings');
    const fromRow3 = await importUsers(titled, '--header-row', '3');
    assert.equal(fromRow3.code, 0, fromRow3.err);
    const headingsOnly = await importUsers(file('headings-only.csv', 'email,firstName\n'));
    assert.equal(headingsOnly.code, 1);
    assert.match(headingsOnly.err, /holds no rows of people below its headings \(row 1\)/);
  });

  it('reads CSV as a spreadsheet reads it: cells trimmed, empty rows skipped, empty lines counted in row numbers', async () => {
    const csv = file('spaced.csv', 'email , firstName\n  space1@hr.example , Sam  \n\n,\nnot-an-email,X\n');
    const refused = await importUsers(csv);
    assert.equal(refused.code, 1);
    assert.deepEqual(refused.err.split('\n').slice(1), ['  row 5: email: Invalid email address']);
    const fixed = await importUsers(file('spaced-ok.csv', 'email , firstName\n  space1@hr.example , Sam  \n\n,\n'));
    assert.equal(fixed.code, 0, fixed.err);
    assert.equal((await user('space1@hr.example')).firstName, 'Sam');
    const sheet = await writeXlsxFile([
      ['email', 'firstName'],
      ['  space2@hr.example ', ' Sue '],
      [null, null],
      ['not-an-email', 'X'],
    ]).toBuffer();
    const fromSheet = await importUsers(file('spaced.xlsx', sheet));
    assert.deepEqual(fromSheet.err.split('\n').slice(1), ['  row 4: email: Invalid email address']);
  });

  it("understands Excel's sep= line, .txt and .tsv files, UTF-16 without a byte order mark, and text/tab-separated-values", async () => {
    const sep = await importUsers(file('sep.csv', 'sep=;\r\nemail;firstName\r\nsep@hr.example;Sepp\r\n'));
    assert.equal(sep.code, 0, sep.err);
    assert.equal((await user('sep@hr.example')).firstName, 'Sepp');
    const unicodeText = Buffer.from('email\tlastName\r\nutf16@hr.example\tŻółkiewski\r\n', 'utf16le');
    const txt = await importUsers(file('unicode.txt', unicodeText));
    assert.equal(txt.code, 0, txt.err);
    assert.equal((await user('utf16@hr.example')).lastName, 'Żółkiewski');
    const tsv = await importUsers(file('people.tsv', 'email\tfirstName\ntsv@hr.example\tTess\n'));
    assert.equal(tsv.code, 0, tsv.err);
    const zeros = await importUsers(file('zeros.csv', Buffer.from([...Buffer.from('email\n'), 0, 0, 0x41, 0x0a])));
    assert.equal(zeros.code, 1);
    assert.match(zeros.err, /holds zero bytes.*--encoding utf-16le or utf-16be/);
    const response = await h.request('POST', 'imports', 'email\tfirstName\ntsv2@hr.example\tTom\n', {
      headers: { 'content-type': 'text/tab-separated-values' },
    });
    assert.equal(response.statusCode, 202, response.body);
    assert.equal((await finished(response.json().id)).state, 'succeeded');
    assert.equal((await user('tsv2@hr.example')).firstName, 'Tom');
  });

  it('reads decimal commas and European dates by the delimiter or --locale, and a date cell into a text field as the date', async () => {
    const european = await importUsers(
      file('eu.csv', 'email;Rate;Start date\neu1@hr.example;1,5;15.03.2024\neu2@hr.example;2;2024-03-16\neu3@hr.example;3,25;17/03/2024\n'),
    );
    assert.equal(european.code, 0, european.err);
    assert.deepEqual(await values('eu1@hr.example'), { [fields.rate!]: 1.5, [fields.start!]: '03/15/2024' });
    assert.deepEqual(await values('eu2@hr.example'), { [fields.rate!]: 2, [fields.start!]: '03/16/2024' });
    assert.deepEqual(await values('eu3@hr.example'), { [fields.rate!]: 3.25, [fields.start!]: '03/17/2024' });
    const comma = file('de.csv', 'email,Rate,Start date\nde1@hr.example,"1,75",18/03/2024\n');
    assert.equal((await importUsers(comma)).code, 1, 'a comma file is read as the API writes: 18/03/2024 is no month-first date');
    const german = await importUsers(comma, '--locale', 'de-DE');
    assert.equal(german.code, 0, german.err);
    assert.deepEqual(await values('de1@hr.example'), { [fields.rate!]: 1.75, [fields.start!]: '03/18/2024' });
    assert.equal((await importUsers(comma, '--locale', 'no such locale!')).code, 2);

    const sheet = await writeXlsxFile(
      [
        ['email', 'Note', 'Start date'],
        ['dates@hr.example', new Date(Date.UTC(2024, 2, 15)), new Date(Date.UTC(2024, 2, 15))],
      ],
      {
        dateFormat: 'dd.mm.yyyy',
      },
    ).toBuffer();
    const dated = await importUsers(file('dates.xlsx', sheet));
    assert.equal(dated.code, 0, dated.err);
    assert.deepEqual(await values('dates@hr.example'), { [fields.note!]: '2024-03-15', [fields.start!]: '03/15/2024' });
  });

  it('prints JSON throughout with --json: usage errors, refusals with their summary', async () => {
    const usage = await importUsers(file('json.csv', 'email\njson@hr.example\n'), '--max-changes', 'lots', '--json');
    assert.equal(usage.code, 2);
    assert.match(JSON.parse(usage.err).error, /--max-changes must be/);
    const unknown = await cli('import', 'users', '--json', '--nope');
    assert.equal(unknown.code, 2);
    assert.match(JSON.parse(unknown.err).error, /unknown option --nope/);
  });

  it('lets 1 of 5 people leave under the default limit, lists who would change in a dry run over it, and takes a floor', async () => {
    const org = await h.createOrganization('Small company');
    const staff = Array.from({ length: 5 }, (_, n) => `small${n}@hr.example`);
    const sync = (emails: readonly string[], ...options: string[]) =>
      cli(
        'import',
        'users',
        '--org',
        org.id,
        '--deactivate-missing',
        ...options,
        file(`small-${emails.length}.csv`, ['email', ...emails].join('\n')),
      );
    assert.equal((await sync(staff)).code, 0);
    const oneLeft = await sync(staff.slice(0, 4), '--dry-run');
    assert.equal(oneLeft.code, 0, oneLeft.err);
    assert.match(oneLeft.out, /would deactivate small4@hr\.example/);
    const truncated = await sync(staff.slice(0, 1), '--dry-run', '--max-changes', '10%,2', '--json');
    assert.equal(truncated.code, 1);
    const lines = truncated.out.split('\n').map((line) => JSON.parse(line));
    assert.match(lines[0].message, /would update 0 and deactivate 4 of the organization's 5 users, more than --max-changes 10%,2 allows/);
    assert.deepEqual(lines[1].changes.map((change: { email: string }) => change.email).sort(), staff.slice(1));
    assert.equal((await sync(staff.slice(0, 1), '--max-changes', '10%,4')).code, 0, 'the floor of 4 lets 4 leave');
  });

  it('runs the nightly example of docs/imports.md right after the tour: a dry run of two missing of four, its job without null values', async () => {
    const org = await h.createOrganization('Tour company');
    for (const email of ['ada@tour.example', 'margaret@tour.example']) await h.post('users', { email }, { token: org.token });
    const people = 'email,firstName,lastName,tags\ngrace@tour.example,Grace,Hopper,navy\nalan@tour.example,Alan,Turing,\n';
    await h.request('POST', 'imports', people, { headers: { 'content-type': 'text/csv' }, token: org.token });
    const response = await h.request('POST', 'imports', people, {
      headers: { 'content-type': 'text/csv' },
      token: org.token,
      query: { deactivateMissing: 'true', dryRun: 'true' },
    });
    assert.equal(response.statusCode, 202, response.body);
    const running = response.json();
    for (const absent of ['finishedDate', 'summary', 'problems']) assert.equal(absent in running, false, `${absent} is left out: ${response.body}`);
    const done = await eventually(
      async () => {
        const job = (await h.get(`imports/${running.id}`, { token: org.token })).json();
        return job.state !== 'running' && job;
      },
      { what: 'the dry run' },
    );
    assert.equal(done.state, 'succeeded', JSON.stringify(done));
    assert.equal(done.summary.deactivated, 2);
    assert.deepEqual(done.summary.changes.map((change: { email: string }) => change.email).sort(), ['ada@tour.example', 'margaret@tour.example']);
  });

  it('neutralises CSV cells a spreadsheet would run as formulas, in both exports, and reads them back unchanged', async () => {
    const org = await h.createOrganization('Formula company');
    for (const [email, firstName] of [
      ['f1@hr.example', '=HYPERLINK("http://evil.example","x")'],
      ['f2@hr.example', '+1+2'],
      ['f3@hr.example', '-2+3'],
      ['f4@hr.example', '@SUM(A1)'],
    ])
      assert.equal((await h.post('users', { email, firstName }, { token: org.token })).statusCode, 201);
    for (const options of [[], ['--excel']]) {
      const path = join(dir, `formulas${options.length}.csv`);
      const run = await cli('export', 'users', '--org', org.id, '--output', path, ...options);
      assert.equal(run.code, 0, run.err);
      const text = readFileSync(path, 'utf8');
      for (const cell of [`"'=HYPERLINK(""http://evil.example"",""x"")"`, "'+1+2", "'-2+3", "'@SUM(A1)"])
        assert.ok(text.includes(cell), `${cell} in\n${text}`);
      const again = await cli('import', 'users', '--org', org.id, path);
      assert.match(again.out, /: 0 created, 0 updated, 4 unchanged/);
    }
  });
});
