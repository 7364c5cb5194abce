import assert from 'node:assert/strict';
import { it } from 'node:test';
import { withoutUpdatedDate } from '../helpers/collections.js';
import { forEachEngine, type Harness, type Organization } from '../helpers/harness.js';

const NOT_FOUND = { errors: ['No resource exists with the given id.'] };

/** Names of the organization's categories in list order, checking that orderIndex runs 0..n-1. */
async function namesInOrder(h: Harness, org: Organization): Promise<string[]> {
  const results = (await h.get('offeringcategories', { token: org.token, query: { limit: '100' } })).json().results;
  assert.deepEqual(
    results.map((category: { orderIndex: number }) => category.orderIndex),
    results.map((_: unknown, index: number) => index),
  );
  return results.map((category: { name: string }) => category.name);
}

forEachEngine('offering categories', (h) => {
  it('creates a category: 201, Location, empty body; reads it back', async () => {
    const response = await h.post('offeringcategories', { name: 'Safety', description: 'Work safety courses', color: '#1a2B3c' });
    assert.equal(response.statusCode, 201);
    assert.equal(response.body, '');
    const location = String(response.headers.location);
    assert.match(location, /\/api\/v5\/offeringcategories\/[0-9a-f]{32}$/);
    const read = await h.get(location.slice(location.indexOf('/api/v5')));
    assert.equal(read.statusCode, 200);
    const category = read.json();
    assert.deepEqual(Object.keys(category).sort(), ['color', 'createdDate', 'description', 'id', 'name', 'orderIndex', 'updatedDate']);
    assert.equal(category.name, 'Safety');
    assert.equal(category.color, '#1a2B3c');
    assert.equal(typeof category.orderIndex, 'number');
  });

  it('omits properties without a value', async () => {
    const id = await h.create('offeringcategories', { name: 'Bare', description: '' });
    assert.deepEqual(Object.keys((await h.get(`offeringcategories/${id}`)).json()).sort(), [
      'createdDate',
      'id',
      'name',
      'orderIndex',
      'updatedDate',
    ]);
  });

  it('answers 404 with the v5 body for a missing, malformed or foreign id', async () => {
    const other = await h.createOrganization('Other categories');
    const foreign = await h.create('offeringcategories', { name: 'Foreign' }, { token: other.token });
    for (const id of ['0'.repeat(32), 'not-an-id', foreign]) {
      const response = await h.get(`offeringcategories/${id}`);
      assert.equal(response.statusCode, 404);
      assert.deepEqual(response.json(), NOT_FOUND);
      assert.equal((await h.put(`offeringcategories/${id}`, { name: 'Taken over' })).statusCode, 404);
      assert.equal((await h.delete(`offeringcategories/${id}`)).statusCode, 404);
    }
    assert.equal((await h.get(`offeringcategories/${foreign}`, { token: other.token })).json().name, 'Foreign');
  });

  it('reports every field error at once', async () => {
    const response = await h.post('offeringcategories', { color: 'red', orderIndex: -1, description: 5, icon: 'x' });
    assert.equal(response.statusCode, 400);
    const { fieldErrors, message } = response.json();
    assert.equal(typeof message, 'string');
    assert.equal(fieldErrors.name, 'required');
    assert.equal(fieldErrors.color, 'must be a hex colour of the form #rrggbb');
    assert.ok(fieldErrors.orderIndex);
    assert.ok(fieldErrors.description);
    assert.equal(fieldErrors.icon, 'unknown property');
    for (const color of ['#12345', '#1234567', '123456', '#12345g']) {
      assert.equal((await h.post('offeringcategories', { name: `Colour ${color}`, color })).statusCode, 400, color);
    }
  });

  it('refuses a blank name on create and update, and changes nothing', async () => {
    const before = (await h.get('offeringcategories', { query: { limit: '100' } })).json().results.length;
    const created = await h.post('offeringcategories', { name: ' \t ' });
    assert.equal(created.statusCode, 400);
    assert.ok(created.json().fieldErrors.name);
    assert.equal((await h.get('offeringcategories', { query: { limit: '100' } })).json().results.length, before);
    const id = await h.create('offeringcategories', { name: 'Not blank' });
    const updated = await h.put(`offeringcategories/${id}`, { name: '   ' });
    assert.equal(updated.statusCode, 400);
    assert.ok(updated.json().fieldErrors.name);
    assert.equal((await h.get(`offeringcategories/${id}`)).json().name, 'Not blank');
  });

  it('names a query parameter given more than once instead of misreading it', async () => {
    for (const query of ['limit=5&limit=6', 'name=a&name=b', 'createdDate=2013&createdDate=2014']) {
      const response = await h.get(`offeringcategories?${query}`);
      assert.equal(response.statusCode, 400, query);
      const name = query.slice(0, query.indexOf('='));
      assert.deepEqual(response.json().fieldErrors, { [name]: 'must be given only once' });
    }
  });

  it('keeps names unique per organization, case-insensitively', async () => {
    const id = await h.create('offeringcategories', { name: 'Leadership' });
    const duplicate = await h.post('offeringcategories', { name: 'LEADERSHIP' });
    assert.equal(duplicate.statusCode, 400);
    assert.equal(duplicate.json().fieldErrors.name, 'is already in use');
    const other = await h.create('offeringcategories', { name: 'Management' });
    const rename = await h.put(`offeringcategories/${other}`, { name: 'leadership' });
    assert.equal(rename.json().fieldErrors.name, 'is already in use');
    assert.equal((await h.put(`offeringcategories/${id}`, { name: 'leaderSHIP' })).statusCode, 204);
    assert.equal((await h.get(`offeringcategories/${id}`)).json().name, 'leaderSHIP');
    const elsewhere = await h.createOrganization('Other names');
    assert.equal((await h.post('offeringcategories', { name: 'Leadership' }, { token: elsewhere.token })).statusCode, 201);
  });

  it('updates partially; null or "" clears; read-only properties are ignored', async () => {
    const id = await h.create('offeringcategories', { name: 'Partial', description: 'Before', color: '#000000' });
    const before = (await h.get(`offeringcategories/${id}`)).json();
    assert.equal((await h.put(`offeringcategories/${id}`, { ...before, description: 'After' })).statusCode, 204);
    assert.deepEqual(withoutUpdatedDate((await h.get(`offeringcategories/${id}`)).json()), withoutUpdatedDate({ ...before, description: 'After' }));
    assert.equal((await h.put(`offeringcategories/${id}`, { description: null, color: '' })).statusCode, 204);
    const cleared = (await h.get(`offeringcategories/${id}`)).json();
    assert.deepEqual(withoutUpdatedDate(cleared), { id, name: 'Partial', orderIndex: before.orderIndex, createdDate: before.createdDate });
    assert.equal((await h.put(`offeringcategories/${id}`, { name: '' })).statusCode, 400);
  });

  it('keeps orderIndex dense: appends, inserts, moves and closes gaps', async () => {
    const org = await h.createOrganization('Ordering');
    const as = { token: org.token };
    const ids: Record<string, string> = {};
    for (const name of ['A', 'B', 'C']) ids[name] = await h.create('offeringcategories', { name }, as);
    assert.deepEqual(await namesInOrder(h, org), ['A', 'B', 'C']);
    ids.D = await h.create('offeringcategories', { name: 'D', orderIndex: 1 }, as);
    ids.E = await h.create('offeringcategories', { name: 'E', orderIndex: 0 }, as);
    ids.F = await h.create('offeringcategories', { name: 'F', orderIndex: 99 }, as);
    assert.deepEqual(await namesInOrder(h, org), ['E', 'A', 'D', 'B', 'C', 'F']);
    assert.equal((await h.put(`offeringcategories/${ids.C}`, { orderIndex: 0 }, as)).statusCode, 204);
    assert.deepEqual(await namesInOrder(h, org), ['C', 'E', 'A', 'D', 'B', 'F']);
    assert.equal((await h.put(`offeringcategories/${ids.E}`, { orderIndex: 4 }, as)).statusCode, 204);
    assert.deepEqual(await namesInOrder(h, org), ['C', 'A', 'D', 'B', 'E', 'F']);
    assert.equal((await h.put(`offeringcategories/${ids.A}`, { orderIndex: 50 }, as)).statusCode, 204);
    assert.deepEqual(await namesInOrder(h, org), ['C', 'D', 'B', 'E', 'F', 'A']);
    assert.equal((await h.delete(`offeringcategories/${ids.D}`, as)).statusCode, 204);
    assert.deepEqual(await namesInOrder(h, org), ['C', 'B', 'E', 'F', 'A']);
    assert.equal((await h.get(`offeringcategories/${ids.D}`, as)).statusCode, 404);
  });

  it('keeps orderIndex dense under concurrent creates', async () => {
    const org = await h.createOrganization('Concurrent ordering');
    const create = (i: number) =>
      h.post('offeringcategories', { name: `Concurrent ${i}`, ...(i % 2 ? { orderIndex: 0 } : {}) }, { token: org.token });
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i)));
    assert.deepEqual(new Set(responses.map((response) => response.statusCode)), new Set([201]));
    assert.equal((await namesInOrder(h, org)).length, 20);
  });

  it('lists in the v5 envelope with the name and createdDate filters', async () => {
    const org = await h.createOrganization('Listing');
    const as = { token: org.token };
    for (const name of ['Forklift Basics', 'Advanced forklift', 'First aid']) await h.create('offeringcategories', { name }, as);
    const all = await h.get('offeringcategories', as);
    assert.equal(all.statusCode, 200);
    assert.deepEqual(Object.keys(all.json()), ['results']);
    const byName = (await h.get('offeringcategories', { ...as, query: { name: 'FORKLIFT' } })).json().results;
    assert.deepEqual(
      byName.map((c: { name: string }) => c.name),
      ['Forklift Basics', 'Advanced forklift'],
    );
    const year = String(new Date().getUTCFullYear());
    assert.equal((await h.get('offeringcategories', { ...as, query: { createdDate: year } })).json().results.length, 3);
    assert.equal((await h.get('offeringcategories', { ...as, query: { createdDate: '2001' } })).json().results.length, 0);
    const page = (await h.get('offeringcategories', { ...as, query: { limit: '2' } })).json();
    assert.equal(page.results.length, 2);
    assert.match(page.next, /offset=2/);
    const bad = await h.get('offeringcategories', { ...as, query: { createdDate: 'yesterday', color: 'red' } });
    assert.equal(bad.statusCode, 400);
    assert.ok(bad.json().fieldErrors.createdDate);
    assert.equal(bad.json().fieldErrors.color, 'unknown query parameter');
  });

  it('deleting a category removes it from the offerings that had it', async () => {
    const keep = await h.create('offeringcategories', { name: 'Kept' });
    const gone = await h.create('offeringcategories', { name: 'Gone' });
    const offering = await h.create('offerings', { title: 'Categorised', offeringCategoryIds: [gone, keep] });
    assert.deepEqual((await h.get(`offerings/${offering}`)).json().offeringCategoryIds, [gone, keep]);
    assert.equal((await h.delete(`offeringcategories/${gone}`)).statusCode, 204);
    assert.deepEqual((await h.get(`offerings/${offering}`)).json().offeringCategoryIds, [keep]);
    assert.equal((await h.get('offerings', { query: { offeringCategoryId: gone } })).statusCode, 400);
  });

  it('serves the /dc/api/v5 alias with Locations under it', async () => {
    const response = await h.post('/dc/api/v5/offeringcategories', { name: 'Alias' });
    assert.equal(response.statusCode, 201);
    assert.match(String(response.headers.location), /\/dc\/api\/v5\/offeringcategories\/[0-9a-f]{32}$/);
  });
});
