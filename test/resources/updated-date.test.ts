import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { createUser, listAll, LONG_AGO, setUpdated, unique } from '../helpers/collections.js';
import { forEachEngine } from '../helpers/harness.js';
import { ScimClient } from '../scim/scim-client.js';

forEachEngine('updatedDate', (h) => {
  let offeringCategoryId: string;
  let userfieldCategoryId: string;
  let userfieldId: string;
  let offeringId: string;
  let userId: string;
  let registrationId: string;

  /** Every collection with one item of its own, its table, and a body that changes the item. */
  let collections: { path: string; table: string; id: () => string; change: () => unknown }[];

  before(async () => {
    offeringCategoryId = await h.create('offeringcategories', { name: unique('Category') });
    userfieldCategoryId = await h.create('userfieldcategories', { name: unique('Profile'), type: 'public' });
    userfieldId = await h.create('userfields', { type: 'text', name: 'Job', categoryId: userfieldCategoryId });
    offeringId = await h.create('offerings', { title: 'Course' });
    userId = await createUser(h);
    registrationId = await h.create('registrations', { userId, offeringId });
    collections = [
      { path: 'users', table: 'users', id: () => userId, change: () => ({ firstName: unique('Ada') }) },
      { path: 'offeringcategories', table: 'offering_categories', id: () => offeringCategoryId, change: () => ({ name: unique('Renamed') }) },
      { path: 'userfieldcategories', table: 'userfield_categories', id: () => userfieldCategoryId, change: () => ({ name: unique('Renamed') }) },
      { path: 'userfields', table: 'userfields', id: () => userfieldId, change: () => ({ name: unique('Label') }) },
      { path: 'offerings', table: 'offerings', id: () => offeringId, change: () => ({ title: unique('Title') }) },
      { path: 'registrations', table: 'registrations', id: () => registrationId, change: () => ({ grade: 90 }) },
    ];
  });

  it('is set on creation, equal to createdDate', async () => {
    for (const { path, id } of collections) {
      const item = (await h.get(`${path}/${id()}`)).json();
      assert.match(item.updatedDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, path);
      assert.ok(item.updatedDate >= item.createdDate, path);
    }
  });

  it('moves on every change made by PUT', async () => {
    for (const { path, table, id, change } of collections) {
      await setUpdated(h, table, [id()]);
      assert.equal((await h.get(`${path}/${id()}`)).json().updatedDate, LONG_AGO, path);
      const before = new Date().toISOString().slice(0, 19);
      assert.equal((await h.put(`${path}/${id()}`, change())).statusCode, 204, path);
      const item = (await h.get(`${path}/${id()}`)).json();
      assert.ok(item.updatedDate.slice(0, 19) >= before, `${path}: ${item.updatedDate}`);
    }
  });

  it('is ignored on input, as the other read-only properties', async () => {
    const response = await h.put(`users/${userId}`, { updatedDate: '1999-01-01T00:00:00Z' });
    assert.equal(response.statusCode, 204);
    assert.notEqual((await h.get(`users/${userId}`)).json().updatedDate, '1999-01-01T00:00:00Z');
  });

  it("moves on a user when the user's userfield values or agreements change, and SCIM's lastModified with it", async () => {
    const scim = await ScimClient.of(h);
    await setUpdated(h, 'users', [userId]);
    assert.equal((await h.put(`users/${userId}/userfieldvalues`, { [userfieldId]: 'Engineer' })).statusCode, 204);
    const afterValues = (await h.get(`users/${userId}`)).json().updatedDate;
    assert.notEqual(afterValues, LONG_AGO);
    assert.equal((await scim.get(`/Users/${userId}`)).json().meta.lastModified, afterValues);

    await setUpdated(h, 'users', [userId]);
    assert.equal((await h.put(`users/${userId}/agreements/standard`, { agreed: true })).statusCode, 204);
    assert.notEqual((await h.get(`users/${userId}`)).json().updatedDate, LONG_AGO);

    // Agreeing again to what was agreed to changes nothing.
    await setUpdated(h, 'users', [userId]);
    assert.equal((await h.put(`users/${userId}/agreements/standard`, { agreed: true })).statusCode, 204);
    assert.equal((await h.get(`users/${userId}`)).json().updatedDate, LONG_AGO);
    assert.equal((await scim.get(`/Users/${userId}`)).json().meta.lastModified, LONG_AGO);
  });

  it("moves on the users whose values a field's change or deletion takes away, and on them only", async () => {
    const [ada, bob, cy] = [await createUser(h), await createUser(h), await createUser(h)];
    const dropdown = await h.create('userfields', {
      type: 'dropdown',
      name: 'Site',
      categoryId: userfieldCategoryId,
      options: [{ name: 'A' }, { name: 'B' }],
    });
    const boxes = await h.create('userfields', {
      type: 'checkboxes',
      name: 'Langs',
      categoryId: userfieldCategoryId,
      options: [{ name: 'x' }, { name: 'y' }],
    });
    assert.equal((await h.put(`users/${ada}/userfieldvalues`, { [dropdown]: 'A', [boxes]: ['y'] })).statusCode, 204);
    assert.equal((await h.put(`users/${bob}/userfieldvalues`, { [dropdown]: 'B', [boxes]: ['x', 'y'] })).statusCode, 204);
    const updated = async (id: string) => (await h.get(`users/${id}`)).json().updatedDate;

    await setUpdated(h, 'users', [ada, bob, cy]);
    assert.equal((await h.put(`userfields/${dropdown}`, { options: [{ name: 'B' }] })).statusCode, 204);
    assert.deepEqual([(await updated(ada)) !== LONG_AGO, await updated(bob), await updated(cy)], [true, LONG_AGO, LONG_AGO]);

    await setUpdated(h, 'users', [ada, bob, cy]);
    assert.equal((await h.put(`userfields/${boxes}`, { options: [{ name: 'y' }] })).statusCode, 204);
    assert.deepEqual([await updated(ada), (await updated(bob)) !== LONG_AGO, await updated(cy)], [LONG_AGO, true, LONG_AGO]);

    await setUpdated(h, 'users', [ada, bob, cy]);
    assert.equal((await h.delete(`userfields/${boxes}`)).statusCode, 204);
    assert.deepEqual([(await updated(ada)) !== LONG_AGO, (await updated(bob)) !== LONG_AGO, await updated(cy)], [true, true, LONG_AGO]);
  });

  it('moves on the items a move shifts, whose orderIndex changed', async () => {
    const ids = [await h.create('offerings', { title: 'A' }), await h.create('offerings', { title: 'B' })];
    await setUpdated(h, 'offerings', [offeringId, ...ids]);
    assert.equal((await h.put(`offerings/${ids[1]}`, { orderIndex: 0 })).statusCode, 204);
    for (const id of [offeringId, ...ids]) assert.notEqual((await h.get(`offerings/${id}`)).json().updatedDate, LONG_AGO);
  });

  it('filters every collection in the forms of createdDate', async () => {
    for (const { path, table, id } of collections) {
      const all = (await listAll(h, path)).map((item) => item.id);
      await setUpdated(h, table, all, '2030-01-01T00:00:00Z');
      await setUpdated(h, table, [id()], '2001-02-03T04:05:06Z');
      const matching = async (updatedDate: string) => {
        const response = await h.get(path, { query: { updatedDate, limit: '100' } });
        assert.equal(response.statusCode, 200, `${path}?updatedDate=${updatedDate}: ${response.body}`);
        return response.json().results.map((item: { id: string }) => item.id);
      };
      for (const form of ['2001', '2001-02', '2001-02-03T04', '2001-02-03T04:05:06Z', '2001-02-03T05:05:06.000+01:00', '../2001-12', '2001/2001']) {
        assert.deepEqual(await matching(form), [id()], `${path}?updatedDate=${form}`);
      }
      assert.deepEqual((await matching('2030/..')).sort(), all.filter((other) => other !== id()).sort(), path);
      assert.deepEqual(await matching('2002/2029'), [], path);
      const refused = await h.get(path, { query: { updatedDate: 'yesterday' } });
      assert.equal(refused.statusCode, 400, path);
      assert.ok(refused.json().fieldErrors.updatedDate, path);
    }
  });

  it('filters the agreements by their last revision, or their definition when never revised', async () => {
    const types = async (updatedDate: string) => {
      const response = await h.get('agreements', { query: { updatedDate } });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().results.map((agreement: { type: string }) => agreement.type);
    };
    assert.equal((await h.put('agreements/custom', { title: 'House rules', text: 'Be kind.' })).statusCode, 204);
    await sql`update agreements set created_date = ${LONG_AGO}, updated_date = null where type = 'standard'`.execute(h.database.db);
    await sql`update agreements set created_date = ${LONG_AGO}, updated_date = '2030-01-01T00:00:00Z' where type = 'custom'`.execute(h.database.db);
    assert.deepEqual(await types('2001-02-03'), ['standard']);
    assert.deepEqual(await types('2030-01-01T00:00:00.000Z/..'), ['custom']);
    assert.deepEqual(await types('2001/2030'), ['standard', 'custom']);
    assert.deepEqual(await types('2002/2029'), []);
    const refused = await h.get('agreements', { query: { updatedDate: 'yesterday' } });
    assert.equal(refused.statusCode, 400);
    assert.ok(refused.json().fieldErrors.updatedDate);
  });

  it('is documented in the OpenAPI document on every item and collection', async () => {
    const document = (await h.get('openapi.json')).json();
    for (const schema of ['User', 'OfferingCategory', 'UserfieldCategory', 'UserfieldText', 'Offering', 'Registration']) {
      assert.ok(document.components.schemas[schema].properties.updatedDate, schema);
    }
    for (const path of ['/users', '/offeringcategories', '/userfieldcategories', '/userfields', '/offerings', '/registrations', '/agreements']) {
      const parameters = document.paths[path].get.parameters.map((p: { name: string }) => p.name);
      assert.ok(parameters.includes('updatedDate'), path);
    }
  });
});
