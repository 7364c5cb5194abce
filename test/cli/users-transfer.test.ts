import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { verifyPassword } from '../../src/lib/passwords.js';
import { runCli } from '../helpers/cli.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { createCategory } from '../helpers/userfields.js';

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

  it('refuses a column that names nothing, and a file it cannot read, with the row', async () => {
    const unknown = await importUsers(h.org.id, file('unknown.csv', 'email,shoeSize\nx@example.com,44\n'));
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /column "shoeSize": neither a user property/);
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
});
