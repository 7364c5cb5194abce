import assert from 'node:assert/strict';
import { it } from 'node:test';
import { LONG_AGO, setUpdated, unique } from '../helpers/collections.js';
import { eventsAfter } from '../helpers/events.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';

/** An event as the feed lists it, without what is the same on every event (id, createdDate, organizationId). */
interface Change {
  type: string;
  data: any;
  previousAttributes?: Record<string, unknown>;
}

/**
 * An organization of its own for one test (its lists start empty, its feed holds only its events),
 * with requests made as it and `changes()`, the events recorded since the previous call.
 */
async function tenant(h: Harness) {
  const org = await h.createOrganization(unique('Events'));
  const options = { token: org.token };
  let cursor: string | undefined;
  const read = async (url: string) => {
    const response = await h.get(url, options);
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    return response.json();
  };
  const expect = (status: number) => (response: { statusCode: number; body: string }) => {
    assert.equal(response.statusCode, status, response.body);
  };
  return {
    read,
    create: (path: string, body: unknown) => h.create(path, body, options),
    put: async (path: string, body: unknown, status = 204) => expect(status)(await h.put(path, body, options)),
    delete: async (path: string) => expect(204)(await h.delete(path, options)),
    async changes(): Promise<Change[]> {
      const events = await eventsAfter(h, cursor, org.token);
      cursor = events.at(-1)?.id ?? cursor;
      for (const event of events) assert.equal(event.organizationId, org.id);
      return events.map(({ type, data, previousAttributes }) => (previousAttributes ? { type, data, previousAttributes } : { type, data }));
    },
  };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** Each listed item's updatedDate set back to LONG_AGO, so that a write that moves it shows, and previousAttributes can be told. */
async function setBack(h: Harness, table: string, ids: readonly string[]) {
  await setUpdated(h, table, ids);
}

/** A write that changes nothing: answered as usual, no event, the item's updatedDate where it was. */
async function assertSilent(h: Harness, t: Tenant, table: string, path: string, write: () => Promise<unknown>) {
  const id = path.split('/').at(-1)!;
  await setBack(h, table, [id]);
  await write();
  assert.deepEqual(await t.changes(), [], `${path}: no event`);
  assert.equal((await t.read(path)).updatedDate, LONG_AGO, `${path}: updatedDate kept`);
}

forEachEngine('events of every resource', (h) => {
  it('users: created, updated with the previous value of each property that changed, deleted as a tombstone; the same PUT records nothing', async () => {
    const t = await tenant(h);
    const id = await t.create('users', { email: `${unique('ada').replace(' ', '')}@example.com`, firstName: 'Ada' });
    assert.deepEqual(await t.changes(), [{ type: 'user.created', data: await t.read(`users/${id}`) }]);

    await setBack(h, 'users', [id]);
    await t.put(`users/${id}`, { firstName: 'Grace', lastName: 'Hopper', tags: ['navy'] });
    const user = await t.read(`users/${id}`);
    assert.deepEqual(await t.changes(), [
      { type: 'user.updated', data: user, previousAttributes: { firstName: 'Ada', lastName: null, tags: null, updatedDate: LONG_AGO } },
    ]);

    await assertSilent(h, t, 'users', `users/${id}`, () => t.put(`users/${id}`, { ...user, firstName: 'Grace' }));

    // A new password is a change the representation does not show: the event names the updatedDate it moved.
    await setBack(h, 'users', [id]);
    await t.put(`users/${id}`, { password: 'a new passphrase 2' });
    const rehashed = await t.read(`users/${id}`);
    assert.notEqual(rehashed.updatedDate, LONG_AGO);
    assert.deepEqual(await t.changes(), [{ type: 'user.updated', data: rehashed, previousAttributes: { updatedDate: LONG_AGO } }]);
    // The password it has already is no change, alone or beside one.
    await assertSilent(h, t, 'users', `users/${id}`, () => t.put(`users/${id}`, { password: 'a new passphrase 2' }));
    await setBack(h, 'users', [id]);
    await t.put(`users/${id}`, { password: 'a new passphrase 2', locale: 'fr' });
    assert.deepEqual(await t.changes(), [
      { type: 'user.updated', data: await t.read(`users/${id}`), previousAttributes: { locale: null, updatedDate: LONG_AGO } },
    ]);

    const tombstone = await t.read(`users/${id}`);
    await t.delete(`users/${id}`);
    assert.deepEqual(await t.changes(), [{ type: 'user.deleted', data: tombstone }]);
  });

  it("userfield values: data with the user's new updatedDate, previousAttributes with all the previous values; the same values again record nothing", async () => {
    const t = await tenant(h);
    const categoryId = await t.create('userfieldcategories', { name: 'Profile', type: 'public' });
    const [job, age] = [
      await t.create('userfields', { type: 'text', name: 'Job', categoryId }),
      await t.create('userfields', { type: 'number', name: 'Age', categoryId }),
    ];
    const userId = await t.create('users', { email: `${unique('values').replace(' ', '')}@example.com` });
    await t.changes();
    const updatedDate = async () => (await t.read(`users/${userId}`)).updatedDate;
    const valuesChange = async (values: object, previous: object, previousDate: string): Promise<Change> => ({
      type: 'userfieldvalues.updated',
      data: { userId, values, updatedDate: await updatedDate() },
      previousAttributes: { values: previous, updatedDate: previousDate },
    });

    await setBack(h, 'users', [userId]);
    await t.put(`users/${userId}/userfieldvalues`, { [job]: 'Engineer' });
    assert.notEqual(await updatedDate(), LONG_AGO);
    assert.deepEqual(await t.changes(), [await valuesChange({ [job]: 'Engineer' }, {}, LONG_AGO)]);

    await setBack(h, 'users', [userId]);
    await t.put(`users/${userId}/userfieldvalues`, { [age]: 42, [job]: 'Engineer' });
    const both = await t.read(`users/${userId}/userfieldvalues`);
    const [change, ...more] = await t.changes();
    assert.deepEqual([change, ...more], [await valuesChange(both, { [job]: 'Engineer' }, LONG_AGO)]);
    assert.deepEqual(Object.keys(change!.data.values), [job, age].sort(), 'values in userfield id order, as GET gives them');

    // The same values, and clearing a value the user does not hold, change nothing.
    await assertSilent(h, t, 'users', `users/${userId}`, () => t.put(`users/${userId}/userfieldvalues`, { [job]: 'Engineer', [age]: 42 }));
    const other = await t.create('userfields', { type: 'text', name: 'Nickname', categoryId });
    await t.changes();
    await assertSilent(h, t, 'users', `users/${userId}`, () => t.put(`users/${userId}/userfieldvalues`, { [other]: null, [job]: 'Engineer' }));

    await setBack(h, 'users', [userId]);
    await t.put(`users/${userId}/userfieldvalues`, { [job]: null });
    assert.deepEqual(await t.changes(), [await valuesChange({ [age]: 42 }, both, LONG_AGO)]);
  });

  it("a userfield's deletion, or options taken away, give a userfieldvalues.updated to each user whose values they change, and to them only", async () => {
    const t = await tenant(h);
    const categoryId = await t.create('userfieldcategories', { name: 'Profile', type: 'public' });
    const site = await t.create('userfields', { type: 'dropdown', name: 'Site', categoryId, options: [{ name: 'A' }, { name: 'B' }] });
    const langs = await t.create('userfields', { type: 'checkboxes', name: 'Langs', categoryId, options: [{ name: 'x' }, { name: 'y' }] });
    const note = await t.create('userfields', { type: 'text', name: 'Note', categoryId });
    const email = () => `${unique('holder').replace(' ', '')}@example.com`;
    const [ada, bob, cy] = [
      await t.create('users', { email: email() }),
      await t.create('users', { email: email() }),
      await t.create('users', { email: email() }),
    ];
    await t.put(`users/${ada}/userfieldvalues`, { [site]: 'A', [langs]: ['y'], [note]: 'a' });
    await t.put(`users/${bob}/userfieldvalues`, { [site]: 'B', [langs]: ['x', 'y'] });
    await t.put(`users/${cy}/userfieldvalues`, { [note]: 'c' });
    await t.changes();
    const valuesOf = (userId: string) => t.read(`users/${userId}/userfieldvalues`);
    const cleared = async (userId: string, previous: object): Promise<Change> => ({
      type: 'userfieldvalues.updated',
      data: { userId, values: await valuesOf(userId), updatedDate: (await t.read(`users/${userId}`)).updatedDate },
      previousAttributes: { values: previous, updatedDate: LONG_AGO },
    });
    const byUser = (changes: Change[]) => changes.sort((a, b) => (a.data.userId ?? '').localeCompare(b.data.userId ?? ''));

    // A single choice of a removed option is cleared: Ada's.
    let previous = await valuesOf(ada);
    await setBack(h, 'users', [ada, bob, cy]);
    await setBack(h, 'userfields', [site]);
    const siteBefore = await t.read(`userfields/${site}`);
    await t.put(`userfields/${site}`, { options: [{ name: 'B' }] });
    const siteAfter = await t.read(`userfields/${site}`);
    assert.deepEqual(await t.changes(), [
      { type: 'userfield.updated', data: siteAfter, previousAttributes: { options: siteBefore.options, updatedDate: LONG_AGO } },
      await cleared(ada, previous),
    ]);
    assert.deepEqual(await valuesOf(ada), { [langs]: ['y'], [note]: 'a' });

    // A checkboxes value keeps its other options: Bob's loses "x", Ada's ["y"] is as it was.
    previous = await valuesOf(bob);
    await setBack(h, 'users', [ada, bob, cy]);
    await t.put(`userfields/${langs}`, { options: [{ name: 'y' }] });
    const [fieldChange, ...valueChanges] = await t.changes();
    assert.equal(fieldChange!.type, 'userfield.updated');
    assert.deepEqual(valueChanges, [await cleared(bob, previous)]);
    assert.deepEqual((await valuesOf(bob))[langs], ['y']);
    assert.equal((await t.read(`users/${ada}`)).updatedDate, LONG_AGO);

    // Deleting the field takes the values of everyone who held one.
    const previousValues = { [ada]: await valuesOf(ada), [cy]: await valuesOf(cy) };
    await setBack(h, 'users', [ada, bob, cy]);
    const tombstone = await t.read(`userfields/${note}`);
    await t.delete(`userfields/${note}`);
    const [deletion, ...clearances] = await t.changes();
    assert.deepEqual(deletion, { type: 'userfield.deleted', data: tombstone });
    assert.deepEqual(byUser(clearances), byUser([await cleared(ada, previousValues[ada]), await cleared(cy, previousValues[cy])]));
    assert.equal((await t.read(`users/${bob}`)).updatedDate, LONG_AGO);
  });

  it('userfield categories, userfields and offering categories: created, updated with previousAttributes, deleted; the same PUT records nothing', async () => {
    const t = await tenant(h);
    const categoryId = await t.create('userfieldcategories', { name: 'Profile', type: 'private' });
    const fieldId = await t.create('userfields', { type: 'text', name: 'Job', categoryId, constraints: { minimumLength: 2 } });
    const offeringCategoryId = await t.create('offeringcategories', { name: 'Topic', color: '#112233' });
    assert.deepEqual(await t.changes(), [
      { type: 'userfieldcategory.created', data: await t.read(`userfieldcategories/${categoryId}`) },
      { type: 'userfield.created', data: await t.read(`userfields/${fieldId}`) },
      { type: 'offeringcategory.created', data: await t.read(`offeringcategories/${offeringCategoryId}`) },
    ]);

    const items = [
      { table: 'userfield_categories', path: `userfieldcategories/${categoryId}`, type: 'userfieldcategory', change: { name: 'Private profile' } },
      {
        table: 'userfields',
        path: `userfields/${fieldId}`,
        type: 'userfield',
        change: { name: 'Role', constraints: { maximumLength: 9, minimumLength: 2 } },
      },
      {
        table: 'offering_categories',
        path: `offeringcategories/${offeringCategoryId}`,
        type: 'offeringcategory',
        change: { description: 'All about it' },
      },
    ];
    for (const { table, path, type, change } of items) {
      const id = path.split('/')[1]!;
      await setBack(h, table, [id]);
      await setBack(h, 'userfields', [fieldId]);
      const before = await t.read(path);
      await t.put(path, change);
      const after = await t.read(path);
      const previousAttributes = Object.fromEntries(Object.keys(change).map((key) => [key, before[key] ?? null]));
      // The category's renaming shows in its field's categoryName: the field is updated too.
      const fieldUpdate =
        type === 'userfieldcategory'
          ? [
              {
                type: 'userfield.updated',
                data: await t.read(`userfields/${fieldId}`),
                previousAttributes: { categoryName: 'Profile', updatedDate: LONG_AGO },
              },
            ]
          : [];
      assert.deepEqual(await t.changes(), [
        { type: `${type}.updated`, data: after, previousAttributes: { ...previousAttributes, updatedDate: LONG_AGO } },
        ...fieldUpdate,
      ]);
      // PUT back as read: nothing changes.
      await assertSilent(h, t, table, path, () => t.put(path, after));
      await assertSilent(h, t, table, path, () => t.put(path, change));
    }
    // Constraints are compared by content, whatever the order of their properties.
    await assertSilent(h, t, 'userfields', `userfields/${fieldId}`, () =>
      t.put(`userfields/${fieldId}`, { constraints: { minimumLength: 2, maximumLength: 9 } }),
    );

    for (const { path, type } of [items[1]!, items[0]!, items[2]!]) {
      const tombstone = await t.read(path);
      await t.delete(path);
      assert.deepEqual(await t.changes(), [{ type: `${type}.deleted`, data: tombstone }]);
    }
  });

  it('a predefined userfield taken out of its category by DELETE is updated, not deleted', async () => {
    const t = await tenant(h);
    const categoryId = await t.create('userfieldcategories', { name: 'Address', type: 'public' });
    const predefined = (await t.read('userfields')).results.find((field: { readOnly?: boolean }) => field.readOnly);
    await t.put(`userfields/${predefined.id}`, { categoryId });
    await t.changes();
    const placed = await t.read(`userfields/${predefined.id}`);
    await setBack(h, 'userfields', [predefined.id]);
    await t.delete(`userfields/${predefined.id}`);
    assert.deepEqual(await t.changes(), [
      {
        type: 'userfield.updated',
        data: await t.read(`userfields/${predefined.id}`),
        previousAttributes: {
          categoryId,
          categoryName: placed.categoryName,
          categoryType: placed.categoryType,
          orderIndex: placed.orderIndex,
          updatedDate: LONG_AGO,
        },
      },
    ]);
  });

  it('dense lists: each sibling a create, move or delete shifts gets its update event with its previous orderIndex; a move to where it is records nothing', async () => {
    for (const list of [
      { path: 'offeringcategories', table: 'offering_categories', type: 'offeringcategory', body: () => ({ name: unique('Topic') }) },
      { path: 'offerings', table: 'offerings', type: 'offering', body: () => ({ title: unique('Course') }) },
      {
        path: 'userfieldcategories',
        table: 'userfield_categories',
        type: 'userfieldcategory',
        body: () => ({ name: unique('Group'), type: 'private' }),
      },
      { path: 'userfields', table: 'userfields', type: 'userfield', body: () => ({ type: 'text', name: unique('Field') }) },
    ]) {
      const t = await tenant(h);
      const extra = list.path === 'userfields' ? { categoryId: await t.create('userfieldcategories', { name: 'Fields', type: 'public' }) } : {};
      const create = (more: object = {}) => t.create(list.path, { ...list.body(), ...extra, ...more });
      const ids = [await create(), await create(), await create()];
      await t.changes();
      const read = (id: string) => t.read(`${list.path}/${id}`);
      const shifted = async (id: string, orderIndex: number): Promise<Change> => ({
        type: `${list.type}.updated`,
        data: await read(id),
        previousAttributes: { orderIndex, updatedDate: LONG_AGO },
      });

      // Created first: the three others move down one.
      await setBack(h, list.table, ids);
      const first = await create({ orderIndex: 0 });
      assert.deepEqual(await t.changes(), [
        { type: `${list.type}.created`, data: await read(first) },
        await shifted(ids[0]!, 0),
        await shifted(ids[1]!, 1),
        await shifted(ids[2]!, 2),
      ]);
      assert.deepEqual((await read(ids[2]!)).orderIndex, 3, list.path);

      // The last moved to 1: the two it passes move down one.
      await setBack(h, list.table, [first, ...ids]);
      await t.put(`${list.path}/${ids[2]}`, { orderIndex: 1 });
      assert.deepEqual(await t.changes(), [await shifted(ids[2]!, 3), await shifted(ids[0]!, 1), await shifted(ids[1]!, 2)], list.path);

      // Moved to where it is: nothing.
      await assertSilent(h, t, list.table, `${list.path}/${ids[2]}`, () => t.put(`${list.path}/${ids[2]}`, { orderIndex: 1 }));

      // The first deleted: the others move up one.
      await setBack(h, list.table, [first, ...ids]);
      const tombstone = await read(first);
      await t.delete(`${list.path}/${first}`);
      assert.deepEqual(
        await t.changes(),
        [{ type: `${list.type}.deleted`, data: tombstone }, await shifted(ids[2]!, 1), await shifted(ids[0]!, 2), await shifted(ids[1]!, 3)],
        list.path,
      );
    }
  });

  it('a userfield moved to another category shifts the fields of both, each with its event', async () => {
    const t = await tenant(h);
    const [left, right] = [
      await t.create('userfieldcategories', { name: 'Left', type: 'public' }),
      await t.create('userfieldcategories', { name: 'Right', type: 'public' }),
    ];
    const inLeft = [
      await t.create('userfields', { type: 'text', name: 'L0', categoryId: left }),
      await t.create('userfields', { type: 'text', name: 'L1', categoryId: left }),
    ];
    const inRight = [await t.create('userfields', { type: 'text', name: 'R0', categoryId: right })];
    await t.changes();
    await setBack(h, 'userfields', [...inLeft, ...inRight]);
    await t.put(`userfields/${inLeft[0]}`, { categoryId: right, orderIndex: 0 });
    assert.deepEqual(await t.changes(), [
      {
        type: 'userfield.updated',
        data: await t.read(`userfields/${inLeft[0]}`),
        previousAttributes: { categoryId: left, categoryName: 'Left', updatedDate: LONG_AGO },
      },
      { type: 'userfield.updated', data: await t.read(`userfields/${inLeft[1]}`), previousAttributes: { orderIndex: 1, updatedDate: LONG_AGO } },
      { type: 'userfield.updated', data: await t.read(`userfields/${inRight[0]}`), previousAttributes: { orderIndex: 0, updatedDate: LONG_AGO } },
    ]);
  });

  it('offerings: updated with previousAttributes, the same PUT records nothing; a category deleted updates each offering it is taken from', async () => {
    const t = await tenant(h);
    const [x, y] = [await t.create('offeringcategories', { name: 'X' }), await t.create('offeringcategories', { name: 'Y' })];
    const both = await t.create('offerings', { title: 'Both', offeringCategoryIds: [x, y] });
    const onlyX = await t.create('offerings', { title: 'Only X', offeringCategoryIds: [x] });
    const onlyY = await t.create('offerings', { title: 'Only Y', offeringCategoryIds: [y] });
    await t.changes();

    await setBack(h, 'offerings', [both]);
    await t.put(`offerings/${both}`, { title: 'Both kinds', price: 10, offeringCategoryIds: [y, x] });
    const offering = await t.read(`offerings/${both}`);
    assert.deepEqual(await t.changes(), [
      {
        type: 'offering.updated',
        data: offering,
        previousAttributes: { title: 'Both', price: null, offeringCategoryIds: [x, y], updatedDate: LONG_AGO },
      },
    ]);
    await assertSilent(h, t, 'offerings', `offerings/${both}`, () => t.put(`offerings/${both}`, offering));

    await t.put(`offerings/${both}`, { offeringCategoryIds: [x, y] });
    await t.changes();
    await setBack(h, 'offerings', [both, onlyX, onlyY]);
    await setBack(h, 'offering_categories', [x, y]);
    const tombstone = await t.read(`offeringcategories/${x}`);
    await t.delete(`offeringcategories/${x}`);
    assert.deepEqual(await t.changes(), [
      { type: 'offeringcategory.deleted', data: tombstone },
      {
        type: 'offeringcategory.updated',
        data: await t.read(`offeringcategories/${y}`),
        previousAttributes: { orderIndex: 1, updatedDate: LONG_AGO },
      },
      {
        type: 'offering.updated',
        data: await t.read(`offerings/${both}`),
        previousAttributes: { offeringCategoryIds: [x, y], updatedDate: LONG_AGO },
      },
      { type: 'offering.updated', data: await t.read(`offerings/${onlyX}`), previousAttributes: { offeringCategoryIds: [x], updatedDate: LONG_AGO } },
    ]);
    // An offering that lost a category changed: an updatedDate sync finds it too.
    assert.notEqual((await t.read(`offerings/${onlyX}`)).updatedDate, LONG_AGO);
    assert.equal((await t.read(`offerings/${onlyY}`)).updatedDate, LONG_AGO);
  });

  it('registrations: ejected and graded with previousAttributes; a second eject is refused and a PUT of what was read records nothing', async () => {
    const t = await tenant(h);
    const offeringId = await t.create('offerings', { title: 'Course', passingGrade: 70 });
    const userId = await t.create('users', { email: `${unique('learner').replace(' ', '')}@example.com` });
    const first = await t.create('registrations', { userId, offeringId });
    const created = await t.read(`registrations/${first}`);
    assert.deepEqual((await t.changes()).at(-1), { type: 'registration.created', data: created });

    await setBack(h, 'registrations', [first]);
    await t.put(`registrations/${first}`, { status: 'ejected' });
    assert.deepEqual(await t.changes(), [
      {
        type: 'registration.ejected',
        data: await t.read(`registrations/${first}`),
        previousAttributes: { status: 'active', endDate: null, updatedDate: LONG_AGO },
      },
    ]);
    await setBack(h, 'registrations', [first]);
    await t.put(`registrations/${first}`, { status: 'ejected' }, 400);
    assert.deepEqual(await t.changes(), []);
    assert.equal((await t.read(`registrations/${first}`)).updatedDate, LONG_AGO);

    const second = await t.create('registrations', { userId, offeringId });
    await t.changes();
    await setBack(h, 'registrations', [second]);
    await t.put(`registrations/${second}`, { grade: 90, graderComment: 'Well done' });
    const graded = await t.read(`registrations/${second}`);
    assert.deepEqual(await t.changes(), [
      {
        type: 'registration.graded',
        data: graded,
        previousAttributes: { status: 'active', grade: null, graderComment: null, endDate: null, updatedDate: LONG_AGO },
      },
    ]);
    await assertSilent(h, t, 'registrations', `registrations/${second}`, () =>
      t.put(`registrations/${second}`, { grade: 90, graderComment: 'Well done' }),
    );
    await assertSilent(h, t, 'registrations', `registrations/${second}`, () => t.put(`registrations/${second}`, { status: 'passed' }));
  });

  it("agreements: agreement.updated when defined (every property new) and revised, useragreement.updated with the user's previous agreement; the same PUT records nothing", async () => {
    const t = await tenant(h);
    await t.put('agreements/custom', { title: 'House rules', text: 'Be kind.' });
    const defined = await t.read('agreements/custom');
    assert.deepEqual(await t.changes(), [
      { type: 'agreement.updated', data: defined, previousAttributes: { type: null, title: null, text: null, createdDate: null, required: null } },
    ]);
    await t.put('agreements/custom', { title: 'House rules', text: 'Be kind.', required: true });
    assert.deepEqual(await t.changes(), []);
    await t.put('agreements/custom', { text: 'Be kind, always.' });
    const revised = await t.read('agreements/custom');
    assert.deepEqual(await t.changes(), [{ type: 'agreement.updated', data: revised, previousAttributes: { text: 'Be kind.', updatedDate: null } }]);
    await t.put('agreements/custom', revised);
    assert.deepEqual(await t.changes(), []);
    assert.deepEqual(await t.read('agreements/custom'), revised);

    const userId = await t.create('users', { email: `${unique('agreeing').replace(' ', '')}@example.com` });
    await t.changes();
    // What a user agreed to is part of the user: the event carries the updatedDate it moved, as a values event does.
    await setBack(h, 'users', [userId]);
    await t.put(`users/${userId}/agreements/custom`, { agreed: true });
    const agreed = await t.read(`users/${userId}/agreements/custom`);
    const { updatedDate } = await t.read(`users/${userId}`);
    assert.notEqual(updatedDate, LONG_AGO);
    assert.deepEqual(await t.changes(), [
      {
        type: 'useragreement.updated',
        data: { userId, ...agreed, updatedDate },
        previousAttributes: { agreed: false, agreedDate: null, updatedDate: LONG_AGO },
      },
    ]);
    await assertSilent(h, t, 'users', `users/${userId}`, () => t.put(`users/${userId}/agreements/custom`, { agreed: true }));
    await t.put(`users/${userId}/agreements/custom`, { agreed: false });
    assert.deepEqual(await t.changes(), [
      {
        type: 'useragreement.updated',
        data: { userId, ...(await t.read(`users/${userId}/agreements/custom`)), updatedDate: (await t.read(`users/${userId}`)).updatedDate },
        previousAttributes: { agreed: true, agreedDate: agreed.agreedDate, updatedDate: LONG_AGO },
      },
    ]);
    await assertSilent(h, t, 'users', `users/${userId}`, () => t.put(`users/${userId}/agreements/custom`, { agreed: false }));
  });
});
