import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine, type Harness, type RequestOptions } from '../helpers/harness.js';

const NOT_FOUND_MESSAGE = 'No resource exists with the given id.';
const EJECT_AFTER_GRADE = 'eject status not available after the registration has been graded';
const ALREADY_EJECTED = 'the registration is already ejected';
const PAST = '2000-01-01T00:00:00Z';
const FUTURE = '2999-01-01T00:00:00Z';

let counter = 0;

/** A new user and offering (passing grade 70 unless told otherwise) in the caller's organization. */
async function userAndOffering(h: Harness, offering: object = {}, as?: RequestOptions) {
  counter += 1;
  const userId = await h.create('users', { email: `learner${counter}@example.com` }, as);
  const offeringId = await h.create('offerings', { title: `Course ${counter}`, ...offering }, as);
  return { userId, offeringId };
}

/** A registration brought to `status` through the API. */
async function registrationIn(h: Harness, status: 'active' | 'ejected' | 'passed' | 'failed') {
  const pair = await userAndOffering(h);
  const id = await h.create('registrations', pair);
  const change = { active: undefined, ejected: { status: 'ejected' }, passed: { grade: 80 }, failed: { grade: 20 } }[status];
  if (change) assert.equal((await h.put(`registrations/${id}`, change)).statusCode, 204);
  const registration = (await h.get(`registrations/${id}`)).json();
  assert.equal(registration.status, status);
  return { id, registration, ...pair };
}

