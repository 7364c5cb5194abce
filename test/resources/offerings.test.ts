import assert from 'node:assert/strict';
import { it } from 'node:test';
import { TIMESTAMP_MESSAGE } from '../../src/lib/schema.js';
import { withoutUpdatedDate } from '../helpers/collections.js';
import { forEachEngine } from '../helpers/harness.js';

const NOT_FOUND_MESSAGE = 'No resource exists with the given id.';
const PAST = '2000-01-01T00:00:00Z';
const FUTURE = '2999-01-01T00:00:00Z';

forEachEngine('offerings', (h) => {
  const titles = (results: { title: string }[]) => results.map((offering) => offering.title);

  it('creates an offering with only a title: defaults filled in, empty properties omitted', async () => {
    const response = await h.post('offerings', { title: 'Induction' });
    assert.equal(response.statusCode, 201);
    assert.equal(response.body, '');
    const location = String(response.headers.location);
    assert.match(location, /\/api\/v5\/offerings\/[0-9a-f]{32}$/);
    const offering = (await h.get(location.slice(location.indexOf('/api/v5')))).json();
    assert.deepEqual(Object.keys(offering).sort(), ['allowRetake', 'createdDate', 'id', 'orderIndex', 'passingGrade', 'title', 'updatedDate']);
    assert.equal(offering.passingGrade, 70);
    assert.equal(offering.allowRetake, false);
  });

  it('round-trips every property', async () => {
    const category = await h.create('offeringcategories', { name: 'Round trip' });
    const input = {
      title: 'Forklift operation',
      beginDate: '2030-03-01T09:00:00Z',
      endDate: '2030-03-31T17:00:00Z',
      registrationBeginDate: PAST,
      registrationEndDate: '2030-02-28T23:59:59Z',
      catalogDescription: 'Safe handling of forklifts',
      price: 0,
      offeringCategoryIds: [category, category],
      tags: ['safety, warehouse', 'Safety'],
      passingGrade: 82.5,
      allowRetake: true,
    };
    const id = await h.create('offerings', input);
    const offering = (await h.get(`offerings/${id}`)).json();
    assert.deepEqual(offering, {
      ...input,
      id,
      offeringCategoryIds: [category],
      tags: ['safety', 'warehouse'],
      createdDate: offering.createdDate,
      updatedDate: offering.createdDate,
      orderIndex: offering.orderIndex,
    });
  });

  it('reports every schema error at once', async () => {
    const response = await h.post('offerings', {
      beginDate: '2030-13-01T00:00:00Z',
      endDate: '2030-01-01',
      price: -1,
      passingGrade: 101,
      allowRetake: 'no',
      offeringCategoryIds: 'x',
      tags: 'x',
      orderIndex: 1.5,
      seats: 10,
    });
    assert.equal(response.statusCode, 400);
    const { fieldErrors } = response.json();
    assert.equal(fieldErrors.title, 'required');
    assert.equal(fieldErrors.beginDate, TIMESTAMP_MESSAGE);
    assert.equal(fieldErrors.endDate, TIMESTAMP_MESSAGE);
    for (const name of ['price', 'passingGrade', 'allowRetake', 'offeringCategoryIds', 'tags', 'orderIndex']) assert.ok(fieldErrors[name], name);
    assert.equal(fieldErrors.seats, 'unknown property');
  });

  it('stores dates sent with fractional seconds or an offset in UTC, to the second', async () => {
    const id = await h.create('offerings', {
      title: 'Dates as JavaScript writes them',
      beginDate: '2030-01-01T02:00:00.000+02:00',
      endDate: '2030-06-30T12:00:00.999Z',
    });
    const offering = (await h.get(`offerings/${id}`)).json();
    assert.equal(offering.beginDate, '2030-01-01T00:00:00Z');
    assert.equal(offering.endDate, '2030-06-30T12:00:00Z');
    assert.equal((await h.put(`offerings/${id}`, { registrationEndDate: '2029-12-31T23:00:00-01:00' })).statusCode, 204);
    assert.equal((await h.get(`offerings/${id}`)).json().registrationEndDate, '2030-01-01T00:00:00Z');
  });

  it('checks the calendar, the spans and the categories together, and creates nothing', async () => {
    const other = await h.createOrganization('Other offerings categories');
    const foreign = await h.create('offeringcategories', { name: 'Foreign' }, { token: other.token });
    const own = await h.create('offeringcategories', { name: 'Own' });
    const response = await h.post('offerings', {
      title: 'Invalid together',
      beginDate: '2030-02-30T00:00:00Z',
      registrationBeginDate: '2030-02-01T00:00:00Z',
      registrationEndDate: '2030-01-01T00:00:00Z',
      offeringCategoryIds: [own, foreign, 'not-an-id'],
    });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json().fieldErrors, {
      beginDate: TIMESTAMP_MESSAGE,
      registrationEndDate: 'must not be before registrationBeginDate',
      'offeringCategoryIds[1]': NOT_FOUND_MESSAGE,
      'offeringCategoryIds[2]': NOT_FOUND_MESSAGE,
    });
    assert.equal((await h.get('offerings', { query: { title: 'Invalid together' } })).json().results.length, 0);
  });

  it('refuses a blank title on create and update, and changes nothing', async () => {
    assert.deepEqual(Object.keys((await h.post('offerings', { title: ' \n ' })).json().fieldErrors), ['title']);
    assert.equal((await h.get('offerings', { query: { title: ' \n ' } })).json().results.length, 0);
    const id = await h.create('offerings', { title: 'Not blank' });
    const update = await h.put(`offerings/${id}`, { title: '   ' });
    assert.equal(update.statusCode, 400);
    assert.deepEqual(Object.keys(update.json().fieldErrors), ['title']);
    assert.equal((await h.get(`offerings/${id}`)).json().title, 'Not blank');
  });

  it('refuses a deeply nested body with a 400, not a crash', async () => {
    for (const nested of ['['.repeat(20000) + ']'.repeat(20000), '{"a":'.repeat(20000) + '1' + '}'.repeat(20000)]) {
      const response = await h.post('offerings', `{"title":"Deep","tags":${nested}}`);
      assert.equal(response.statusCode, 400);
      assert.match(Object.keys(response.json().fieldErrors).join(), /^tags/);
    }
  });

  it('updates partially: null clears, lists are replaced, read-only properties are ignored', async () => {
    const [a, b] = [await h.create('offeringcategories', { name: 'Update A' }), await h.create('offeringcategories', { name: 'Update B' })];
    const id = await h.create('offerings', {
      title: 'Before',
      price: 10,
      beginDate: '2030-01-01T00:00:00Z',
      catalogDescription: 'Text',
      offeringCategoryIds: [a],
      tags: ['one'],
    });
    const before = (await h.get(`offerings/${id}`)).json();
    assert.equal((await h.put(`offerings/${id}`, { ...before, title: 'After', offeringCategoryIds: [b, a] })).statusCode, 204);
    assert.deepEqual(
      withoutUpdatedDate((await h.get(`offerings/${id}`)).json()),
      withoutUpdatedDate({ ...before, title: 'After', offeringCategoryIds: [b, a] }),
    );
    const clear = { price: null, beginDate: null, catalogDescription: '', offeringCategoryIds: [], tags: null, passingGrade: 50, allowRetake: true };
    assert.equal((await h.put(`offerings/${id}`, clear)).statusCode, 204);
    assert.deepEqual(withoutUpdatedDate((await h.get(`offerings/${id}`)).json()), {
      id,
      title: 'After',
      createdDate: before.createdDate,
      orderIndex: before.orderIndex,
      passingGrade: 50,
      allowRetake: true,
    });
  });

  it('checks the spans against the stored dates on update', async () => {
    const id = await h.create('offerings', { title: 'Span', beginDate: '2030-06-01T00:00:00Z' });
    const response = await h.put(`offerings/${id}`, { endDate: '2030-05-01T00:00:00Z' });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json().fieldErrors, { endDate: 'must not be before beginDate' });
    assert.equal((await h.put(`offerings/${id}`, { title: null })).statusCode, 400);
  });

  it('keeps orderIndex dense across create, move and delete', async () => {
    const org = await h.createOrganization('Offering order');
    const as = { token: org.token };
    const order = async () =>
      (await h.get('offerings', as)).json().results.map((o: { title: string; orderIndex: number }, index: number) => {
        assert.equal(o.orderIndex, index);
        return o.title;
      });
    const ids: Record<string, string> = {};
    for (const title of ['A', 'B', 'C']) ids[title] = await h.create('offerings', { title }, as);
    ids.D = await h.create('offerings', { title: 'D', orderIndex: 0 }, as);
    assert.deepEqual(await order(), ['D', 'A', 'B', 'C']);
    assert.equal((await h.put(`offerings/${ids.D}`, { orderIndex: 2 }, as)).statusCode, 204);
    assert.deepEqual(await order(), ['A', 'B', 'D', 'C']);
    assert.equal((await h.delete(`offerings/${ids.B}`, as)).statusCode, 204);
    assert.deepEqual(await order(), ['A', 'D', 'C']);
  });

  it('filters by title, offeringCategoryId, tag and createdDate', async () => {
    const org = await h.createOrganization('Offering filters');
    const as = { token: org.token };
    const category = await h.create('offeringcategories', { name: 'Filtered' }, as);
    await h.create('offerings', { title: 'Excel basics', tags: ['office', 'beginner'], offeringCategoryIds: [category] }, as);
    await h.create('offerings', { title: 'Excel advanced', tags: ['office'] }, as);
    await h.create('offerings', { title: 'Welding', tags: ['Beginner'] }, as);
    const list = async (query: Record<string, string>) => {
      const response = await h.get('offerings', { ...as, query });
      assert.equal(response.statusCode, 200, response.body);
      return titles(response.json().results);
    };
    assert.deepEqual(await list({ title: 'EXCEL' }), ['Excel basics', 'Excel advanced']);
    assert.deepEqual(await list({ offeringCategoryId: category }), ['Excel basics']);
    assert.deepEqual(await list({ tag: 'beginner' }), ['Excel basics', 'Welding']);
    assert.deepEqual(await list({ tag: 'office,beginner' }), ['Excel basics']);
    assert.deepEqual(await list({ title: 'excel', tag: 'beginner' }), ['Excel basics']);
    assert.equal((await list({ createdDate: String(new Date().getUTCFullYear()) })).length, 3);
    assert.deepEqual(await list({ createdDate: '../2001' }), []);
    const unknownIds: Record<string, string>[] = [{ offeringCategoryId: 'nope' }, { offeringCategoryId: '0'.repeat(32) }, { userId: '0'.repeat(32) }];
    for (const query of unknownIds) {
      const response = await h.get('offerings', { ...as, query });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json().fieldErrors, { [Object.keys(query)[0]!]: NOT_FOUND_MESSAGE });
    }
  });

  it('refuses a tag filter naming more than 100 tags with a 400, on both engines', async () => {
    const tags = (count: number) => Array.from({ length: count }, (_, i) => `t${i}`).join(',');
    assert.equal((await h.get('offerings', { query: { tag: tags(100) } })).statusCode, 200);
    for (const count of [101, 1500]) {
      const response = await h.get('offerings', { query: { tag: tags(count) } });
      assert.equal(response.statusCode, 400, String(count));
      assert.deepEqual(response.json().fieldErrors, { tag: 'must name at most 100 tags' });
    }
  });

  it('userId lists the offerings open for that user to register', async () => {
    const org = await h.createOrganization('Open offerings');
    const as = { token: org.token };
    const user = await h.create('users', { email: 'learner@example.com' }, as);
    const offering = (title: string, extra: object = {}) => h.create('offerings', { title, ...extra }, as);
    await offering('Always open');
    await offering('Window open', { registrationBeginDate: PAST, registrationEndDate: FUTURE });
    await offering('Not yet open', { registrationBeginDate: FUTURE });
    await offering('Closed', { registrationEndDate: PAST });
    const active = await offering('Active registration');
    const ejected = await offering('Ejected registration');
    const passed = await offering('Passed, no retake');
    const failedRetake = await offering('Failed, retake allowed', { allowRetake: true });
    for (const [offeringId, change] of [
      [active, undefined],
      [ejected, { status: 'ejected' }],
      [passed, { grade: 90 }],
      [failedRetake, { grade: 10 }],
    ] as const) {
      const registration = await h.create('registrations', { userId: user, offeringId }, as);
      if (change) assert.equal((await h.put(`registrations/${registration}`, change, as)).statusCode, 204);
    }
    const open = titles((await h.get('offerings', { ...as, query: { userId: user } })).json().results);
    assert.deepEqual(open, ['Always open', 'Window open', 'Ejected registration', 'Failed, retake allowed']);
    const someoneElse = await h.create('users', { email: 'other@example.com' }, as);
    const openToOther = titles((await h.get('offerings', { ...as, query: { userId: someoneElse } })).json().results);
    assert.deepEqual(openToOther, [
      'Always open',
      'Window open',
      'Active registration',
      'Ejected registration',
      'Passed, no retake',
      'Failed, retake allowed',
    ]);
    const response = await h.get('offerings', { query: { userId: user } });
    assert.equal(response.statusCode, 400, 'another organization names the user');
    assert.deepEqual(response.json().fieldErrors, { userId: NOT_FOUND_MESSAGE });
  });

  it('refuses to delete an offering with registrations that are not ejected; deletes ejected ones with it', async () => {
    const user = await h.create('users', { email: 'deleting@example.com' });
    const offeringId = await h.create('offerings', { title: 'To delete' });
    const first = await h.create('registrations', { userId: user, offeringId });
    const refused = await h.delete(`offerings/${offeringId}`);
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().errors[0], /not ejected/);
    assert.equal((await h.put(`registrations/${first}`, { status: 'ejected' })).statusCode, 204);
    const second = await h.create('registrations', { userId: user, offeringId });
    assert.equal((await h.put(`registrations/${second}`, { grade: 75 })).statusCode, 204);
    assert.equal((await h.delete(`offerings/${offeringId}`)).statusCode, 400, 'a graded registration is kept');
    assert.equal((await h.get(`offerings/${offeringId}`)).statusCode, 200);

    const other = await h.create('offerings', { title: 'Only ejected' });
    const ejected = await h.create('registrations', { userId: user, offeringId: other });
    assert.equal((await h.put(`registrations/${ejected}`, { status: 'ejected' })).statusCode, 204);
    assert.equal((await h.delete(`offerings/${other}`)).statusCode, 204);
    assert.equal((await h.get(`offerings/${other}`)).statusCode, 404);
    assert.equal((await h.get(`registrations/${ejected}`)).statusCode, 404);
  });

  it("another organization's offering is 404 on every route by id, and unchanged", async () => {
    const other = await h.createOrganization('Other offerings');
    const foreign = await h.create('offerings', { title: 'Theirs' }, { token: other.token });
    for (const response of [
      await h.get(`offerings/${foreign}`),
      await h.put(`offerings/${foreign}`, { title: 'Mine now' }),
      await h.delete(`offerings/${foreign}`),
      await h.get('offerings/not-an-id'),
    ]) {
      assert.equal(response.statusCode, 404);
      assert.deepEqual(response.json(), { errors: [NOT_FOUND_MESSAGE] });
    }
    assert.equal((await h.get(`offerings/${foreign}`, { token: other.token })).json().title, 'Theirs');
    assert.equal(titles((await h.get('offerings', { query: { limit: '100' } })).json().results).includes('Theirs'), false);
  });
});
