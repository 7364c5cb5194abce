import assert from 'node:assert/strict';
import { it } from 'node:test';
import { batches } from '../../src/db/batches.js';
import { newId } from '../../src/lib/ids.js';
import { forEachEngine } from '../helpers/harness.js';
import { createUser, listAll, unique } from '../helpers/collections.js';
import { createCategory } from '../helpers/userfields.js';

const NOT_FOUND = 'No resource exists with the given id.';
const OPTIONS = [{ name: 'Red' }, { name: 'Green' }, { name: 'Blue' }];

// The values' rules (each type's representation, constraints, all or nothing) are the service's, tested in
// userfield-values-service.test.ts; these tests hold what the wire adds.
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
