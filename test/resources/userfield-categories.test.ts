import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine } from '../helpers/harness.js';
import { assertDense, listAll, unique } from '../helpers/collections.js';
import { createCategory, createTextField, fieldsIn } from '../helpers/userfields.js';

const NOT_EMPTY = 'The category still contains userfields; move or delete them first.';

forEachEngine('userfield categories', (h) => {
  const ofType = async (type: 'public' | 'private') => listAll(h, 'userfieldcategories', { type });

  it('creates a category: 201 with Location and an empty body; reads it back', async () => {
    const response = await h.post('userfieldcategories', { name: 'Contact', type: 'private' });
    assert.equal(response.statusCode, 201);
    assert.equal(response.body, '');
    const location = String(response.headers.location);
    assert.match(location, /\/api\/v5\/userfieldcategories\/[0-9a-f]{32}$/);
    const category = (await h.get(location.slice(location.indexOf('/api/v5')))).json();
    assert.deepEqual(Object.keys(category).sort(), ['createdDate', 'id', 'name', 'orderIndex', 'type', 'updatedDate']);
    assert.equal(category.name, 'Contact');
    assert.equal(category.type, 'private');
    assert.equal(category.orderIndex, (await ofType('private')).length - 1);
  });

  it('answers under the /dc/api/v5 alias too', async () => {
    const response = await h.post('/dc/api/v5/userfieldcategories', { name: unique('Alias'), type: 'public' });
    assert.equal(response.statusCode, 201);
    assert.match(String(response.headers.location), /\/dc\/api\/v5\/userfieldcategories\/[0-9a-f]{32}$/);
  });

  it('lists public categories first, then private, each by orderIndex', async () => {
    await createCategory(h, 'private');
    await createCategory(h, 'public');
    await createCategory(h, 'private');
    const all = await listAll(h, 'userfieldcategories');
    const firstPrivate = all.findIndex((category) => category.type === 'private');
    assert.ok(all.slice(0, firstPrivate).every((category) => category.type === 'public'));
    assert.ok(all.slice(firstPrivate).every((category) => category.type === 'private'));
    assertDense(all.slice(0, firstPrivate));
    assertDense(all.slice(firstPrivate));
  });

  it('inserts at orderIndex within its type, shifting the later ones; beyond the end means the end', async () => {
    const before = await ofType('public');
    const first = await h.create('userfieldcategories', { name: unique('First'), type: 'public', orderIndex: 0 });
    const last = await h.create('userfieldcategories', { name: unique('Last'), type: 'public', orderIndex: 999 });
    const after = await ofType('public');
    assertDense(after);
    assert.equal(after[0].id, first);
    assert.equal(after.at(-1).id, last);
    assert.deepEqual(
      after.slice(1, -1).map((category) => category.id),
      before.map((category) => category.id),
    );
  });

  it('keeps names unique per organization, case-insensitively', async () => {
    const name = unique('Taken');
    await createCategory(h, 'public', name);
    const response = await h.post('userfieldcategories', { name: name.toUpperCase(), type: 'private' });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().fieldErrors.name, 'is already in use');
    const other = await h.createOrganization('Other organization');
    assert.equal((await h.post('userfieldcategories', { name, type: 'public' }, { token: other.token })).statusCode, 201);
  });

  it('validates the create payload, every problem at once', async () => {
    const response = await h.post('userfieldcategories', { name: '  ', type: 'secret', orderIndex: -1, color: 'red' });
    assert.equal(response.statusCode, 400);
    const { fieldErrors } = response.json();
    assert.equal(fieldErrors.type, 'must be public or private');
    assert.ok(fieldErrors.name);
    assert.ok(fieldErrors.orderIndex);
    assert.equal(fieldErrors.color, 'unknown property');
    assert.equal((await h.post('userfieldcategories', { name: unique('No type') })).json().fieldErrors.type, 'required');
    assert.equal((await h.post('userfieldcategories', { type: 'public' })).json().fieldErrors.name, 'required');
  });

  it('ignores read-only properties, so a client can PUT back what it read', async () => {
    const id = await createCategory(h, 'private');
    const read = (await h.get(`userfieldcategories/${id}`)).json();
    assert.equal((await h.put(`userfieldcategories/${id}`, read)).statusCode, 204);
    assert.deepEqual((await h.get(`userfieldcategories/${id}`)).json(), read);
    assert.equal((await h.post('userfieldcategories', { ...read, name: unique('Copy'), id: 'x', createdDate: 'y' })).statusCode, 201);
  });

  it('renames, refusing a name another category holds but allowing its own in another case', async () => {
    const id = await createCategory(h, 'public', unique('Old name'));
    const taken = unique('Other');
    await createCategory(h, 'private', taken);
    assert.equal((await h.put(`userfieldcategories/${id}`, { name: 'New Name' })).statusCode, 204);
    assert.equal((await h.get(`userfieldcategories/${id}`)).json().name, 'New Name');
    assert.equal((await h.put(`userfieldcategories/${id}`, { name: 'NEW name' })).statusCode, 204);
    const conflict = await h.put(`userfieldcategories/${id}`, { name: taken.toLowerCase() });
    assert.equal(conflict.statusCode, 400);
    assert.equal(conflict.json().fieldErrors.name, 'is already in use');
    assert.equal((await h.get(`userfieldcategories/${id}`)).json().name, 'NEW name');
  });

  it('never changes the type: the same type is ignored, another one is a 400', async () => {
    const id = await createCategory(h, 'public');
    assert.equal((await h.put(`userfieldcategories/${id}`, { type: 'public' })).statusCode, 204);
    const response = await h.put(`userfieldcategories/${id}`, { type: 'private' });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().fieldErrors.type, /cannot be changed/);
    assert.equal((await h.get(`userfieldcategories/${id}`)).json().type, 'public');
  });

  it('moves a category with orderIndex, keeping its type dense', async () => {
    const ids = [await createCategory(h, 'private'), await createCategory(h, 'private'), await createCategory(h, 'private')];
    assert.equal((await h.put(`userfieldcategories/${ids[2]}`, { orderIndex: 0 })).statusCode, 204);
    let all = await ofType('private');
    assertDense(all);
    assert.equal(all[0].id, ids[2]);
    assert.equal((await h.put(`userfieldcategories/${ids[2]}`, { orderIndex: 500 })).statusCode, 204);
    all = await ofType('private');
    assertDense(all);
    assert.equal(all.at(-1).id, ids[2]);
    assertDense(await ofType('public'));
  });

  it('deletes an empty category and closes the gap', async () => {
    const ids = [await createCategory(h, 'public'), await createCategory(h, 'public'), await createCategory(h, 'public')];
    const response = await h.delete(`userfieldcategories/${ids[1]}`);
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    assert.equal((await h.get(`userfieldcategories/${ids[1]}`)).statusCode, 404);
    const all = await ofType('public');
    assertDense(all);
    assert.equal(
      all.findIndex((category) => category.id === ids[2]),
      all.findIndex((category) => category.id === ids[0]) + 1,
    );
  });

  it('refuses to delete a category that still holds userfields, and changes nothing', async () => {
    const id = await createCategory(h, 'private');
    const fieldId = await createTextField(h, id);
    const before = await listAll(h, 'userfieldcategories');
    const response = await h.delete(`userfieldcategories/${id}`);
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json().errors, [NOT_EMPTY]);
    assert.deepEqual(await listAll(h, 'userfieldcategories'), before);
    assert.deepEqual(
      (await fieldsIn(h, id)).map((field) => field.id),
      [fieldId],
    );
  });

  it('filters by name (substring, case-insensitive), type and createdDate', async () => {
    const name = unique('Needle in a haystack');
    const id = await createCategory(h, 'private', name);
    const byName = await listAll(h, 'userfieldcategories', { name: 'NEEDLE IN' });
    assert.deepEqual(
      byName.map((category) => category.id),
      [id],
    );
    assert.deepEqual(await listAll(h, 'userfieldcategories', { name: 'needle', type: 'public' }), []);
    const year = new Date().getUTCFullYear();
    assert.ok((await listAll(h, 'userfieldcategories', { createdDate: String(year) })).some((category) => category.id === id));
    assert.deepEqual(await listAll(h, 'userfieldcategories', { createdDate: String(year - 1) }), []);
    assert.equal((await h.get('userfieldcategories', { query: { type: 'secret' } })).statusCode, 400);
    assert.equal((await h.get('userfieldcategories', { query: { createdDate: 'yesterday' } })).statusCode, 400);
  });

  it('pages through the list with next and prev', async () => {
    const all = await listAll(h, 'userfieldcategories');
    assert.ok(all.length > 3);
    const first = (await h.get('userfieldcategories', { query: { limit: '2' } })).json();
    assert.deepEqual(first.results, all.slice(0, 2));
    assert.match(first.next, /limit=2&offset=2$/);
    assert.equal(first.prev, undefined);
    const second = (await h.get(first.next.slice(first.next.indexOf('/api/v5')))).json();
    assert.deepEqual(second.results, all.slice(2, 4));
    assert.match(second.prev, /limit=2&offset=0$/);
    assert.equal((await h.get('userfieldcategories', { query: { limit: '101' } })).json().fieldErrors.limit, 'must be an integer from 1 to 100');
  });

  it('answers 404 for an unknown, malformed or foreign id on every route', async () => {
    const other = await h.createOrganization('Foreign categories');
    const foreign = await createCategory(h, 'public', unique('Foreign'), { token: other.token });
    for (const id of [foreign, '0'.repeat(32), 'not-an-id']) {
      for (const response of [
        await h.get(`userfieldcategories/${id}`),
        await h.put(`userfieldcategories/${id}`, { name: unique('Nope') }),
        await h.delete(`userfieldcategories/${id}`),
      ]) {
        assert.equal(response.statusCode, 404);
        assert.deepEqual(response.json(), { errors: ['No resource exists with the given id.'] });
      }
    }
    assert.equal((await h.get(`userfieldcategories/${foreign}`, { token: other.token })).statusCode, 200);
    assert.equal(
      (await listAll(h, 'userfieldcategories')).some((category) => category.id === foreign),
      false,
    );
  });
});
