import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import { verifyPassword } from '../../src/lib/passwords.js';
import { runCli, runCliWith } from '../helpers/cli.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { createCategory } from '../helpers/userfields.js';

/** Committed files as HR systems and spreadsheets write them (tests run from dist/test/cli). */
const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/import');
const fixture = (name: string) => join(FIXTURES, name);

const COLORS = [{ name: 'Red' }, { name: 'Green' }, { name: 'Blue' }];

forEachEngine('import and export of users', (h) => {
  const dir = mkdtempSync(join(tmpdir(), 'users-transfer-'));
  let department: string;
  let colors: string;
  let employeeNumber: string;

  before(async () => {
    const categoryId = await createCategory(h);
    department = await h.create('userfields', {
      type: 'dropdown',
      name: 'Department',
      categoryId,
      options: [{ name: 'Sales' }, { name: 'Support' }],
    });
    colors = await h.create('userfields', { type: 'checkboxes', name: 'Colors', categoryId, options: COLORS });
    employeeNumber = await h.create('userfields', { type: 'number', name: 'Employee number', categoryId, constraints: { minimumValue: 1 } });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function file(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }
  const cli = (...argv: string[]) => runCli(h.database.url, ...argv);
  const importUsers = (orgId: string, path: string, ...options: string[]) => cli('import', 'users', '--org', orgId, ...options, path);

  async function userByEmail(email: string, harness: Harness = h, token?: string) {
    const page = (await harness.get('users', { query: { email }, ...(token ? { token } : {}) })).json();
    return page.results[0];
  }

  const people = () =>
    file(
      'people.csv',
      [
        `email,firstName,lastName,password,tags,active,Department,${colors},Employee number`,
        'ada@example.com,Ada,Lovelace,analytical1,"math, engines",true,Sales,"[""Red"",""Blue""]",1',
        'alan@example.com,Alan,Turing,,,false,Support,,2',
        'grace@example.com,Grace,,,,,,,',
      ].join('\n'),
    );

  it('creates users with their properties and userfield values (by name or id), hashing passwords', async () => {
    const run = await importUsers(h.org.id, people());
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /^Imported 3 users from people\.csv: 3 created, 0 updated, 0 unchanged, 5 userfield values set$/);
    const ada = await userByEmail('ada@example.com');
    assert.equal(ada.firstName, 'Ada');
    assert.deepEqual(ada.tags, ['math', 'engines']);
    assert.equal(ada.active, true);
    assert.equal((await userByEmail('alan@example.com')).active, false);
    const values = (await h.get(`users/${ada.id}/userfieldvalues`)).json();
    assert.deepEqual(values, { [department]: 'Sales', [colors]: ['Red', 'Blue'], [employeeNumber]: 1 });
    const row = await h.database.db.selectFrom('users').select('password_hash').where('id', '=', ada.id).executeTakeFirstOrThrow();
    assert.equal(await verifyPassword('analytical1', row.password_hash!), true);
  });

  it('updates instead of duplicating when the same people are imported again (matched by email, case aside)', async () => {
    const before = (await h.get('users', { query: { limit: '100' } })).json().results.length;
    const again = file('again.csv', 'email,firstName,Department\nADA@example.com,Augusta Ada,Support\nalan@example.com,Alan,\n');
    const run = await importUsers(h.org.id, again);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /: 0 created, 1 updated, 1 unchanged, 1 userfield values set$/, 'Alan is as stored');
    assert.equal((await h.get('users', { query: { limit: '100' } })).json().results.length, before);
    const ada = await userByEmail('ada@example.com');
    assert.equal(ada.firstName, 'Augusta Ada');
    assert.equal(ada.lastName, 'Lovelace', 'a column not in the file is left as it was');
    assert.equal((await h.get(`users/${ada.id}/userfieldvalues`)).json()[department], 'Support');
    assert.equal((await importUsers(h.org.id, people())).code, 0);
    assert.equal((await h.get('users', { query: { limit: '100' } })).json().results.length, before);
  });

  it('reports every problem with its row number, and then writes nothing', async () => {
    const count = (await h.get('users', { query: { limit: '100' } })).json().results.length;
    const bad = file(
      'bad.csv',
      [
        'email,username,locale,Department,Employee number,password',
        'new.person@example.com,newbie,en,Sales,3,secret99',
        'not-an-email,,,,,',
        'someone@example.com,,english,Marketing,0,',
        'new.person@example.com,newbie,,,,short',
      ].join('\n'),
    );
    const run = await importUsers(h.org.id, bad);
    assert.equal(run.code, 1);
    assert.equal(run.out, '');
    const lines = run.err.split('\n');
    assert.equal(lines[0], 'bad.csv: 7 problems; nothing was written');
    for (const expected of [
      'row 3: email: Invalid email address',
      'row 4: Department: must be one of the options "Sales", "Support"',
      'row 4: Employee number: must be at least 1',
      'row 5: email: is also on row 2',
      'row 5: username: is also on row 2',
    ]) {
      assert.ok(lines.includes(`  ${expected}`), `${expected} in\n${run.err}`);
    }
    assert.ok(lines.some((line) => line.startsWith('  row 4: locale: ')));
    assert.ok(lines.some((line) => line.startsWith('  row 5: password: ')));
    assert.equal((await h.get('users', { query: { limit: '100' } })).json().results.length, count);
    assert.equal(await userByEmail('new.person@example.com'), undefined);
  });

  it('holds passwords to PASSWORD_MIN_LENGTH, set in the environment or by its flag, as the API does', async () => {
    const path = file('short-password.csv', 'email,password\nsix.characters@example.com,abcde1\nlong.enough@example.com,abcdefghijk1\n');
    const message = 'row 2: password: The password must be 12 to 64 characters long and contain at least one letter and one number';
    for (const run of [
      await runCliWith({ DATABASE_URL: h.database.url, PASSWORD_MIN_LENGTH: '12' }, 'import', 'users', '--org', h.org.id, path),
      await importUsers(h.org.id, path, '--password-min-length', '12'),
    ]) {
      assert.equal(run.code, 1, run.err);
      assert.deepEqual(run.err.split('\n'), ['short-password.csv: 1 problem; nothing was written', `  ${message}`]);
    }
    assert.equal(await userByEmail('six.characters@example.com'), undefined);
    assert.equal(await userByEmail('long.enough@example.com'), undefined);
    const lenient = await importUsers(h.org.id, path);
    assert.equal(lenient.code, 0, lenient.err);
    assert.ok(await userByEmail('six.characters@example.com'));
  });

  it('refuses a column that names nothing, and a file it cannot read, with the row', async () => {
    const unknown = await importUsers(h.org.id, file('unknown.csv', 'email,shoeSize\nx@example.com,44\n'));
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /column "shoeSize": neither a user property/);
    assert.match(unknown.err, /--ignore-columns "shoeSize"/);
    const broken = await importUsers(h.org.id, file('broken.csv', 'email,firstName\na@example.com,"Ann\nb@example.com,Bob\n'));
    assert.equal(broken.code, 1);
    assert.match(broken.err, /nothing was written\n {2}.*Quote Not Closed/i);
    const lines = await importUsers(h.org.id, file('lines.jsonl', '{"email":"j@example.com"}\n{"email":\n[1]\n'));
    assert.equal(lines.code, 1);
    assert.match(lines.err, /row 2: is not valid JSON\n {2}row 3: must be a JSON object/);
  });

  it('only reports with --dry-run', async () => {
    const path = file('dry.csv', 'email,firstName\ndry.run@example.com,Dry\nada@example.com,Ada\n');
    const run = await importUsers(h.org.id, path, '--dry-run');
    assert.equal(run.code, 0, run.err);
    assert.equal(run.out, 'dry.csv is valid: 2 users would be imported (1 created, 0 updated, 1 unchanged, 0 userfield values); nothing was written');
    assert.equal(await userByEmail('dry.run@example.com'), undefined);
  });

  for (const format of ['csv', 'jsonl']) {
    it(`exports users as ${format} in the format import reads: another organization imports the same people`, async () => {
      const exported = join(dir, `export.${format}`);
      const run = await cli('export', 'users', '--org', h.org.id, '--format', format, '--output', exported);
      assert.equal(run.code, 0, run.err);
      const text = readFileSync(exported, 'utf8');
      assert.match(text, /ada@example\.com/);
      const other = await h.createOrganization(`Copy ${format}`);
      for (const field of ['Department', 'Colors', 'Employee number']) {
        const original = (await h.get('userfields')).json().results.find((f: { name: string }) => f.name === field);
        const { id: _id, createdDate: _c, categoryId: _cat, orderIndex: _o, categoryName: _n, ...definition } = original;
        assert.equal((await h.post('userfields', { ...definition, categoryName: 'Copied' }, { token: other.token })).statusCode, 201);
      }
      const imported = await importUsers(other.id, exported);
      assert.equal(imported.code, 0, imported.err);
      const again = join(dir, `again.${format}`);
      assert.equal((await cli('export', 'users', '--org', other.id, '--format', format, '--output', again)).code, 0);
      const strip = (content: string) => content.split('\n').sort().join('\n');
      assert.equal(strip(readFileSync(again, 'utf8')), strip(text));
      const ada = await userByEmail('ada@example.com', h, other.token);
      const values = (await h.get(`users/${ada.id}/userfieldvalues`, { token: other.token })).json();
      assert.deepEqual(
        Object.values(values)
          .map((value) => JSON.stringify(value))
          .sort(),
        ['"Sales"', '1', '["Red","Blue"]'].sort(),
      );
    });
  }
  it('reads a Windows-1252 file with semicolons and headings as people write them, storing the names unaltered', async () => {
    const run = await importUsers(h.org.id, fixture('windows-1252.csv'));
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /: 2 created, 0 updated, 0 unchanged, 2 userfield values set$/);
    const zoe = await userByEmail('zoe@example.com');
    assert.equal(zoe.firstName, 'Zoë');
    assert.equal(zoe.lastName, 'Müller');
    assert.equal((await h.get(`users/${zoe.id}/userfieldvalues`)).json()[department], 'Sales');
    assert.equal((await userByEmail('francois@example.com')).lastName, 'O’Brien – Señor', 'Windows-1252 bytes 0x92 and 0x96');
    const again = await importUsers(h.org.id, fixture('windows-1252.csv'), '--encoding', 'cp1252');
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /: 0 created, 0 updated, 2 unchanged, 0 userfield values set$/);
  });

  it('reads a UTF-16 file with a byte order mark and tabs', async () => {
    const run = await importUsers(h.org.id, fixture('utf-16.csv'));
    assert.equal(run.code, 0, run.err);
    assert.equal((await userByEmail('krzysztof@example.com')).lastName, 'Żółkiewski');
    assert.equal((await userByEmail('yuki@example.com')).lastName, '佐藤');
  });

  it('refuses bytes that are not in the encoding, with their row and column, and stores nothing', async () => {
    const utf8 = Buffer.from('email,firstName\nbom.ok@example.com,Zoë\n', 'utf8');
    const withBom = file('bom.csv', '');
    writeFileSync(withBom, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]));
    const bom = await importUsers(h.org.id, withBom);
    assert.equal(bom.code, 0, bom.err);
    assert.equal((await userByEmail('bom.ok@example.com')).firstName, 'Zoë');

    const mixed = file('mixed.csv', '');
    writeFileSync(
      mixed,
      Buffer.concat([
        Buffer.from('email,firstName\nm1@example.com,"Zoë\nand"\nm2@example.com,M', 'utf8'),
        Buffer.from([0xfc]),
        Buffer.from('ller\n'),
      ]),
    );
    const refused = await importUsers(h.org.id, mixed);
    assert.equal(refused.code, 1);
    assert.match(
      refused.err,
      /^mixed\.csv: 1 problem; nothing was written\n {2}row 3, column 17: byte 0xFC is not valid UTF-8; name the file's encoding with --encoding/,
    );
    assert.equal(await userByEmail('m1@example.com'), undefined);

    const named = await importUsers(h.org.id, fixture('windows-1252.csv'), '--encoding', 'utf-8');
    assert.equal(named.code, 1);
    assert.match(named.err, /row 2, column 19: byte 0xEB is not valid UTF-8/);
    const unknown = await importUsers(h.org.id, fixture('windows-1252.csv'), '--encoding', 'ebcdic');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /--encoding must be one of utf-8, utf-16le/);
  });

  it('matches headings case, space and punctuation aside, and takes --map and --ignore-columns', async () => {
    const path = file('hr.csv', 'Employee Email,FIRST_NAME,department,Cost Centre,Badge\nhr1@example.com,Hana,Support,C-12,77\n');
    const refused = await importUsers(h.org.id, path);
    assert.equal(refused.code, 1);
    for (const heading of ['Employee Email', 'Cost Centre', 'Badge'])
      assert.match(refused.err, new RegExp(`column "${heading}": neither a user property`));
    assert.match(refused.err, /--ignore-columns "Employee Email,Cost Centre,Badge", or name what they hold with --map/);
    const run = await importUsers(h.org.id, path, '--map', 'employee email=email, Badge=Employee number', '--ignore-columns', 'cost centre');
    assert.equal(run.code, 0, run.err);
    const hana = await userByEmail('hr1@example.com');
    assert.equal(hana.firstName, 'Hana');
    assert.deepEqual((await h.get(`users/${hana.id}/userfieldvalues`)).json(), { [department]: 'Support', [employeeNumber]: 77 });
    const twice = await importUsers(h.org.id, file('twice.csv', 'Email,E-mail\na@example.com,a@example.com\n'));
    assert.equal(twice.code, 1);
    assert.match(twice.err, /column "E-mail": stands for what column "Email" does/);
  });

  it('names a heading that looks like several columns glued together', async () => {
    const run = await importUsers(h.org.id, file('glued.csv', '"email;firstName",x,y\na,b,c\n'));
    assert.equal(run.code, 1);
    assert.match(run.err, /the heading "email;firstName" looks like several columns glued together/);
  });

  it('numbers rows as a spreadsheet does when cells hold line breaks', async () => {
    const run = await importUsers(h.org.id, fixture('multi-line.csv'));
    assert.equal(run.code, 1);
    const lines = run.err.split('\n');
    assert.deepEqual(lines.slice(1), ['  row 4: email: Invalid email address', '  row 6: email: is also on row 2']);
  });

  it('prints problems and the summary as JSON lines with --json', async () => {
    const bad = file('json.csv', 'E-mail,Employee number\njson@example.com,0\nnope,2\n');
    const run = await importUsers(h.org.id, bad, '--json');
    assert.equal(run.code, 1);
    const problems = run.out.split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(problems, [
      { row: 2, column: 'Employee number', field: 'Employee number', message: 'must be at least 1' },
      { row: 3, column: 'E-mail', field: 'email', message: 'Invalid email address' },
    ]);
    const good = await importUsers(h.org.id, file('json-good.csv', 'email\njson@example.com\n'), '--json');
    assert.equal(good.code, 0, good.err);
    assert.deepEqual(JSON.parse(good.out), { rows: 1, created: 1, updated: 0, unchanged: 0, deactivated: 0, userfieldValues: 0, dryRun: false });
  });

  it('exports CSV for Excel with --excel (byte order mark, CRLF), which import reads back unchanged', async () => {
    const path = join(dir, 'excel.csv');
    const run = await cli('export', 'users', '--org', h.org.id, '--excel', '--output', path);
    assert.equal(run.code, 0, run.err);
    const bytes = readFileSync(path);
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8');
    assert.equal(text.split('\r\n').length, text.split('\n').length, 'every line ends in CRLF');
    assert.match(text, /Zoë,Müller/);
    const again = await importUsers(h.org.id, path);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /: 0 created, 0 updated, \d+ unchanged, 0 userfield values set$/);
  });
  it('imports and exports the kind of account: accountType, which a learner leaves empty', async () => {
    const path = file(
      'kinds.csv',
      [
        'email,accountType',
        'kind.admin@example.com,organizationAdministrator',
        'kind.courses@example.com,courseAdministrator',
        'kind.learner@example.com,learner',
      ].join('\n'),
    );
    const run = await importUsers(h.org.id, path);
    assert.equal(run.code, 0, run.err);
    assert.equal((await userByEmail('kind.admin@example.com')).accountType, 'organizationAdministrator');
    assert.equal((await userByEmail('kind.courses@example.com')).accountType, 'courseAdministrator');
    assert.equal('accountType' in (await userByEmail('kind.learner@example.com')), false);
    const refused = await importUsers(h.org.id, file('bad-kind.csv', 'email,accountType\nkind.admin@example.com,superuser\n'));
    assert.equal(refused.code, 1);
    assert.match(refused.err, /row 2: accountType: must be one of learner, courseAdministrator, organizationAdministrator/);

    const exported = join(dir, 'kinds-export.csv');
    assert.equal((await cli('export', 'users', '--org', h.org.id, '--output', exported)).code, 0);
    const lines = readFileSync(exported, 'utf8').split('\n');
    const column = lines[0]!.split(',').indexOf('accountType');
    assert.ok(column > 0, lines[0]);
    const kindOf = (email: string) => lines.find((line) => line.startsWith(`${email},`))!.split(',')[column];
    assert.equal(kindOf('kind.admin@example.com'), 'organizationAdministrator');
    assert.equal(kindOf('kind.courses@example.com'), 'courseAdministrator');
    assert.equal(kindOf('kind.learner@example.com'), '');
    // Back in, the export changes nobody: a learner's empty cell keeps the learner one.
    const again = await importUsers(h.org.id, exported);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /: 0 created, 0 updated, \d+ unchanged/);
  });
});
