import assert from 'node:assert/strict';
import { it } from 'node:test';
import { batches } from '../../src/db/batches.js';
import { newId } from '../../src/lib/ids.js';
import { forEachEngine } from '../helpers/harness.js';
import { createUser, listAll, unique } from '../helpers/collections.js';
import { createCategory } from '../helpers/userfields.js';

const NOT_FOUND = 'No resource exists with the given id.';
const OPTIONS = [{ name: 'Red' }, { name: 'Green' }, { name: 'Blue' }];

/** Per type: a field definition, values it accepts (with what is stored, when that differs) and values it refuses. */
const TYPES: { type: string; body?: Record<string, unknown>; valid: [unknown, unknown?][]; invalid: unknown[] }[] = [
  { type: 'text', valid: [['Hello'], [''], ['日本語']], invalid: [5, true, ['a'], { text: 'a' }] },
  { type: 'email', valid: [['ada@example.com']], invalid: ['ada', 'ada@-example.com', 'a b@example.com', 7] },
  { type: 'number', valid: [[42], [0], [-7]], invalid: [4.5, '42', true, 1e300] },
  { type: 'decimal', valid: [[4.5], [3], [-0.25]], invalid: ['4.5', false, [1]] },
  {
    type: 'date',
    valid: [['02/29/2024'], ['12/31/1999']],
    invalid: ['02/30/2024', '02/29/2023', '13/01/2020', '2024-01-01', '1/2/2020', 20240101],
  },
  { type: 'dropdown', body: { options: OPTIONS }, valid: [['Green']], invalid: ['green', 'Purple', ['Green'], 1] },
  { type: 'radiobuttons', body: { options: OPTIONS }, valid: [['Red']], invalid: ['RED', '', 3] },
  {
    type: 'checkboxes',
    body: { options: OPTIONS },
    valid: [
      [
        ['Blue', 'Red'],
        ['Red', 'Blue'],
      ],
      [['Green', 'Green'], ['Green']],
      [[]],
    ],
    invalid: ['Red', ['Red', 'Pink'], [1], { Red: true }],
  },
  { type: 'checkbox', valid: [[true], [false]], invalid: ['true', 1, 'yes'] },
  { type: 'truefalse', valid: [[false], [true]], invalid: ['false', 0] },
  { type: 'yesno', valid: [['yes'], ['no']], invalid: ['Yes', true, 'maybe'] },
];

