import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine } from '../helpers/harness.js';
import { ENTERPRISE, PATCH_OP, ScimClient, scimError, USER_SCHEMA } from './scim-client.js';

forEachEngine('SCIM /Users', (h) => {
  let scim: ScimClient;
  before(async () => {
    scim = await ScimClient.of(h);
  });

  it('creates a user: 201, Location, the resource in application/scim+json, and the same person through v5', async () => {
    const response = await scim.post('/Users', {
      schemas: [USER_SCHEMA],
      userName: 'Ada.Lovelace@example.com',
      name: { givenName: 'Ada', familyName: 'Lovelace', middleName: 'Augusta' },
      emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
      locale: 'en_GB',
      externalId: 'ext-Ada',
      password: 'engine1',
      active: true,
    });
    assert.equal(response.statusCode, 201);
    assert.match(String(response.headers['content-type']), /^application\/scim\+json; charset=utf-8$/);
    const user = response.json();
    assert.equal(response.headers.location, user.meta.location);
    assert.match(user.meta.location, /^http:\/\/localhost(:\d+)?\/scim\/v2\/Users\/[0-9a-f]{32}$/);
    assert.deepEqual(user.schemas, [USER_SCHEMA]);
    assert.equal(user.userName, 'Ada.Lovelace@example.com');
    assert.deepEqual(user.name, { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' });
    assert.deepEqual(user.emails, [{ value: 'ada@example.com', type: 'work', primary: true }]);
    assert.equal(user.locale, 'en-GB');
    assert.equal(user.externalId, 'ext-Ada');
    assert.equal(user.active, true);
    assert.deepEqual(user.groups, []);
    assert.equal(user.password, undefined);
    assert.equal(response.body.includes('engine1'), false);
    assert.equal(user.meta.resourceType, 'User');
    assert.match(user.meta.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(user.meta.lastModified, user.meta.created);
    assert.match(user.meta.version, /^W\/".+"$/);

    const v5 = (await h.get(`users/${user.id}`)).json();
    assert.deepEqual(v5, {
      id: user.id,
      email: 'ada@example.com',
      username: 'Ada.Lovelace@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      locale: 'en-GB',
      active: true,
      createdDate: user.meta.created,
      updatedDate: user.meta.lastModified,
    });
    const row = await h.database.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.match(row.password_hash!, /^\$argon2id\$/);
  });

  it('takes the userName as the email when no email is sent, and refuses a user with neither', async () => {
    const id = await scim.createUser({ userName: 'only.name@example.com' });
    assert.equal((await h.get(`users/${id}`)).json().email, 'only.name@example.com');
    const refused = scimError(await scim.post('/Users', { userName: 'plainname' }), 400, 'invalidValue');
    assert.match(refused.detail, /emails/);
    assert.match(scimError(await scim.post('/Users', { emails: [{ value: 'x@example.com' }] }), 400, 'invalidValue').detail, /userName/);
  });

  it('validates as v5 does, naming SCIM attributes, and writes nothing on refusal', async () => {
    const refused = scimError(
      await scim.post('/Users', { userName: 'bad@example.com', emails: [{ value: 'not-an-email' }], password: 'short', locale: 'english' }),
      400,
      'invalidValue',
    );
    assert.match(refused.detail, /emails: Invalid email address/);
    assert.match(refused.detail, /password: The password must be 6 to 64 characters/);
    assert.match(refused.detail, /locale:/);
    assert.match(scimError(await scim.post('/Users', { userName: 'x@example.com', active: 'maybe' }), 400, 'invalidValue').detail, /active/);
    assert.match(scimError(await scim.post('/Users', { userName: 'x@example.com', name: 'Ada' }), 400, 'invalidValue').detail, /name/);
    assert.match(scimError(await scim.post('/Users', { userName: 'has space' + '@example.com' }), 400, 'invalidValue').detail, /userName/);
    assert.equal((await scim.find('Users', 'userName eq "bad@example.com"')).json().totalResults, 0);
  });

  it('answers 409 uniqueness for a userName or email already in use, case-insensitively', async () => {
    await scim.createUser({ userName: 'Taken', emails: [{ value: 'taken@example.com' }] });
    assert.match(
      scimError(await scim.post('/Users', { userName: 'TAKEN', emails: [{ value: 'free@example.com' }] }), 409, 'uniqueness').detail,
      /userName/,
    );
    assert.match(
      scimError(await scim.post('/Users', { userName: 'free', emails: [{ value: 'TAKEN@example.com' }] }), 409, 'uniqueness').detail,
      /emails/,
    );
  });

  it('answers 409 uniqueness when a PUT or PATCH gives a user the userName or email of another, and changes nothing', async () => {
    await scim.createUser({ userName: 'holder@example.com', emails: [{ value: 'holder@example.com' }] });
    const id = await scim.createUser({ userName: 'mover@example.com', emails: [{ value: 'mover@example.com' }] });
    assert.match(scimError(await scim.put(`/Users/${id}`, { userName: 'HOLDER@example.com' }), 409, 'uniqueness').detail, /userName/);
    assert.match(
      scimError(
        await scim.patch(`/Users/${id}`, [{ op: 'replace', path: 'emails[type eq "work"].value', value: 'Holder@example.com' }]),
        409,
        'uniqueness',
      ).detail,
      /emails/,
    );
    const user = (await scim.get(`/Users/${id}`)).json();
    assert.equal(user.userName, 'mover@example.com');
    assert.deepEqual(
      user.emails.map((email: { value: string }) => email.value),
      ['mover@example.com'],
    );
  });

  it('refuses bodies that are not JSON objects, and other media types', async () => {
    scimError(await scim.request('POST', '/Users', '{"userName":'), 400, 'invalidSyntax');
    scimError(await scim.request('POST', '/Users', '[1]'), 400, 'invalidSyntax');
    scimError(await scim.request('POST', '/Users', 'userName=x', { 'content-type': 'text/plain' }), 415);
    const json = await scim.request('POST', '/Users', { userName: 'json@example.com' }, { 'content-type': 'application/json' });
    assert.equal(json.statusCode, 201);
    scimError(await scim.get('/Users', { accept: 'text/html' }), 406);
    assert.equal((await scim.get('/Users', { accept: 'application/scim+json' })).statusCode, 200);
  });

  it('reads a user; an unknown or malformed id is a 404 in the SCIM shape', async () => {
    const id = await scim.createUser({ userName: 'read@example.com' });
    const user = (await scim.get(`/Users/${id}`)).json();
    assert.equal(user.id, id);
    assert.match(scimError(await scim.get('/Users/0190aaaaaaaa7aaa8aaaaaaaaaaaaaaa'), 404).detail, /not found/);
    scimError(await scim.get('/Users/nope'), 404);
    scimError(await scim.get('/Nothing'), 404);
    const wrongMethod = scimError(await scim.request('DELETE', '/Users'), 405);
    assert.match(wrongMethod.detail, /DELETE/);
  });

  it('replaces a user with PUT: what is left out is cleared, except email, password and the active state', async () => {
    const id = await scim.createUser({
      userName: 'put@example.com',
      name: { givenName: 'Put', familyName: 'Me' },
      locale: 'fr',
      externalId: 'x1',
      password: 'secret1',
      active: false,
    });
    const response = await scim.put(`/Users/${id}`, {
      schemas: [USER_SCHEMA],
      id: 'ignored',
      userName: 'put2@example.com',
      name: { givenName: 'Put' },
      groups: [{ value: 'ignored' }],
      meta: { resourceType: 'User' },
    });
    assert.equal(response.statusCode, 200);
    const user = response.json();
    assert.equal(user.id, id);
    assert.equal(user.userName, 'put2@example.com');
    assert.deepEqual(user.name, { givenName: 'Put', formatted: 'Put' });
    assert.deepEqual(user.emails, [{ value: 'put@example.com', type: 'work', primary: true }]);
    assert.equal(user.locale, undefined);
    assert.equal(user.externalId, undefined);
    assert.equal(user.active, false);
    const row = await h.database.db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirstOrThrow();
    assert.ok(row.password_hash);
    scimError(await scim.put('/Users/0190aaaaaaaa7aaa8aaaaaaaaaaaaaaa', { userName: 'ghost' }), 404);
    scimError(await scim.put(`/Users/${id}`, { name: { givenName: 'No userName' } }), 400, 'invalidValue');
  });

  it('patches with paths, value filters, objects without a path, and the spellings identity providers use', async () => {
    const id = await scim.createUser({ userName: 'patch@example.com', name: { givenName: 'Pat', familyName: 'Old' }, locale: 'en' });
    let response = await scim.patch(`/Users/${id}`, [
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'patched@example.com' },
      { op: 'replace', path: 'NAME.FamilyName', value: 'New' },
      { op: 'Add', path: 'externalId', value: 'ext-p' },
      { op: 'remove', path: 'locale' },
    ]);
    assert.equal(response.statusCode, 200);
    let user = response.json();
    assert.equal(user.emails[0].value, 'patched@example.com');
    assert.deepEqual(user.name, { givenName: 'Pat', familyName: 'New', formatted: 'Pat New' });
    assert.equal(user.externalId, 'ext-p');
    assert.equal(user.locale, undefined);

    response = await scim.patch(`/Users/${id}`, [
      { op: 'Replace', value: { 'name.givenName': 'Patty', active: 'False', userName: 'patty@example.com', displayName: 'ignored' } },
    ]);
    user = response.json();
    assert.equal(user.name.givenName, 'Patty');
    assert.equal(user.active, false);
    assert.equal(user.userName, 'patty@example.com');
    assert.equal(user.displayName, undefined);
    const v5 = (await h.get(`users/${id}`)).json();
    assert.equal(v5.email, 'patched@example.com');
    assert.equal(v5.username, 'patty@example.com');
    assert.equal(v5.active, false);

    response = await scim.patch(`/Users/${id}`, [{ op: 'replace', path: 'active', value: true }]);
    assert.equal(response.json().active, true);
  });

  it('refuses patches it cannot apply, changing nothing', async () => {
    const id = await scim.createUser({ userName: 'strict@example.com', name: { givenName: 'Strict' } });
    const patch = (operations: unknown[]) => scim.patch(`/Users/${id}`, operations);
    scimError(await patch([{ op: 'remove', path: 'emails' }]), 400, 'invalidValue');
    scimError(await patch([{ op: 'remove', path: 'userName' }]), 400, 'invalidValue');
    scimError(await patch([{ op: 'replace', path: 'id', value: 'mine' }]), 400, 'mutability');
    scimError(await patch([{ op: 'replace', path: 'meta.created', value: '2001-01-01T00:00:00Z' }]), 400, 'mutability');
    scimError(await patch([{ op: 'merge', path: 'userName', value: 'x' }]), 400, 'invalidSyntax');
    scimError(await patch([{ op: 'remove' }]), 400, 'noTarget');
    scimError(await patch([{ op: 'replace', path: 'emails[type eq "work".value', value: 'x' }]), 400, 'invalidPath');
    scimError(await patch([{ op: 'add', path: '__proto__.polluted', value: 'yes' }]), 400, 'invalidPath');
    // Refusals in the server's words, never a parser's.
    for (const path of ['emails[type eq "work"', 'emails[type eq]', 'name..givenName', 'emails[value eq "a"]]', 'x[']) {
      const refused = scimError(await patch([{ op: 'remove', path }]), 400, 'invalidPath');
      assert.doesNotMatch(refused.detail, /EOT|is not json|Error:|\[\(|Expected|Unexpected/, `${path}: ${refused.detail}`);
    }
    // active is never absent: removing it is changing what cannot change that way.
    assert.match(scimError(await patch([{ op: 'remove', path: 'active' }]), 400, 'mutability').detail, /active cannot be removed/);
    scimError(
      await patch([
        { op: 'replace', path: 'name.givenName', value: 'Changed' },
        { op: 'replace', path: 'active', value: 'perhaps' },
      ]),
      400,
      'invalidValue',
    );
    scimError(await patch([]), 400, 'invalidSyntax');
    scimError(
      await scim.request('PATCH', `/Users/${id}`, { schemas: ['urn:other'], Operations: [{ op: 'add', path: 'title', value: 'x' }] }),
      400,
      'invalidSyntax',
    );
    scimError(await scim.patch('/Users/0190aaaaaaaa7aaa8aaaaaaaaaaaaaaa', [{ op: 'replace', path: 'active', value: false }]), 404);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const user = (await scim.get(`/Users/${id}`)).json();
    assert.equal(user.name.givenName, 'Strict');
    assert.equal(user.active, true);
  });

  it('refuses a path naming a sub-attribute its attribute does not have (invalidPath), and adds no email for it', async () => {
    const id = await scim.createUser({ userName: 'subs@example.com' });
    const patch = (operations: unknown[]) => scim.patch(`/Users/${id}`, operations);
    for (const path of ['emails[value eq "x"].nope', 'emails.nope', 'name.nope', 'EMAILS[type eq "work"].Nope']) {
      const refused = scimError(await patch([{ op: 'add', path, value: 'y' }]), 400, 'invalidPath');
      assert.match(refused.detail, /has no sub-attribute "nope"/i, refused.detail);
    }
    scimError(await patch([{ op: 'replace', value: { 'name.nope': 'y' } }]), 400, 'invalidPath');
    // Sub-attributes RFC 7643 defines that the server does not store are accepted and ignored, as attributes are.
    const ignored = await patch([{ op: 'add', path: 'name.middleName', value: 'Q' }]);
    assert.equal(ignored.statusCode, 200, ignored.body);
    assert.deepEqual((await scim.get(`/Users/${id}`)).json().emails, [{ value: 'subs@example.com', type: 'work', primary: true }]);
  });

  it('refuses in its own words what the PATCH library cannot apply, and removes an entry that is not there as a no-op', async () => {
    const id = await scim.createUser({ userName: 'words@example.com', name: { givenName: 'Words' } });
    const patch = (operations: unknown[]) => scim.patch(`/Users/${id}`, operations);
    const library = /Impossible|Invalid patch query|Invalid SCIM|mono valued|Target location/;
    // A value filter on a single-valued attribute.
    for (const op of ['remove', 'replace', 'add']) {
      const refused = scimError(await patch([{ op, path: 'name[givenName eq "Words"]', value: { familyName: 'x' } }]), 400, 'invalidPath');
      assert.doesNotMatch(refused.detail, library);
      assert.match(refused.detail, /name is single-valued/);
    }
    const sub = scimError(await patch([{ op: 'add', path: 'name[givenName eq "Words"].familyName', value: 'x' }]), 400, 'invalidPath');
    assert.match(sub.detail, /name is single-valued/);
    // A text where a complex attribute or an entry takes an object of sub-attributes.
    for (const path of ['name', 'emails[type eq "work"]']) {
      const refused = scimError(await patch([{ op: 'add', path, value: 'text' }]), 400, 'invalidValue');
      assert.doesNotMatch(refused.detail, library);
      assert.match(refused.detail, /takes an object of its sub-attributes/);
    }
    // A value filter that selects nothing: nothing to replace is noTarget, nothing to remove is no change.
    const none = scimError(await patch([{ op: 'replace', path: 'emails[type eq "home"]', value: { value: 'h@example.com' } }]), 400, 'noTarget');
    assert.doesNotMatch(none.detail, library);
    assert.match(none.detail, /no entry matches the value filter/);
    const before = (await scim.get(`/Users/${id}`)).json();
    for (const path of [
      'emails[type eq "home"]',
      'emails[type eq "home"].value',
      'phoneNumbers[type eq "work"]',
      'phoneNumbers[type eq "work"].value',
    ]) {
      const removed = await patch([{ op: 'remove', path }]);
      assert.equal(removed.statusCode, 200, `${path}: ${removed.body}`);
    }
    assert.deepEqual((await scim.get(`/Users/${id}`)).json(), before);
    // A sub-attribute of a text the server does not store (title) is refused, not a 5xx.
    const through = [
      [{ op: 'add', value: { title: 'a', 'title.x': 1 } }],
      [
        { op: 'add', path: 'title', value: 'a' },
        { op: 'add', path: 'title.x', value: 1 },
      ],
    ];
    for (const operations of through) assert.match(scimError(await patch(operations), 400, 'invalidPath').detail, /not an object/);
    // A value filter over the length limit is refused as such, not as bad syntax.
    const long = scimError(await patch([{ op: 'remove', path: `emails[value eq "${'a'.repeat(2000)}"]` }]), 400, 'invalidPath');
    assert.match(long.detail, /longer than 2000 characters/);
  });

  it('validates every email of a user, not only the primary one, and writes nothing on refusal', async () => {
    const refused = scimError(
      await scim.post('/Users', {
        userName: 'secondary@example.com',
        emails: [
          { value: 'secondary@example.com', type: 'work', primary: true },
          { value: 'not an address', type: 'home' },
        ],
      }),
      400,
      'invalidValue',
    );
    assert.match(refused.detail, /emails: Invalid email address \(not an address\)/);
    assert.equal((await scim.find('Users', 'userName eq "secondary@example.com"')).json().totalResults, 0);
    const id = await scim.createUser({ userName: 'secondary@example.com' });
    scimError(await scim.patch(`/Users/${id}`, [{ op: 'add', path: 'emails', value: [{ value: 'x', type: 'other' }] }]), 400, 'invalidValue');
    scimError(await scim.patch(`/Users/${id}`, [{ op: 'add', path: 'emails[value eq "x"].type', value: 'other' }]), 400, 'invalidValue');
    scimError(
      await scim.put(`/Users/${id}`, {
        userName: 'secondary@example.com',
        emails: [{ value: 'secondary@example.com', primary: true }, { value: 'a@b@c' }],
      }),
      400,
      'invalidValue',
    );
    assert.deepEqual((await scim.get(`/Users/${id}`)).json().emails, [{ value: 'secondary@example.com', type: 'work', primary: true }]);
  });

  it('keeps a home address equal to the work one: duplicates are entries of the same type and value (RFC 7643 §2.4)', async () => {
    const emails = [
      { value: 'same@example.com', type: 'work', primary: true },
      { value: 'same@example.com', type: 'home' },
    ];
    const id = await scim.createUser({ userName: 'same@example.com', emails });
    assert.deepEqual((await scim.get(`/Users/${id}`)).json().emails, emails);
    // The same entry sent twice is kept once.
    const echoed = await scim.put(`/Users/${id}`, { userName: 'same@example.com', emails: [...emails, { value: 'SAME@example.com', type: 'home' }] });
    assert.equal(echoed.statusCode, 200, echoed.body);
    assert.deepEqual(echoed.json().emails, emails);
  });

  it('deactivates reversibly: registrations and values are kept, new registrations refused until reactivated', async () => {
    const id = await scim.createUser({ userName: 'leaver@example.com' });
    const offering = await h.create('offerings', { title: 'Safety' });
    const other = await h.create('offerings', { title: 'Fire drill' });
    const registration = await h.create('registrations', { userId: id, offeringId: offering });
    const field = await h.create('userfields', { type: 'text', name: 'Badge', categoryName: 'HR' });
    assert.equal((await h.put(`users/${id}/userfieldvalues`, { [field]: 'B-7' })).statusCode, 204);

    assert.equal((await scim.patch(`/Users/${id}`, [{ op: 'replace', path: 'active', value: false }])).json().active, false);
    assert.equal((await h.get(`users/${id}`)).json().active, false);
    assert.equal((await h.get(`registrations/${registration}`)).json().status, 'active');
    assert.deepEqual((await h.get(`users/${id}/userfieldvalues`)).json(), { [field]: 'B-7' });
    const refused = await h.post('registrations', { userId: id, offeringId: other });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().fieldErrors.userId, /deactivated/);
    assert.deepEqual((await h.get('offerings', { query: { userId: id } })).json().results, []);
    const inactive = (await h.get('users', { query: { active: 'false' } })).json().results.map((u: { id: string }) => u.id);
    assert.ok(inactive.includes(id));
    assert.equal(
      (await scim.find('Users', 'active eq false')).json().Resources.some((u: { id: string }) => u.id === id),
      true,
    );

    assert.equal((await scim.patch(`/Users/${id}`, [{ op: 'replace', path: 'active', value: true }])).json().active, true);
    assert.equal((await h.post('registrations', { userId: id, offeringId: other })).statusCode, 201);
    assert.equal((await h.put(`users/${id}`, { active: false })).statusCode, 204);
    assert.equal((await scim.get(`/Users/${id}`)).json().active, false);
  });

  it('gives each user an ETag equal to meta.version, and honours If-Match on PUT, PATCH and DELETE (RFC 7644 §3.14)', async () => {
    const id = await scim.createUser({ userName: 'versioned@example.com' });
    const read = await scim.get(`/Users/${id}`);
    const version = read.json().meta.version;
    assert.equal(read.headers.etag, version);
    const stale = { 'if-match': version };
    const patched = await scim.request(
      'PATCH',
      `/Users/${id}`,
      { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'locale', value: 'fr' }] },
      stale,
    );
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.headers.etag, patched.json().meta.version);
    assert.notEqual(patched.json().meta.version, version);
    // The version read before the PATCH is stale now: nothing more is written with it.
    scimError(
      await scim.request('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'locale', value: 'de' }] }, stale),
      412,
    );
    scimError(await scim.request('PUT', `/Users/${id}`, { userName: 'versioned@example.com' }, stale), 412);
    scimError(await scim.request('DELETE', `/Users/${id}`, undefined, stale), 412);
    assert.equal((await scim.get(`/Users/${id}`)).json().locale, 'fr');
    const current = { 'if-match': patched.json().meta.version };
    const replaced = await scim.request('PUT', `/Users/${id}`, { userName: 'versioned@example.com', locale: 'de' }, current);
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.equal((await scim.request('DELETE', `/Users/${id}`, undefined, { 'if-match': '*' })).statusCode, 204);
    scimError(await scim.request('DELETE', `/Users/${id}`, undefined, { 'if-match': '*' }), 404);
  });

  it('keeps a second email and a home one as they were sent, the primary one being the v5 email', async () => {
    const both = await scim.createUser({
      userName: 'two.mails@example.com',
      emails: [
        { value: 'two.mails@example.com', type: 'work', primary: true },
        { value: 'two@home.example', type: 'home' },
      ],
    });
    const read = (await scim.get(`/Users/${both}`)).json();
    assert.deepEqual(read.emails, [
      { value: 'two.mails@example.com', type: 'work', primary: true },
      { value: 'two@home.example', type: 'home' },
    ]);
    assert.equal((await h.get(`users/${both}`)).json().email, 'two.mails@example.com');

    // A home address alone is the user's v5 email, and stays a home one.
    const home = await scim.createUser({ userName: 'homebody', emails: [{ value: 'homebody@home.example', type: 'home' }] });
    assert.deepEqual((await scim.get(`/Users/${home}`)).json().emails, [{ value: 'homebody@home.example', type: 'home', primary: true }]);
    assert.equal((await h.get(`users/${home}`)).json().email, 'homebody@home.example');

    // PATCH adds one, PUT replaces the list; v5 changing the email changes the primary one only.
    const added = await scim.patch(`/Users/${home}`, [{ op: 'add', path: 'emails', value: [{ value: 'homebody@other.example', type: 'other' }] }]);
    assert.equal(added.statusCode, 200, added.body);
    assert.deepEqual(added.json().emails, [
      { value: 'homebody@home.example', type: 'home', primary: true },
      { value: 'homebody@other.example', type: 'other' },
    ]);
    const replaced = await scim.put(`/Users/${both}`, {
      userName: 'two.mails@example.com',
      emails: [
        { value: 'two.mails@example.com', type: 'work', primary: true },
        { value: 'second@work.example', type: 'work' },
      ],
    });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.deepEqual(
      replaced.json().emails.map((email: { value: string }) => email.value),
      ['two.mails@example.com', 'second@work.example'],
    );
    assert.equal((await h.put(`users/${both}`, { email: 'renamed@example.com' })).statusCode, 204);
    assert.deepEqual((await scim.get(`/Users/${both}`)).json().emails, [
      { value: 'renamed@example.com', type: 'work', primary: true },
      { value: 'second@work.example', type: 'work' },
    ]);
    // Back to one work address: nothing more is kept.
    const plain = await scim.put(`/Users/${both}`, {
      userName: 'two.mails@example.com',
      emails: [{ value: 'renamed@example.com', type: 'work', primary: true }],
    });
    assert.deepEqual(plain.json().emails, [{ value: 'renamed@example.com', type: 'work', primary: true }]);
    assert.equal((await scim.delete(`/Users/${home}`)).statusCode, 204);
  });

  it('deletes as v5 does', async () => {
    const id = await scim.createUser({ userName: 'gone@example.com' });
    const response = await scim.delete(`/Users/${id}`);
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    scimError(await scim.get(`/Users/${id}`), 404);
    assert.equal((await h.get(`users/${id}`)).statusCode, 404);
    scimError(await scim.delete(`/Users/${id}`), 404);
  });

  it('lists with filters, translated to SQL, paging and attribute selection', async () => {
    const org = await h.createOrganization('Filters');
    const client = await ScimClient.of(h, org.id);
    const ids: string[] = [];
    for (let n = 0; n < 7; n++) {
      ids.push(
        await client.createUser({
          userName: `user${n}@filters.example`,
          name: { givenName: `Given${n}`, familyName: n % 2 ? 'Odd' : 'Even' },
          externalId: `EXT-${n}`,
          active: n !== 3,
          ...(n === 6 ? { locale: 'de' } : {}),
        }),
      );
    }
    const found = async (filter: string) => (await client.find('Users', filter)).json().Resources.map((u: { id: string }) => ids.indexOf(u.id));
    assert.deepEqual(await found('userName eq "USER2@filters.example"'), [2]);
    assert.deepEqual(await found('externalId eq "EXT-4"'), [4]);
    assert.deepEqual(await found('externalId eq "ext-4"'), []);
    assert.deepEqual(await found('emails[type eq "work" and value eq "user5@filters.example"]'), [5]);
    assert.deepEqual(await found('emails.value co "5@FILTERS"'), [5]);
    assert.deepEqual(await found('name.familyName eq "odd" and not (active eq false)'), [1, 5]);
    assert.deepEqual(await found('name.givenName sw "Given1" or name.givenName ew "n6"'), [1, 6]);
    assert.deepEqual(await found('active eq false'), [3]);
    assert.deepEqual(await found('locale pr'), [6]);
    assert.deepEqual(await found('locale ne "de" and userName lt "user2"'), [0, 1]);
    assert.deepEqual(await found(`id eq "${ids[0]}"`), [0]);
    assert.deepEqual(await found(`${USER_SCHEMA}:userName eq "user1@filters.example"`), [1]);
    assert.deepEqual(await found('meta.created gt "2000-01-01T00:00:00Z"'), [0, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual(await found('meta.lastModified lt "2000-01-01T00:00:00.000Z"'), []);

    const page = (await client.get('/Users?startIndex=3&count=2')).json();
    assert.equal(page.totalResults, 7);
    assert.equal(page.startIndex, 3);
    assert.equal(page.itemsPerPage, 2);
    assert.deepEqual(
      page.Resources.map((u: { id: string }) => u.id),
      ids.slice(2, 4),
    );
    const counted = (await client.get('/Users?count=0')).json();
    assert.deepEqual([counted.totalResults, counted.Resources.length], [7, 0]);
    assert.equal((await client.get('/Users?startIndex=-5&count=1')).json().startIndex, 1);
    assert.equal((await client.get('/Users?aadOptscim062020&count=1')).statusCode, 200);
    scimError(await client.get('/Users?count=ten'), 400, 'invalidValue');
    scimError(await client.get('/Users?count=1&count=2'), 400, 'invalidValue');

    const slim = (
      await client.get(`/Users?attributes=userName,name.familyName&filter=${encodeURIComponent('userName eq "user1@filters.example"')}`)
    ).json();
    assert.deepEqual(slim.Resources[0], { schemas: [USER_SCHEMA], id: ids[1], userName: 'user1@filters.example', name: { familyName: 'Odd' } });
    const lean = (await client.get(`/Users/${ids[1]}?excludedAttributes=emails,meta,groups,name.formatted`)).json();
    assert.deepEqual(Object.keys(lean).sort(), ['active', 'externalId', 'id', 'name', 'schemas', 'userName']);
    assert.deepEqual(lean.name, { givenName: 'Given1', familyName: 'Odd' });
    scimError(await client.get('/Users?attributes=shoeSize'), 400, 'invalidValue');
    // Attributes RFC 7643 defines that this server does not store are simply not there (a group's members on a user too).
    const plain = (await client.get(`/Users/${ids[1]}?excludedAttributes=members,displayName,name.middleName,x509Certificates`)).json();
    assert.equal(plain.userName, 'user1@filters.example');
    assert.deepEqual(plain.name, { givenName: 'Given1', familyName: 'Odd', formatted: 'Given1 Odd' });
    const named = (await client.get(`/Users/${ids[1]}?attributes=displayName,userName,${ENTERPRISE}:department,emails.display`)).json();
    assert.deepEqual(named, { schemas: [USER_SCHEMA], id: ids[1], userName: 'user1@filters.example' });
    assert.equal((await client.get(`/Users?attributes=title,nickName&count=1`)).statusCode, 200);

    // The same search sent as POST /.search (RFC 7644 §3.4.3), and bulk, which is not supported.
    const searched = await client.request('POST', '/Users/.search', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
      filter: 'userName eq "user1@filters.example"',
      attributes: ['userName', 'name.familyName'],
      startIndex: 1,
      count: 10,
    });
    assert.equal(searched.statusCode, 200, searched.body);
    assert.deepEqual(searched.json().Resources, slim.Resources);
    assert.equal(searched.json().totalResults, 1);
    const second = (await client.request('POST', '/Users/.search', { startIndex: 2, count: 1, excludedAttributes: ['emails'] })).json();
    assert.deepEqual([second.startIndex, second.itemsPerPage, second.Resources[0].emails], [2, 1, undefined]);
    scimError(await client.request('POST', '/Users/.search', { filter: 'userName eq' }), 400, 'invalidFilter');
    scimError(await client.request('POST', '/Users/.search', { count: 'ten' }), 400, 'invalidValue');
    scimError(await client.request('POST', '/Users/.search', { attributes: [1] }), 400, 'invalidValue');
    scimError(await client.request('POST', '/Users/.search', { schemas: ['urn:other'] }), 400, 'invalidSyntax');
    scimError(await client.request('POST', '/Bulk', { schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'], Operations: [] }), 501);

    scimError(await client.find('Users', 'userName eq'), 400, 'invalidFilter');
    scimError(await client.find('Users', 'userName eq "x" trailing'), 400, 'invalidFilter');
    scimError(await client.find('Users', 'shoeSize eq "42"'), 400, 'invalidFilter');
    scimError(await client.find('Users', 'active gt true'), 400, 'invalidFilter');
    scimError(await client.find('Users', 'meta.created gt "yesterday"'), 400, 'invalidFilter');
    scimError(await client.find('Users', 'userName eq 42'), 400, 'invalidFilter');
  });

  it('reads filter values as JSON strings (RFC 7644 §3.4.2.2): DOMAIN\\user is found by "DOMAIN\\\\user", not created again', async () => {
    const id = await scim.createUser({ userName: 'CORP\\back\\slash', emails: [{ value: 'backslash@example.com' }] });
    const found = async (filter: string) => {
      const response = await scim.find('Users', filter);
      assert.equal(response.statusCode, 200, `${filter}: ${response.body}`);
      return response.json().Resources.map((u: { id: string }) => u.id);
    };
    // As an identity provider matches before it creates: the filter text is userName eq "CORP\\back\\slash".
    assert.deepEqual(await found('userName eq "CORP\\\\back\\\\slash"'), [id]);
    assert.deepEqual(await found('userName sw "CORP\\\\"'), [id]);
    assert.deepEqual(await found('userName ew "\\\\slash"'), [id]);
    assert.deepEqual(await found('userName co "p\\\\b"'), [id]);
    assert.deepEqual(await found('userName eq "CORP\\u005cback\\u005Cslash"'), [id]);
    assert.deepEqual(await found('userName sw "CORP\\\\\\\\back"'), []);
    // A backslash that starts no JSON escape is the character itself, as unescaping providers send DOMAIN\user.
    const plain = await scim.createUser({ userName: 'DOMAIN\\jdoe', emails: [{ value: 'jdoe@example.com' }] });
    assert.deepEqual(await found('userName eq "DOMAIN\\jdoe"'), [plain]);
    assert.deepEqual(await found('userName eq "DOMAIN\\\\jdoe"'), [plain]);
    // Quotes, and values that are no text either engine stores.
    const quoted = await scim.createUser({ userName: 'say"hi"', emails: [{ value: 'quoted@example.com' }] });
    assert.deepEqual(await found('userName eq "say\\"hi\\""'), [quoted]);
    assert.deepEqual(await found('name.givenName eq "\\t" or userName eq "say\\u0022hi\\u0022"'), [quoted]);
    for (const filter of ['userName eq "\\u0000"', 'userName eq "\\ud800"']) scimError(await scim.find('Users', filter), 400, 'invalidFilter');
    scimError(await scim.find('Users', 'userName eq "unterminated\\"'), 400, 'invalidFilter');
    const again = await scim.post('/Users', { userName: 'corp\\BACK\\slash', emails: [{ value: 'other@example.com' }] });
    scimError(again, 409, 'uniqueness');
  });

  it('refuses a filter over the length limit saying so, by GET and by POST /.search', async () => {
    const filter = `userName eq "${'a'.repeat(2000)}"`;
    assert.match(scimError(await scim.find('Users', filter), 400, 'invalidFilter').detail, /longer than 2000 characters/);
    const searched = await scim.request('POST', '/Users/.search', { filter });
    assert.match(scimError(searched, 400, 'invalidFilter').detail, /longer than 2000 characters/);
  });

  it('takes schemas in excludedAttributes and attributes as the attribute it is, always returned', async () => {
    const id = await scim.createUser({ userName: 'schemas@example.com' });
    const excluded = await scim.get(`/Users/${id}?excludedAttributes=schemas,emails`);
    assert.equal(excluded.statusCode, 200, excluded.body);
    assert.deepEqual(excluded.json().schemas, [USER_SCHEMA]);
    assert.equal(excluded.json().emails, undefined);
    const listed = await scim.get(`/Users?excludedAttributes=schemas&filter=${encodeURIComponent('userName eq "schemas@example.com"')}`);
    assert.equal(listed.statusCode, 200, listed.body);
    const only = await scim.get(`/Users/${id}?attributes=schemas`);
    assert.equal(only.statusCode, 200, only.body);
    assert.deepEqual(only.json(), { schemas: [USER_SCHEMA], id });
  });

  it('refuses attribute names every object inherits (__proto__, constructor) as any unknown attribute: invalidFilter', async () => {
    for (const filter of ['__proto__ eq "x"', 'constructor pr', 'constructor eq "x"', 'emails[constructor eq "x"]', 'name.__proto__ pr']) {
      scimError(await scim.find('Users', filter), 400, 'invalidFilter');
    }
  });

  it("keeps organizations apart: another organization's token sees and changes nothing", async () => {
    const id = await scim.createUser({ userName: 'private@example.com', name: { givenName: 'Private' } });
    const stranger = await ScimClient.of(h, (await h.createOrganization('Strangers')).id);
    scimError(await stranger.get(`/Users/${id}`), 404);
    scimError(await stranger.put(`/Users/${id}`, { userName: 'stolen@example.com' }), 404);
    scimError(await stranger.patch(`/Users/${id}`, [{ op: 'replace', path: 'active', value: false }]), 404);
    scimError(await stranger.delete(`/Users/${id}`), 404);
    assert.equal((await stranger.find('Users', 'userName eq "private@example.com"')).json().totalResults, 0);
    assert.equal((await stranger.get('/Users')).json().totalResults, 0);
    const user = (await scim.get(`/Users/${id}`)).json();
    assert.equal(user.userName, 'private@example.com');
    assert.equal(user.active, true);
  });

  it('takes scim tokens only, and a scim token opens nothing of v5', async () => {
    const none = await h.app.inject({ method: 'GET', url: '/scim/v2/Users' });
    assert.equal(none.statusCode, 401);
    assert.match(String(none.headers['www-authenticate']), /^Bearer realm="training-api"/);
    assert.equal(none.json().schemas[0], 'urn:ietf:params:scim:api:messages:2.0:Error');
    const v5Token = await h.token(h.org.id, { scopes: ['read', 'write'] });
    const forbidden = await h.app.inject({ method: 'GET', url: '/scim/v2/Users', headers: { authorization: `Bearer ${v5Token}` } });
    assert.equal(forbidden.statusCode, 403);
    assert.match(forbidden.json().detail, /scim/);
    const v5 = await h.get('users', { token: scim.token });
    assert.equal(v5.statusCode, 403);
    assert.equal(v5.json().error, 'insufficient_scope');
    assert.equal((await h.post('users', { email: 'no@example.com' }, { token: scim.token })).statusCode, 403);
    const both = await h.token(h.org.id, { scopes: ['read', 'scim'] });
    assert.equal((await h.get('users', { token: both })).statusCode, 200);
    assert.equal((await new ScimClient(h, both).get('/Users')).statusCode, 200);
  });

  it('maps the kind of account onto roles: set, kept when a PUT leaves roles out, changed and removed by PATCH', async () => {
    const id = await scim.createUser({ userName: 'roles@example.com', roles: [{ value: 'courseAdministrator', primary: true }] });
    const read = (await scim.get(`/Users/${id}`)).json();
    assert.deepEqual(read.roles, [{ value: 'courseAdministrator', display: 'Course administrator', type: 'accountType', primary: true }]);
    assert.equal((await h.get(`users/${id}`)).json().accountType, 'courseAdministrator');

    // An identity provider that does not manage roles sends none: the administrator stays one.
    const { roles: _roles, meta: _meta, ...withoutRoles } = read;
    assert.equal((await scim.put(`/Users/${id}`, withoutRoles)).statusCode, 200);
    assert.equal((await h.get(`users/${id}`)).json().accountType, 'courseAdministrator');

    const promoted = await scim.patch(`/Users/${id}`, [{ op: 'replace', path: 'roles', value: [{ value: 'organizationAdministrator' }] }]);
    assert.equal(promoted.statusCode, 200);
    assert.equal((await h.get(`users/${id}`)).json().accountType, 'organizationAdministrator');

    assert.equal((await scim.patch(`/Users/${id}`, [{ op: 'remove', path: 'roles' }])).statusCode, 200);
    const learner = (await h.get(`users/${id}`)).json();
    assert.equal(learner.accountType, undefined);
    assert.equal((await scim.get(`/Users/${id}`)).json().roles, undefined);

    const refused = await scim.patch(`/Users/${id}`, [{ op: 'add', path: 'roles', value: [{ value: 'superuser' }] }]);
    assert.match(
      scimError(refused, 400, 'invalidValue').detail,
      /roles\.value: must be one of learner, courseAdministrator, organizationAdministrator/,
    );
    assert.equal((await h.get(`users/${id}`)).json().accountType, undefined);
  });
});
