import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine } from '../helpers/harness.js';
import { assertDense, createUser, listAll, unique } from '../helpers/collections.js';
import { createCategory, createTextField, fieldsIn } from '../helpers/userfields.js';

forEachEngine('userfields under concurrent writes', (h) => {
  it('keeps orderIndex dense and unique while fields are created and moved in one category at once', async () => {
    const categoryId = await createCategory(h);
    const existing: string[] = [];
    for (let i = 0; i < 10; i++) existing.push(await createTextField(h, categoryId));

    const responses = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) =>
        h.post('userfields', { type: 'text', name: `Concurrent ${i}`, categoryId, ...(i % 3 === 0 ? {} : { orderIndex: (i * 7) % 15 }) }),
      ),
      ...Array.from({ length: 20 }, (_, i) => h.put(`userfields/${existing[i % existing.length]}`, { orderIndex: (i * 5) % 12 })),
    ]);
    for (const response of responses) assert.ok([201, 204].includes(response.statusCode), response.body);

    const fields = await fieldsIn(h, categoryId);
    assert.equal(fields.length, 30);
    assertDense(fields);
    assert.equal(new Set(fields.map((field) => field.id)).size, 30);
  });

  it('keeps both categories dense while fields move between them and get deleted at once', async () => {
    const [left, right] = [await createCategory(h, 'public'), await createCategory(h, 'private')];
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await createTextField(h, i % 2 === 0 ? left : right));
    await Promise.all([
      ...ids.slice(0, 6).map((id, i) => h.put(`userfields/${id}`, { categoryId: i % 2 === 0 ? right : left, orderIndex: i % 3 })),
      ...ids.slice(6).map((id) => h.delete(`userfields/${id}`)),
      ...Array.from({ length: 6 }, (_, i) => createTextField(h, i % 2 === 0 ? left : right, { orderIndex: 1 })),
    ]);
    const [inLeft, inRight] = [await fieldsIn(h, left), await fieldsIn(h, right)];
    assertDense(inLeft);
    assertDense(inRight);
    assert.equal(inLeft.length + inRight.length, 12);
  });

  it('creates one category when several fields name the same new category at once', async () => {
    const categoryName = unique('Born together');
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => h.post('userfields', { type: 'text', name: `Twin ${i}`, categoryName })),
    );
    for (const response of responses) assert.equal(response.statusCode, 201, response.body);
    const categories = await listAll(h, 'userfieldcategories', { name: categoryName });
    assert.equal(categories.length, 1);
    assertDense(await fieldsIn(h, categories[0].id));
    assertDense(await listAll(h, 'userfieldcategories', { type: 'public' }));
  });

  it('keeps category orderIndex dense while categories are created, moved and deleted at once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await createCategory(h, 'private'));
    const responses = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => h.post('userfieldcategories', { name: unique('Rush'), type: 'private', orderIndex: i % 4 })),
      ...ids.slice(0, 4).map((id, i) => h.put(`userfieldcategories/${id}`, { orderIndex: 5 - i })),
      ...ids.slice(4).map((id) => h.delete(`userfieldcategories/${id}`)),
    ]);
    for (const response of responses) assert.ok([201, 204].includes(response.statusCode), response.body);
    assertDense(await listAll(h, 'userfieldcategories', { type: 'private' }));
  });

  it('never stores a value for an option removed while the value was being written', async () => {
    const fieldId = await h.create('userfields', {
      type: 'checkboxes',
      name: 'Racing options',
      categoryName: unique('Race'),
      options: [{ name: 'Keep' }, { name: 'Drop' }],
    });
    const users: string[] = [];
    for (let i = 0; i < 10; i++) users.push(await createUser(h));
    const responses = await Promise.all([
      ...users.map((userId) => h.put(`users/${userId}/userfieldvalues`, { [fieldId]: ['Keep', 'Drop'] })),
      h.put(`userfields/${fieldId}`, { options: [{ name: 'Keep' }] }),
    ]);
    for (const response of responses) assert.ok([204, 400].includes(response.statusCode), response.body);
    for (const userId of users) {
      const value = (await h.get(`users/${userId}/userfieldvalues`)).json()[fieldId];
      assert.ok(value === undefined || JSON.stringify(value) === '["Keep"]', JSON.stringify(value));
    }
  });
});