async function registrationCount(h: Harness): Promise<number> {
  const { count } = await h.database.db
    .selectFrom('registrations')
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

// Grading from each status is the service's rule, tested in registrations-service.test.ts; these tests hold
// what the wire adds (statuses, messages, read-only properties) and the refusals as the API words them.
forEachEngine('registrations', (h) => {
  const put = (id: string, body: unknown) => h.put(`registrations/${id}`, body);
  const read = async (id: string) => (await h.get(`registrations/${id}`)).json();

  it('registers a user: 201 and Location; title copied from the offering, beginDate = createdDate', async () => {
    const { userId, offeringId } = await userAndOffering(h, { title: 'Fire safety' });
    const response = await h.post('registrations', { userId, offeringId });
    assert.equal(response.statusCode, 201);
    assert.equal(response.body, '');
    const location = String(response.headers.location);
    assert.match(location, /\/api\/v5\/registrations\/[0-9a-f]{32}$/);
    const registration = (await h.get(location.slice(location.indexOf('/api/v5')))).json();
    assert.deepEqual(Object.keys(registration).sort(), ['beginDate', 'createdDate', 'id', 'offeringId', 'status', 'title', 'updatedDate', 'userId']);
    assert.equal(registration.title, 'Fire safety');
    assert.equal(registration.status, 'active');
    assert.equal(registration.userId, userId);
    assert.equal(registration.offeringId, offeringId);
    assert.equal(registration.beginDate, registration.createdDate);
    assert.equal((await h.put(`offerings/${offeringId}`, { title: 'Renamed' })).statusCode, 204);
    assert.equal((await read(registration.id)).title, 'Fire safety');
  });

  it('refuses unknown, malformed and foreign users and offerings, all at once, creating nothing', async () => {
    const other = await h.createOrganization('Other registrations');
    const foreign = await userAndOffering(h, {}, { token: other.token });
    const own = await userAndOffering(h);
    const before = await registrationCount(h);
    const cases: [object, Record<string, string>][] = [
      [{ userId: foreign.userId, offeringId: own.offeringId }, { userId: NOT_FOUND_MESSAGE }],
      [{ userId: own.userId, offeringId: foreign.offeringId }, { offeringId: NOT_FOUND_MESSAGE }],
      [
        { userId: foreign.userId, offeringId: foreign.offeringId },
        { userId: NOT_FOUND_MESSAGE, offeringId: NOT_FOUND_MESSAGE },
      ],
      [
        { userId: '0'.repeat(32), offeringId: 'not-an-id' },
        { userId: NOT_FOUND_MESSAGE, offeringId: NOT_FOUND_MESSAGE },
      ],
      [{}, { userId: 'required', offeringId: 'required' }],
      [{ userId: own.userId, offeringId: own.offeringId, status: 'active' }, { status: 'unknown property' }],
    ];
    for (const [body, fieldErrors] of cases) {
      const response = await h.post('registrations', body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.deepEqual(response.json().fieldErrors, fieldErrors);
    }
    assert.equal(await registrationCount(h), before);
    assert.equal((await h.get('registrations', { token: other.token })).json().results.length, 0);
  });

  it('refuses an offering that is not open for registration', async () => {
    const closed = [{ registrationBeginDate: FUTURE }, { registrationEndDate: PAST }, { registrationBeginDate: PAST, registrationEndDate: PAST }];
    for (const window of closed) {
      const pair = await userAndOffering(h, window);
      const response = await h.post('registrations', pair);
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json().fieldErrors, { offeringId: 'The offering is not open for registration' });
    }
    const open = await userAndOffering(h, { registrationBeginDate: PAST, registrationEndDate: FUTURE });
    assert.equal((await h.post('registrations', open)).statusCode, 201);
  });

  it('refuses a second active registration, and a completed one without retakes; an ejected one does not block', async () => {
    const before = await registrationCount(h);
    const { id, userId, offeringId } = await registrationIn(h, 'active');
    const again = await h.post('registrations', { userId, offeringId });
    assert.equal(again.statusCode, 400);
    assert.deepEqual(again.json().errors, ['The user already has an active registration for this offering']);

    assert.equal((await put(id, { status: 'ejected' })).statusCode, 204);
    const second = await h.create('registrations', { userId, offeringId });
    assert.equal((await put(second, { grade: 10 })).statusCode, 204);
    const completed = await h.post('registrations', { userId, offeringId });
    assert.equal(completed.statusCode, 400);
    assert.deepEqual(completed.json().errors, ['The user has already completed this offering, and it does not allow retakes']);
    const passed = await registrationIn(h, 'passed');
    assert.equal((await h.post('registrations', { userId: passed.userId, offeringId: passed.offeringId })).statusCode, 400);
    assert.equal(await registrationCount(h), before + 3);

    assert.equal((await h.put(`offerings/${offeringId}`, { allowRetake: true })).statusCode, 204);
    const retake = await h.create('registrations', { userId, offeringId });
    assert.equal((await read(retake)).status, 'active');
  });

  it('ejected + eject → 400 fieldErrors.status "the registration is already ejected", nothing changed (v5: 400 when not active)', async () => {
    const { id, registration } = await registrationIn(h, 'ejected');
    const response = await put(id, { status: 'ejected' });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json().fieldErrors, { status: 'the registration is already ejected' });
    assert.deepEqual(await read(id), registration);
    const putBack = await put(id, registration);
    assert.equal(putBack.statusCode, 400, 'PUT back of an ejected registration asks to eject it again');
  });

  it('does with a status sent what the OpenAPI document says: the current one changes nothing, but "ejected" again is a 400', async () => {
    const document = (await h.get('openapi.json')).json();
    const { description } = document.paths['/registrations/{id}'].put.requestBody.content['application/json'].schema.properties.status;
    assert.match(description, new RegExp(`400 on a registration graded or already ejected \\("${ALREADY_EJECTED}"\\)`));
    assert.match(description, /The current status of an active, passed or failed registration changes nothing/);
    for (const status of ['active', 'passed', 'failed', 'ejected'] as const) {
      const { id, registration } = await registrationIn(h, status);
      const response = await put(id, { status });
      assert.equal(response.statusCode, status === 'ejected' ? 400 : 204, `${status}: ${response.body}`);
      assert.deepEqual(await read(id), registration, `${status}: nothing changed`);
    }
  });

  it('refuses status with grade, other status values, other properties and PUTs with nothing to do', async () => {
    const { id, registration } = await registrationIn(h, 'active');
    const refusals: [unknown, (body: any) => void][] = [
      [{ status: 'ejected', grade: 80 }, (body) => assert.ok(body.errors[0])],
      [{ status: 'passed' }, (body) => assert.ok(body.fieldErrors.status)],
      [{ status: 'failed', grade: 20 }, (body) => assert.ok(body.fieldErrors.status)],
      [{ status: 'EJECTED' }, (body) => assert.ok(body.fieldErrors.status)],
      [{ grade: 101 }, (body) => assert.ok(body.fieldErrors.grade)],
      [{ grade: -1 }, (body) => assert.ok(body.fieldErrors.grade)],
      [{ grade: '80' }, (body) => assert.ok(body.fieldErrors.grade)],
      [{ status: 'ejected', graderComment: 'Bye' }, (body) => assert.ok(body.fieldErrors.graderComment)],
      [{ graderComment: 'Alone' }, (body) => assert.ok(body.fieldErrors.graderComment)],
      [{ status: 'ejected', seat: 4 }, (body) => assert.equal(body.fieldErrors.seat, 'unknown property')],
      [{}, (body) => assert.ok(body.errors[0])],
      [{ ...registration, status: undefined }, (body) => assert.match(body.errors[0], /Nothing to change/)],
    ];
    for (const [body, check] of refusals) {
      const response = await put(id, body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.equal(typeof response.json().message, 'string');
      check(response.json());
    }
    assert.deepEqual(await read(id), registration);
  });

  it('ignores read-only properties, so a client can PUT back what it read', async () => {
    const { id, registration } = await registrationIn(h, 'active');
    const readOnly = { ...registration, userId: '0'.repeat(32), title: 'Other', createdDate: PAST, endDate: PAST, graderId: 'x' };
    assert.equal((await put(id, { ...readOnly, status: 'ejected' })).statusCode, 204);
    const after = await read(id);
    assert.equal(after.userId, registration.userId);
    assert.equal(after.title, registration.title);
    assert.notEqual(after.endDate, PAST);
    const { status: _status, ...graded } = after;
    assert.equal((await put(id, { ...graded, grade: 88 })).statusCode, 204);
    assert.equal((await read(id)).status, 'passed');
  });

  it('answers 204 and changes nothing when a registration is PUT back as it was read, in every status but ejected (above)', async () => {
    for (const status of ['active', 'passed', 'failed'] as const) {
      const { id, registration } = await registrationIn(h, status);
      const response = await put(id, registration);
      assert.equal(response.statusCode, 204, `${status}: ${response.body}`);
      assert.deepEqual(await read(id), registration);
    }
  });

  it('lists in creation order with every filter', async () => {
    const org = await h.createOrganization('Registration filters');
    const as = { token: org.token };
    const { userId, offeringId } = await userAndOffering(h, { allowRetake: true }, as);
    const otherOffering = await h.create('offerings', { title: 'Second course' }, as);
    const otherUser = await h.create('users', { email: 'filters-other@example.com' }, as);
    const ids = [
      await h.create('registrations', { userId, offeringId }, as),
      await h.create('registrations', { userId, offeringId: otherOffering }, as),
      await h.create('registrations', { userId: otherUser, offeringId }, as),
    ];
    assert.equal((await h.put(`registrations/${ids[0]}`, { grade: 90 }, as)).statusCode, 204);
    assert.equal((await h.put(`registrations/${ids[1]}`, { status: 'ejected' }, as)).statusCode, 204);
    ids.push(await h.create('registrations', { userId, offeringId }, as));

    const list = async (query: Record<string, string> = {}) => {
      const response = await h.get('registrations', { ...as, query });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().results.map((r: { id: string }) => ids.indexOf(r.id));
    };
    const year = String(new Date().getUTCFullYear());
    assert.deepEqual(await list(), [0, 1, 2, 3]);
    assert.deepEqual(await list({ status: 'active' }), [2, 3]);
    assert.deepEqual(await list({ status: 'passed' }), [0]);
    assert.deepEqual(await list({ status: 'ejected' }), [1]);
    assert.deepEqual(await list({ status: 'failed' }), []);
    assert.deepEqual(await list({ userId }), [0, 1, 3]);
    assert.deepEqual(await list({ offeringId }), [0, 2, 3]);
    assert.deepEqual(await list({ userId, offeringId, status: 'active' }), [3]);
    assert.deepEqual(await list({ createdDate: year }), [0, 1, 2, 3]);
    assert.deepEqual(await list({ beginDate: `${year}/..` }), [0, 1, 2, 3]);
    assert.deepEqual(await list({ beginDate: '../2001' }), []);
    assert.deepEqual(await list({ endDate: year }), [0, 1]);
    assert.deepEqual(await list({ lastActiveDate: '2000/..' }), []);

    const page = (await h.get('registrations', { ...as, query: { limit: '3' } })).json();
    assert.equal(page.results.length, 3);
    assert.match(page.next, /limit=3&offset=3/);
    const last = (await h.get('registrations', { ...as, query: { limit: '3', offset: '3' } })).json();
    assert.deepEqual(
      last.results.map((r: { id: string }) => r.id),
      [ids[3]],
    );
    assert.equal(last.next, undefined);

    const bad = await h.get('registrations', { ...as, query: { status: 'done', endDate: 'soon', userId: '0'.repeat(32), offeringId: 'x' } });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().fieldErrors.status, 'must be one of active, passed, failed, ejected');
    assert.ok(bad.json().fieldErrors.endDate);
    const unknown = await h.get('registrations', { ...as, query: { userId: '0'.repeat(32), offeringId: 'x' } });
    assert.deepEqual(unknown.json().fieldErrors, { userId: NOT_FOUND_MESSAGE, offeringId: NOT_FOUND_MESSAGE });
    const foreignFilter = await h.get('registrations', { query: { userId } });
    assert.deepEqual(foreignFilter.json().fieldErrors, { userId: NOT_FOUND_MESSAGE });
  });

  it("another organization's registration is 404 on GET and PUT, and unchanged", async () => {
    const other = await h.createOrganization('Other registration owner');
    const pair = await userAndOffering(h, {}, { token: other.token });
    const foreign = await h.create('registrations', pair, { token: other.token });
    for (const response of [
      await h.get(`registrations/${foreign}`),
      await put(foreign, { status: 'ejected' }),
      await put(foreign, { grade: 50 }),
      await h.get('registrations/not-an-id'),
      await put('0'.repeat(32), { status: 'ejected' }),
    ]) {
      assert.equal(response.statusCode, 404);
      assert.deepEqual(response.json(), { errors: [NOT_FOUND_MESSAGE] });
    }
    assert.equal((await h.get(`registrations/${foreign}`, { token: other.token })).json().status, 'active');
    assert.equal((await h.delete(`registrations/${foreign}`)).statusCode, 405);
  });

  it("deleting a user deletes the user's registrations and agreement records", async () => {
    const { id, userId } = await registrationIn(h, 'passed');
    assert.equal((await h.put(`users/${userId}/agreements/standard`, { agreed: true })).statusCode, 204);
    assert.equal((await h.delete(`users/${userId}`)).statusCode, 204);
    assert.equal((await h.get(`registrations/${id}`)).statusCode, 404);
    const left = await h.database.db.selectFrom('user_agreements').select('user_id').where('user_id', '=', userId).execute();
    assert.deepEqual(left, []);
  });

  it('serializes 50 concurrent ejects and grades into states that some serial order of them gives', async () => {
    // Serially, a grade always succeeds and leaves the registration graded for good; the first eject
    // before the first grade succeeds (changing active to ejected), later ones are refused as already
    // ejected, and after the first grade as graded. So the outcome matches a serial order exactly when
    // every grade answered 204; at most one eject answered 204, the others one of the two refusals; every state ever
    // seen is active, ejected without a grade, or the grade and comment of one grade request with the
    // status that grade gives; and the final state is such a graded one (the last grade's).
    for (let round = 0; round < 3; round++) {
      const { id, registration } = await registrationIn(h, 'active');
      const requests = Array.from({ length: 50 }, (_, i) =>
        i % 3 === round ? { grade: i * 2, graderComment: `request ${i}` } : { status: 'ejected' as const },
      );
      const commentOf = new Map(requests.flatMap((body) => ('grade' in body ? [[body.grade, body.graderComment] as const] : [])));
      const assertReachable = (state: any) => {
        const { status, grade, graderComment, endDate, updatedDate: _updatedDate, ...unchanged } = state;
        const { status: _active, updatedDate: _created, ...original } = registration;
        assert.deepEqual(unchanged, original);
        if (status === 'active') return assert.deepEqual([grade, graderComment, endDate], [undefined, undefined, undefined]);
        assert.ok(endDate, `${status} has an endDate`);
        if (status === 'ejected') return assert.deepEqual([grade, graderComment], [undefined, undefined], 'an ejection records no grade');
        assert.ok(commentOf.has(grade), `grade ${grade} was sent`);
        assert.equal(graderComment, commentOf.get(grade), 'grade and comment come from the same request');
        assert.equal(status, grade >= 70 ? 'passed' : 'failed');
      };

      // Reads run among the writes, to catch a state that a later grade would hide.
      const operations = requests.map((body, i) => [put(id, body), ...(i % 2 ? [h.get(`registrations/${id}`)] : [])]);
      const settled = await Promise.all(operations.map((group) => Promise.all(group)));
      const responses = settled.map(([response]) => response!);
      for (const [, observed] of settled) if (observed) assertReachable(observed.json());

      requests.forEach((body, i) => {
        const response = responses[i]!;
        if ('grade' in body || response.statusCode === 204) return assert.equal(response.statusCode, 204, response.body);
        assert.equal(response.statusCode, 400, response.body);
        assert.ok([EJECT_AFTER_GRADE, ALREADY_EJECTED].includes(response.json().fieldErrors.status), response.body);
      });
      const ejects = requests.flatMap((body, i) => ('status' in body && responses[i]!.statusCode === 204 ? [i] : []));
      assert.ok(ejects.length <= 1, `${ejects.length} ejects succeeded`);
      const final = await read(id);
      assertReachable(final);
      assert.notEqual(final.grade, undefined, 'the last grade decides the final state');
    }

    // Ejects only: exactly one succeeds, the others find it already ejected, and nothing is graded.
    const { id: onlyEjects } = await registrationIn(h, 'active');
    const ejectResponses = await Promise.all(Array.from({ length: 20 }, () => put(onlyEjects, { status: 'ejected' })));
    assert.deepEqual(ejectResponses.map((response) => response.statusCode).sort(), [204, ...Array(19).fill(400)]);
    for (const response of ejectResponses.filter((r) => r.statusCode === 400)) {
      assert.deepEqual(response.json().fieldErrors, { status: ALREADY_EJECTED });
    }
    const ejected = await read(onlyEjects);
    assert.equal(ejected.status, 'ejected');
    assert.equal(ejected.grade, undefined);
  });

  it('lets one of many concurrent registrations of the same user for the same offering through', async () => {
    const pair = await userAndOffering(h);
    const responses = await Promise.all(Array.from({ length: 10 }, () => h.post('registrations', pair)));
    const codes = responses.map((response) => response.statusCode).sort();
    assert.deepEqual(codes, [201, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    assert.equal((await h.get('registrations', { query: { userId: pair.userId } })).json().results.length, 1);
  });
});
