import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine } from '../helpers/harness.js';
import { ENTERPRISE, ScimClient, scimError } from '../scim/scim-client.js';

const CUSTOM = 'urn:example:params:scim:schemas:extension:acme:2.0:User';

forEachEngine('SCIM attributes mapped onto userfields', (h) => {
  let scim: ScimClient;
  // Filled in by before(): the ids of the userfields the mappings point at.
  const fields = {} as Record<'department' | 'employeeNumber' | 'costCenter' | 'manager' | 'firstAider' | 'started' | 'note' | 'phone', string>;

  before(async () => {
    scim = await ScimClient.of(h);
    fields.department = await h.create('userfields', { type: 'text', name: 'Department', categoryName: 'HR', constraints: { maximumLength: 20 } });
    fields.employeeNumber = await h.create('userfields', { type: 'number', name: 'Employee number', categoryName: 'HR' });
    fields.costCenter = await h.create('userfields', {
      type: 'dropdown',
      name: 'Cost center',
      categoryName: 'HR',
      options: [{ name: 'CC-1' }, { name: 'CC-2' }],
    });
    fields.manager = await h.create('userfields', { type: 'text', name: 'Manager id', categoryName: 'HR' });
    fields.firstAider = await h.create('userfields', { type: 'yesno', name: 'First aider', categoryName: 'HR' });
    fields.started = await h.create('userfields', { type: 'date', name: 'Start date', categoryName: 'HR' });
    fields.note = await h.create('userfields', { type: 'message', message: 'Welcome', categoryName: 'HR' });
    const phone = (await h.get('userfields')).json().results.find((f: { name: string }) => f.name === 'Phone Number').id;
    fields.phone = phone;
    const response = await h.put('scimattributes', {
      [`${ENTERPRISE}:department`]: fields.department,
      [`${ENTERPRISE}:employeeNumber`]: fields.employeeNumber,
      [`${ENTERPRISE.toUpperCase()}:COSTCENTER`]: fields.costCenter,
      [`${ENTERPRISE}:manager`]: fields.manager,
      [`${CUSTOM}:firstAider`]: fields.firstAider,
      [`${CUSTOM}:startDate`]: fields.started,
      'phoneNumbers[type eq "Work"].value': fields.phone,
    });
    assert.equal(response.statusCode, 204, response.body);
  });

  it('configures mappings through the API, in canonical spelling, and refuses bad ones all at once', async () => {
    const mappings = (await h.get('scimattributes')).json();
    assert.equal(mappings[`${ENTERPRISE}:costCenter`], fields.costCenter);
    assert.equal(mappings['phoneNumbers[type eq "work"].value'], fields.phone);
    assert.equal(Object.keys(mappings).length, 7);
    const refused = await h.put('scimattributes', {
      shoeSize: fields.department,
      [`${ENTERPRISE}:shoeSize`]: fields.department,
      title: '0190aaaaaaaa7aaa8aaaaaaaaaaaaaaa',
      nickName: fields.note,
      displayName: fields.department,
    });
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(Object.keys(refused.json().fieldErrors).sort(), ['displayName', 'nickName', 'shoeSize', 'title', `${ENTERPRISE}:shoeSize`]);
    assert.match(refused.json().fieldErrors.displayName, /already fed by/);
    assert.equal(Object.keys((await h.get('scimattributes')).json()).length, 7);
    assert.equal((await h.put('scimattributes', { userName: fields.department })).statusCode, 400);
    const readOnly = await h.put('scimattributes', { title: fields.department }, { token: await h.token(h.org.id, { scopes: ['read'] }) });
    assert.equal(readOnly.statusCode, 403);
  });

  it('shows only mapped extension attributes in /Schemas and /ResourceTypes', async () => {
    const schemas = (await scim.get('/Schemas')).json().Resources;
    const enterprise = schemas.find((s: { id: string }) => s.id === ENTERPRISE);
    assert.deepEqual(enterprise.attributes.map((a: { name: string }) => a.name).sort(), ['costCenter', 'department', 'employeeNumber', 'manager']);
    // A standard attribute keeps the type RFC 7643 gives it, whatever userfield holds it (employeeNumber a number here).
    assert.equal(enterprise.attributes.find((a: { name: string }) => a.name === 'employeeNumber').type, 'string');
    const custom = schemas.find((s: { id: string }) => s.id === CUSTOM);
    assert.deepEqual(
      custom.attributes.map((a: { name: string }) => a.name),
      ['firstAider', 'startDate'],
    );
    const user = schemas.find((s: { id: string }) => s.id === 'urn:ietf:params:scim:schemas:core:2.0:User');
    assert.ok(user.attributes.some((a: { name: string }) => a.name === 'phoneNumbers'));
    // What the server enforces: a userName and an email (taken from an email-shaped userName when none is sent).
    const named = (name: string) => user.attributes.find((a: { name: string }) => a.name === name);
    assert.equal(named('userName').required, true);
    assert.equal(named('emails').required, true);
    assert.match(named('emails').description, /when none is sent and userName is an email address, it is taken/i);
    const types = (await scim.get('/ResourceTypes')).json().Resources;
    assert.deepEqual(types[0].schemaExtensions.map((e: { schema: string }) => e.schema).sort(), [CUSTOM, ENTERPRISE].sort());
    assert.equal((await scim.get(`/Schemas/${ENTERPRISE}`)).json().id, ENTERPRISE);
    scimError(await scim.get('/Schemas/urn:nothing'), 404);
  });

  it('writes mapped attributes into userfields, in the forms identity providers send, and reads them back', async () => {
    const id = await scim.createUser({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE, CUSTOM],
      userName: 'mapped@example.com',
      phoneNumbers: [
        { type: 'work', value: '+1 555 0100' },
        { type: 'mobile', value: 'ignored' },
      ],
      [ENTERPRISE]: { department: 'Sales', employeeNumber: '0042', costCenter: 'CC-2', manager: { value: 'boss-1' }, division: 'not mapped' },
      [CUSTOM]: { firstAider: 'True', startDate: '2024-03-01' },
    });
    assert.deepEqual((await h.get(`users/${id}/userfieldvalues`)).json(), {
      [fields.department]: 'Sales',
      [fields.employeeNumber]: 42,
      [fields.costCenter]: 'CC-2',
      [fields.manager]: 'boss-1',
      [fields.firstAider]: 'yes',
      [fields.started]: '03/01/2024',
      [fields.phone]: '+1 555 0100',
    });
    const user = (await scim.get(`/Users/${id}`)).json();
    assert.deepEqual(user.schemas.sort(), ['urn:ietf:params:scim:schemas:core:2.0:User', CUSTOM, ENTERPRISE].sort());
    assert.deepEqual(user[ENTERPRISE], { department: 'Sales', employeeNumber: '42', costCenter: 'CC-2', manager: { value: 'boss-1' } });
    assert.deepEqual(user[CUSTOM], { firstAider: 'yes', startDate: '03/01/2024' });
    assert.deepEqual(user.phoneNumbers, [{ type: 'work', value: '+1 555 0100' }]);

    const found = (await scim.find('Users', `${ENTERPRISE}:department eq "sales" and ${ENTERPRISE}:employeeNumber gt 40`)).json();
    assert.deepEqual(
      found.Resources.map((u: { id: string }) => u.id),
      [id],
    );
    assert.equal((await scim.find('Users', `${ENTERPRISE}:department co "ale"`)).json().totalResults, 1);
    assert.equal(
      (await scim.find('Users', `${ENTERPRISE}:department ne "Sales"`)).json().Resources.some((u: { id: string }) => u.id === id),
      false,
    );
    assert.equal((await scim.find('Users', `${ENTERPRISE}:manager.value eq "boss-1"`)).json().totalResults, 1);

    const patched = await scim.patch(`/Users/${id}`, [
      { op: 'Replace', path: `${ENTERPRISE}:employeeNumber`, value: '7' },
      { op: 'Replace', value: { [`${ENTERPRISE}:department`]: 'Support' } },
      { op: 'Remove', path: `${ENTERPRISE}:costCenter` },
      { op: 'Replace', path: 'phoneNumbers[type eq "work"].value', value: '+1 555 0199' },
    ]);
    assert.equal(patched.statusCode, 200);
    const values = (await h.get(`users/${id}/userfieldvalues`)).json();
    assert.equal(values[fields.employeeNumber], 7);
    assert.equal(values[fields.department], 'Support');
    assert.equal(values[fields.costCenter], undefined);
    assert.equal(values[fields.phone], '+1 555 0199');

    // Removing a typed entry, and then again when it is not there, which changes nothing.
    assert.equal((await scim.patch(`/Users/${id}`, [{ op: 'remove', path: 'phoneNumbers[type eq "work"]' }])).statusCode, 200);
    for (const path of ['phoneNumbers[type eq "work"]', 'phoneNumbers[type eq "work"].value']) {
      const removed = await scim.patch(`/Users/${id}`, [{ op: 'remove', path }]);
      assert.equal(removed.statusCode, 200, `${path}: ${removed.body}`);
    }
    assert.equal((await h.get(`users/${id}/userfieldvalues`)).json()[fields.phone], undefined);

    // A mapped value with a backslash is found by its JSON string (RFC 7644 §3.4.2.2).
    await scim.patch(`/Users/${id}`, [{ op: 'replace', path: `${ENTERPRISE}:department`, value: 'R\\D' }]);
    assert.equal((await scim.find('Users', `${ENTERPRISE}:department eq "R\\\\D"`)).json().totalResults, 1);
    assert.equal((await scim.find('Users', `${ENTERPRISE}:department sw "R\\\\"`)).json().totalResults, 1);

    await scim.put(`/Users/${id}`, { userName: 'mapped@example.com', [ENTERPRISE]: { department: 'Kept' } });
    assert.deepEqual((await h.get(`users/${id}/userfieldvalues`)).json(), { [fields.department]: 'Kept' });
  });

  it('applies a PATCH that carries an extension as an object, with its URN as the path or as a key of the value (RFC 7644 §3.5.2)', async () => {
    const id = await scim.createUser({ userName: 'nested@example.com', [ENTERPRISE]: { department: 'Ops', costCenter: 'CC-1' } });
    let response = await scim.patch(`/Users/${id}`, [{ op: 'replace', value: { [ENTERPRISE]: { costCenter: 'CC-2' } } }]);
    assert.equal(response.statusCode, 200, response.body);
    // The sub-attributes not named are left as they are.
    assert.deepEqual(response.json()[ENTERPRISE], { department: 'Ops', costCenter: 'CC-2' });
    response = await scim.patch(`/Users/${id}`, [
      { op: 'Replace', path: ENTERPRISE.toLowerCase(), value: { department: 'Sales' } },
      { op: 'Add', path: ENTERPRISE, value: { manager: { value: 'boss-2' } } },
    ]);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json()[ENTERPRISE], { department: 'Sales', costCenter: 'CC-2', manager: { value: 'boss-2' } });
    assert.deepEqual((await h.get(`users/${id}/userfieldvalues`)).json(), {
      [fields.department]: 'Sales',
      [fields.costCenter]: 'CC-2',
      [fields.manager]: 'boss-2',
    });
    // Removing the extension removes every attribute of it.
    response = await scim.patch(`/Users/${id}`, [{ op: 'remove', path: ENTERPRISE }]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json()[ENTERPRISE], undefined);
    assert.deepEqual((await h.get(`users/${id}/userfieldvalues`)).json(), {});
    // An extension's value that is not an object is refused, not ignored.
    scimError(await scim.patch(`/Users/${id}`, [{ op: 'replace', path: ENTERPRISE, value: 'Sales' }]), 400, 'invalidValue');
    scimError(await scim.patch(`/Users/${id}`, [{ op: 'replace', value: { [ENTERPRISE]: ['Sales'] } }]), 400, 'invalidValue');
    scimError(await scim.patch(`/Users/${id}`, [{ op: 'remove', path: 'urn:ietf:params:scim:schemas:core:2.0:User' }]), 400, 'invalidPath');
  });

  it("judges values by the userfield's own rules, naming the attribute, and writes nothing on refusal", async () => {
    const refused = scimError(
      await scim.post('/Users', {
        userName: 'invalid@example.com',
        [ENTERPRISE]: { department: 'A department name far too long', costCenter: 'CC-9', employeeNumber: 'forty' },
      }),
      400,
      'invalidValue',
    );
    assert.match(refused.detail, new RegExp(`${ENTERPRISE}:department: must be at most 20 characters`));
    assert.match(refused.detail, /costCenter: must be one of the options "CC-1", "CC-2"/);
    assert.match(refused.detail, /employeeNumber: must be an integer/);
    assert.equal((await scim.find('Users', 'userName eq "invalid@example.com"')).json().totalResults, 0);
    const id = await scim.createUser({ userName: 'valid@example.com', [ENTERPRISE]: { department: 'Ops' } });
    scimError(
      await scim.patch(`/Users/${id}`, [
        { op: 'replace', path: `${CUSTOM}:startDate`, value: '31/31/2024' },
        { op: 'replace', path: 'name.givenName', value: 'Changed' },
      ]),
      400,
      'invalidValue',
    );
    assert.equal((await scim.get(`/Users/${id}`)).json().name, undefined);
  });

  it('forgets a mapping whose userfield is deleted, and removes one on null', async () => {
    const field = await h.create('userfields', { type: 'text', name: 'Temporary', categoryName: 'HR' });
    assert.equal(await h.put('scimattributes', { title: field, nickName: fields.department }).then((r) => r.statusCode), 400);
    assert.equal((await h.put('scimattributes', { title: field })).statusCode, 204);
    assert.equal((await h.delete(`userfields/${field}`)).statusCode, 204);
    assert.equal((await h.get('scimattributes')).json().title, undefined);
    assert.equal((await h.put('scimattributes', { [`${CUSTOM}:startDate`]: null })).statusCode, 204);
    assert.equal((await h.get('scimattributes')).json()[`${CUSTOM}:startDate`], undefined);
    const other = await h.createOrganization('Other');
    assert.deepEqual((await h.get('scimattributes', { token: other.token })).json(), {});
    assert.equal((await h.put('scimattributes', { title: fields.department }, { token: other.token })).statusCode, 400);
  });
});