forEachEngine('userfield values', (h) => {
  const values = async (userId: string) => {
    const response = await h.get(`users/${userId}/userfieldvalues`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };
  const field = (type: string, extra: Record<string, unknown> = {}) =>
    h.create('userfields', { type, categoryName: 'Values', ...(type === 'message' ? { message: 'Note' } : { name: unique(type) }), ...extra });
  const storedCount = async () =>
    Number(
      (
        await h.database.db
          .selectFrom('userfield_values')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('answers {} for a user without values, and 404 for an unknown, malformed or foreign user', async () => {
    const userId = await createUser(h);
    assert.deepEqual(await values(userId), {});
    const org = await h.createOrganization('Other users');
    const foreign = await createUser(h, { token: org.token });
    for (const id of [foreign, '0'.repeat(32), 'nobody']) {
      for (const response of [await h.get(`users/${id}/userfieldvalues`), await h.put(`users/${id}/userfieldvalues`, {})]) {
        assert.equal(response.statusCode, 404);
        assert.deepEqual(response.json(), { errors: [NOT_FOUND] });
      }
    }
  });

  for (const { type, body, valid, invalid } of TYPES) {
    it(`stores valid ${type} values in their representation and refuses invalid ones`, async () => {
      const fieldId = await field(type, body);
      const userId = await createUser(h);
      for (const [value, stored = value] of valid) {
        const response = await h.put(`users/${userId}/userfieldvalues`, { [fieldId]: value });
        assert.equal(response.statusCode, 204, `${JSON.stringify(value)}: ${response.body}`);
        assert.deepEqual(await values(userId), { [fieldId]: stored });
      }
      const kept = await values(userId);
      for (const value of invalid) {
        const response = await h.put(`users/${userId}/userfieldvalues`, { [fieldId]: value });
        assert.equal(response.statusCode, 400, JSON.stringify(value));
        assert.deepEqual(Object.keys(response.json().fieldErrors), [fieldId]);
        assert.deepEqual(await values(userId), kept);
      }
    });
  }

  it('checks email values with the user email pattern and message', async () => {
    const fieldId = await field('email');
    const userId = await createUser(h);
    for (const email of ['no-at-sign', 'a<script>@x.y', 'a,b@c.d', 'x@-.-']) {
      const response = await h.put(`users/${userId}/userfieldvalues`, { [fieldId]: email });
      assert.equal(response.json().fieldErrors[fieldId], 'Invalid email address', email);
    }
    assert.equal((await h.put(`users/${userId}/userfieldvalues`, { [fieldId]: 'ok@example.com' })).statusCode, 204);
  });

  it('clears with null, keeps a checkbox false as a value, and leaves fields not named alone', async () => {
    const [text, checkbox, number] = [await field('text'), await field('checkbox'), await field('number')];
    const userId = await createUser(h);
    assert.equal((await h.put(`users/${userId}/userfieldvalues`, { [text]: 'Kept', [checkbox]: false, [number]: 3 })).statusCode, 204);
    assert.deepEqual(await values(userId), { [text]: 'Kept', [checkbox]: false, [number]: 3 });
    assert.equal((await h.put(`users/${userId}/userfieldvalues`, { [number]: null })).statusCode, 204);
    assert.deepEqual(await values(userId), { [text]: 'Kept', [checkbox]: false });
    assert.equal((await h.put(`users/${userId}/userfieldvalues`, { [number]: null })).statusCode, 204);
    assert.equal((await h.put(`users/${userId}/userfieldvalues`, {})).statusCode, 204);
    assert.deepEqual(await values(userId), { [text]: 'Kept', [checkbox]: false });
  });

  for (const { type, constraints, pass, fail } of [
    { type: 'text', constraints: { minimumLength: 2, maximumLength: 4 }, pass: ['ab', 'abcd', 'ñañá'], fail: ['a', 'abcde'] },
    {
      type: 'email',
      constraints: { minimumLength: 9, maximumLength: 10 },
      pass: ['a@b.co.uk', 'ab@b.co.uk'],
      fail: ['a@b.co.u', 'abc@b.co.uk'],
    },
    { type: 'number', constraints: { minimumValue: 5, maximumValue: 10 }, pass: [5, 10], fail: [4, 11] },
    { type: 'decimal', constraints: { minimumValue: 5, maximumValue: 10 }, pass: [5, 10], fail: [4.99, 10.01] },
    {
      type: 'date',
      constraints: { minimumDate: '01/31/2020', maximumDate: '03/01/2020' },
      pass: ['01/31/2020', '03/01/2020'],
      fail: ['01/30/2020', '03/02/2020'],
    },
  ]) {
    it(`holds ${type} values to the field's constraints: equal to a limit passes, one past fails`, async () => {
      const fieldId = await field(type, { constraints });
      const userId = await createUser(h);
      for (const value of pass) {
        const response = await h.put(`users/${userId}/userfieldvalues`, { [fieldId]: value });
        assert.equal(response.statusCode, 204, `${value}: ${response.body}`);
      }
      for (const value of fail) {
        const response = await h.put(`users/${userId}/userfieldvalues`, { [fieldId]: value });
        assert.equal(response.statusCode, 400, String(value));
        assert.match(response.json().fieldErrors[fieldId], /^must be (at least|at most|on or after|on or before) /);
      }
      assert.deepEqual(await values(userId), { [fieldId]: pass.at(-1) });
    });
  }

  it('checks values against the field as it is now', async () => {
    const fieldId = await field('text');
    const userId = await createUser(h);
    assert.equal((await h.put(`users/${userId}/userfieldvalues`, { [fieldId]: 'long enough' })).statusCode, 204);
    assert.equal((await h.put(`userfields/${fieldId}`, { constraints: { maximumLength: 3 } })).statusCode, 204);
    const response = await h.put(`users/${userId}/userfieldvalues`, { [fieldId]: 'long enough' });
    assert.equal(response.json().fieldErrors[fieldId], 'must be at most 3 characters long');
  });

  it("refuses unknown, malformed and other organizations' field ids and message fields, and writes nothing", async () => {
    const org = await h.createOrganization('Other fields');
    const foreign = await h.create('userfields', { type: 'text', name: 'Theirs', categoryName: 'Theirs' }, { token: org.token });
    const message = await field('message');
    const good = await field('text');
    const userId = await createUser(h);
    const unknown = '0'.repeat(32);
    const body = { [good]: 'fine', [foreign]: 'x', [unknown]: 'x', 'not-an-id': 'x', [message]: 'x' };
    const response = await h.put(`users/${userId}/userfieldvalues`, body);
    assert.equal(response.statusCode, 400);
    const { fieldErrors } = response.json();
    assert.deepEqual(Object.keys(fieldErrors).sort(), [foreign, message, 'not-an-id', unknown].sort());
    assert.equal(fieldErrors[foreign], NOT_FOUND);
    assert.equal(fieldErrors[unknown], NOT_FOUND);
    assert.equal(fieldErrors[message], 'a message field holds no value');
    assert.equal((await h.put(`users/${userId}/userfieldvalues`, { [message]: null })).statusCode, 400);
    assert.deepEqual(await values(userId), {});
  });

  it("never writes another organization's user's values", async () => {
    const org = await h.createOrganization('Other people');
    const theirUser = await createUser(h, { token: org.token });
    const mine = await field('text');
    const before = await storedCount();
    assert.equal((await h.put(`users/${theirUser}/userfieldvalues`, { [mine]: 'x' })).statusCode, 404);
    const theirField = await h.create('userfields', { type: 'text', name: 'T', categoryName: 'T' }, { token: org.token });
    assert.equal((await h.put(`users/${theirUser}/userfieldvalues`, { [theirField]: 'x' })).statusCode, 404);
    assert.equal(await storedCount(), before);
    assert.deepEqual((await h.get(`users/${theirUser}/userfieldvalues`, { token: org.token })).json(), {});
  });

  it('writes 50 values all or nothing: one bad entry writes none and is the only one named', async () => {
    const categoryName = unique('Bulk');
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push(await h.create('userfields', { type: 'number', name: `N${i}`, categoryName }));
    const userId = await createUser(h);
    const body: Record<string, unknown> = Object.fromEntries(ids.map((id, i) => [id, i]));
    body[ids[37]!] = 'thirty-seven';
    const response = await h.put(`users/${userId}/userfieldvalues`, body);
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json().fieldErrors, { [ids[37]!]: 'must be an integer' });
    assert.deepEqual(await values(userId), {});

    body[ids[37]!] = 37;
    assert.equal((await h.put(`users/${userId}/userfieldvalues`, body)).statusCode, 204);
    assert.deepEqual(await values(userId), Object.fromEntries(ids.map((id, i) => [id, i])));
  });

  it('says which integers a number field holds when a value is too large to be exact', async () => {
    const id = await field('number');
    const userId = await createUser(h);
    for (const value of [1e300, 2 ** 53, -(2 ** 53)]) {
      const response = await h.put(`users/${userId}/userfieldvalues`, { [id]: value });
      assert.deepEqual(response.json().fieldErrors, { [id]: 'must be an integer from -9007199254740991 to 9007199254740991' });
    }
    assert.deepEqual(await values(userId), {});
  });

  it('keeps the summary line short when many entries are refused, and still names each in fieldErrors', async () => {
    const userId = await createUser(h);
    const ids = Array.from({ length: 30 }, (_, i) => i.toString(16).padStart(32, '0'));
    const response = await h.put(`users/${userId}/userfieldvalues`, Object.fromEntries(ids.map((id) => [id, 1])));
    assert.equal(response.statusCode, 400);
    const { message, fieldErrors } = response.json();
    assert.deepEqual(Object.keys(fieldErrors), ids);
    assert.equal(message, `30 properties are invalid: ${ids.slice(0, 10).join(', ')} and 20 more`);
  });

  it('refuses a body that is not an object of values', async () => {
    const userId = await createUser(h);
    for (const body of ['[1, 2]', '"text"', '7']) {
      const response = await h.put(`users/${userId}/userfieldvalues`, body);
      assert.equal(response.statusCode, 400, body);
    }
  });

  it('deletes the values with the user', async () => {
    const fieldId = await field('text');
    const userId = await createUser(h);
    await h.put(`users/${userId}/userfieldvalues`, { [fieldId]: 'going' });
    assert.equal((await h.delete(`users/${userId}`)).statusCode, 204);
    const left = await h.database.db.selectFrom('userfield_values').select('value').where('user_id', '=', userId).execute();
    assert.deepEqual(left, []);
  });

  it('deletes the values with a custom field, but keeps those of a predefined field taken out of its category', async () => {
    const custom = await field('text');
    const street = (await listAll(h, 'userfields')).find((f) => f.name === 'Street 1');
    assert.equal((await h.put(`userfields/${street.id}`, { categoryId: await createCategory(h) })).statusCode, 204);
    const userId = await createUser(h);
    assert.equal((await h.put(`users/${userId}/userfieldvalues`, { [custom]: 'custom', [street.id]: '1 Main St' })).statusCode, 204);
    assert.equal((await h.delete(`userfields/${custom}`)).statusCode, 204);
    assert.equal((await h.delete(`userfields/${street.id}`)).statusCode, 204);
    assert.deepEqual(await values(userId), { [street.id]: '1 Main St' });
    const orphans = await h.database.db.selectFrom('userfield_values').select('user_id').where('userfield_id', '=', custom).execute();
    assert.deepEqual(orphans, []);
  });

  it('clears values that chose a removed option; checkboxes values lose just that option', async () => {
    const dropdown = await field('dropdown', { options: OPTIONS });
    const checkboxes = await field('checkboxes', { options: OPTIONS });
    const [ann, bob, cy] = [await createUser(h), await createUser(h), await createUser(h)];
    await h.put(`users/${ann}/userfieldvalues`, { [dropdown]: 'Red', [checkboxes]: ['Red', 'Blue'] });
    await h.put(`users/${bob}/userfieldvalues`, { [dropdown]: 'Green', [checkboxes]: ['Red'] });
    await h.put(`users/${cy}/userfieldvalues`, { [dropdown]: 'Blue', [checkboxes]: ['Green', 'Blue'] });

    const withoutRed = [{ name: 'Green' }, { name: 'Blue' }, { name: 'Yellow' }];
    assert.equal((await h.put(`userfields/${dropdown}`, { options: withoutRed })).statusCode, 204);
    assert.equal((await h.put(`userfields/${checkboxes}`, { options: withoutRed })).statusCode, 204);
    assert.deepEqual(await values(ann), { [checkboxes]: ['Blue'] });
    assert.deepEqual(await values(bob), { [dropdown]: 'Green', [checkboxes]: [] });
    assert.deepEqual(await values(cy), { [dropdown]: 'Blue', [checkboxes]: ['Green', 'Blue'] });
    const refused = await h.put(`users/${ann}/userfieldvalues`, { [dropdown]: 'Red' });
    assert.equal(refused.statusCode, 400);
  });
});

/** More ids than SQLite binds in one statement (32,766), in a body within a raised limit. */
const MANY = 33_000;

forEachEngine(
  'userfield values, by the tens of thousands',
  (h) => {
    it(`sets ${MANY} values in one PUT, and names every unknown id among ${MANY} in one refusal`, async () => {
      const categoryId = await createCategory(h);
      const first = await h.create('userfields', { type: 'text', name: unique('Many'), categoryId });
      const row = await h.database.db.selectFrom('userfields').selectAll().where('id', '=', first).executeTakeFirstOrThrow();
      const ids = [first, ...Array.from({ length: MANY - 1 }, () => newId())];
      for (const batch of batches(ids.slice(1).map((id, n) => ({ ...row, id, name: `${row.name} ${n}`, order_index: n + 1 })))) {
        await h.database.db.insertInto('userfields').values(batch).execute();
      }
      const userId = await createUser(h);

      const set = await h.put(`users/${userId}/userfieldvalues`, Object.fromEntries(ids.map((id, n) => [id, `value ${n}`])));
      assert.equal(set.statusCode, 204, set.body.slice(0, 300));
      const stored = (await h.get(`users/${userId}/userfieldvalues`)).json();
      assert.equal(Object.keys(stored).length, MANY);
      assert.equal(stored[ids[MANY - 1]!], `value ${MANY - 1}`);

      const unknown = Array.from({ length: MANY }, () => newId());
      const refused = await h.put(`users/${userId}/userfieldvalues`, Object.fromEntries([[first, 'changed'], ...unknown.map((id) => [id, 'x'])]));
      assert.equal(refused.statusCode, 400, refused.body.slice(0, 300));
      const { fieldErrors } = refused.json();
      assert.equal(Object.keys(fieldErrors).length, MANY);
      assert.equal(fieldErrors[unknown[MANY - 1]!], NOT_FOUND);
      assert.equal((await h.get(`users/${userId}/userfieldvalues`)).json()[first], 'value 0', 'nothing written');

      const cleared = await h.put(`users/${userId}/userfieldvalues`, Object.fromEntries(ids.map((id) => [id, null])));
      assert.equal(cleared.statusCode, 204, cleared.body.slice(0, 300));
      assert.deepEqual((await h.get(`users/${userId}/userfieldvalues`)).json(), {});
    });
  },
  { bodyLimit: 8 * 1024 * 1024 },
);
