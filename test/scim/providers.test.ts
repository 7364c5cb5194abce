import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine } from '../helpers/harness.js';
import { ENTERPRISE, GROUP_SCHEMA, PATCH_OP, ScimClient, USER_SCHEMA } from './scim-client.js';

/**
 * The request sequences the two largest identity providers document for a SCIM application,
 * sent as documented (bodies, casing, query strings), each run followed by v5 reads of what the
 * organization now holds. Sources: Microsoft Entra ID, "Tutorial: Develop and plan provisioning for
 * a SCIM endpoint" (request/response examples) and "Known issues ... SCIM 2.0 protocol compliance"
 * (requests with and without the aadOptscim062020 flag); Okta, "SCIM 2.0 Protocol Reference".
 */
forEachEngine('SCIM as identity providers send it', (h) => {
  let employeeNumberField: string;
  let departmentField: string;

  before(async () => {
    employeeNumberField = await h.create('userfields', { type: 'text', name: 'Employee ID', categoryName: 'HR' });
    departmentField = await h.create('userfields', { type: 'text', name: 'Department', categoryName: 'HR' });
    const mapped = await h.put('scimattributes', {
      [`${ENTERPRISE}:employeeNumber`]: employeeNumberField,
      [`${ENTERPRISE}:department`]: departmentField,
    });
    assert.equal(mapped.statusCode, 204);
  });

  it('Microsoft Entra ID: test connection, create, match, update, disable, enable, groups, delete', async () => {
    const entra = await ScimClient.of(h);
    const ok = (response: { statusCode: number; body: string }, status: number) => assert.equal(response.statusCode, status, response.body);

    // Test connection: a query for a user that does not exist, by a random GUID.
    const probe = await entra.get(`/Users?filter=${encodeURIComponent('userName eq "5b0e8d3c-2e7f-4c59-9f3a-3e1f0b6a7d21"')}`);
    ok(probe, 200);
    assert.deepEqual(
      { ...probe.json<object>(), itemsPerPage: 0 },
      {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
        totalResults: 0,
        startIndex: 1,
        itemsPerPage: 0,
        Resources: [],
      },
    );

    // Get User by query - zero results, then Create User as documented (nulls, empty roles, the enterprise URN misspelled).
    const userName = 'Test_User_00aa00aa-bb11-cc22-dd33-44ee44ee44ee';
    assert.equal((await entra.find('Users', `userName eq "${userName}"`)).json().totalResults, 0);
    const created = await entra.post('/Users', {
      schemas: [USER_SCHEMA, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0User'],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName,
      active: true,
      addresses: null,
      displayName: 'givenName familyName',
      emails: [{ primary: true, type: 'work', value: 'Test_User_11bb11bb-cc22-dd33-ee44-55ff55ff55ff@testuser.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      phoneNumbers: null,
      preferredLanguage: null,
      title: null,
      department: null,
      manager: null,
      roles: [],
      [ENTERPRISE]: { employeeNumber: 'E-1001', department: 'Research' },
    });
    ok(created, 201);
    const id = created.json().id;
    assert.equal(created.json().externalId, '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef');

    // Matching: by userName, by externalId, by work email.
    for (const filter of [
      `userName eq "${userName}"`,
      'externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"',
      'emails[type eq "work"].value eq "Test_User_11bb11bb-cc22-dd33-ee44-55ff55ff55ff@testuser.com"',
    ]) {
      const found = (await entra.find('Users', filter)).json();
      assert.deepEqual([found.totalResults, found.Resources[0]?.id], [1, id], filter);
    }
    ok(await entra.get(`/Users/${id}`), 200);

    // Update User [Multi-valued properties] and [Single-valued properties].
    let response = await entra.patch(`/Users/${id}`, [
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@testuser.com' },
      { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
    ]);
    ok(response, 200);
    assert.equal(response.json().emails[0].value, 'updatedEmail@testuser.com');
    ok(await entra.patch(`/Users/${id}`, [{ op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' }]), 200);

    // Replace multiple attributes: without the aadOptscim062020 flag (one path each), then with it (an object without a path).
    ok(
      await entra.patch(`/Users/${id}`, [
        { op: 'Replace', path: 'displayName', value: 'Pvlo' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'TestBcwqnm@testuser.com' },
        { op: 'Replace', path: 'name.givenName', value: 'Gtfd' },
        { op: 'Replace', path: 'name.familyName', value: 'Pkqf' },
        { op: 'Replace', path: 'externalId', value: 'Eqpj' },
        { op: 'Replace', path: `${ENTERPRISE}:employeeNumber`, value: 'Eqpj' },
      ]),
      200,
    );
    ok(
      await entra.patch(`/Users/${id}`, [
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'TestMhvaes@testuser.com' },
        {
          op: 'replace',
          value: { displayName: 'Bjfe', 'name.givenName': 'Kkom', 'name.familyName': 'Unua', [`${ENTERPRISE}:employeeNumber`]: 'Aklq' },
        },
      ]),
      200,
    );
    // Add a single-value string attribute (stored only when mapped; accepted either way).
    ok(await entra.patch(`/Users/${id}`, [{ op: 'Add', path: 'nickName', value: 'Babs' }]), 200);

    // Disable User: "False" as a string without the flag, false with it; then enabled again.
    response = await entra.patch(`/Users/${id}`, [{ op: 'Replace', path: 'active', value: 'False' }]);
    assert.equal(response.json().active, false);
    assert.equal((await h.get(`users/${id}`)).json().active, false);
    response = await entra.request('PATCH', `/Users/${id}`, { Operations: [{ op: 'replace', path: 'active', value: false }], schemas: [PATCH_OP] });
    assert.equal(response.json().active, false);
    response = await entra.patch(`/Users/${id}`, [{ op: 'Replace', path: 'active', value: 'True' }]);
    assert.equal(response.json().active, true);

    // Groups: created empty, found by displayName without members, renamed, members added and removed both ways.
    const second = await entra.createUser({ userName: 'second@testuser.com', externalId: 'second' });
    const group = await entra.post('/Groups', {
      schemas: [GROUP_SCHEMA, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName',
      meta: { resourceType: 'Group' },
    });
    ok(group, 201);
    const groupId = group.json().id;
    const byName = (await entra.get(`/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "displayName"')}`)).json();
    assert.deepEqual([byName.totalResults, byName.Resources[0].id, byName.Resources[0].members], [1, groupId, undefined]);
    assert.equal((await entra.get(`/Groups/${groupId}?excludedAttributes=members`)).json().members, undefined);
    ok(
      await entra.patch(`/Groups/${groupId}`, [
        { op: 'Replace', path: 'displayName', value: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName' },
      ]),
      204,
    );
    ok(
      await entra.patch(`/Groups/${groupId}`, [
        {
          op: 'Add',
          path: 'members',
          value: [
            { $ref: null, value: id },
            { $ref: null, value: second },
          ],
        },
      ]),
      204,
    );
    ok(await entra.patch(`/Groups/${groupId}`, [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: second }] }]), 204);
    const kept = await entra.createGroup({ displayName: 'Engineering Team' });
    ok(await entra.patch(`/Groups/${kept}`, [{ op: 'Add', path: 'members', value: [{ value: id }, { value: second }] }]), 204);
    ok(await entra.patch(`/Groups/${kept}`, [{ op: 'remove', path: `members[value eq "${second}"]` }]), 204);

    // What v5 clients now see.
    const v5 = (await h.get(`users/${id}`)).json();
    assert.equal(v5.username, '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com');
    assert.equal(v5.email, 'TestMhvaes@testuser.com');
    assert.deepEqual([v5.firstName, v5.lastName, v5.active], ['Kkom', 'Unua', true]);
    assert.deepEqual(v5.tags, ['1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName', 'Engineering_Team']);
    assert.deepEqual((await h.get(`users/${id}/userfieldvalues`)).json(), { [employeeNumberField]: 'Aklq', [departmentField]: 'Research' });
    assert.equal((await h.get(`users/${second}`)).json().tags, undefined);
    assert.deepEqual(
      (await h.get('users', { query: { tags: 'engineering_team' } })).json().results.map((u: { id: string }) => u.id),
      [id],
    );
    const scimView = (await entra.get(`/Users/${id}`)).json();
    assert.equal(scimView.externalId, 'Eqpj');
    assert.deepEqual(scimView[ENTERPRISE], { employeeNumber: 'Aklq', department: 'Research' });

    // Delete Group, then Delete User.
    ok(await entra.delete(`/Groups/${groupId}`), 204);
    assert.deepEqual((await h.get(`users/${id}`)).json().tags, ['Engineering_Team']);
    ok(await entra.delete(`/Users/${id}`), 204);
    assert.equal((await h.get(`users/${id}`)).statusCode, 404);
    assert.equal((await entra.find('Users', 'externalId eq "Eqpj"')).json().totalResults, 0);
  });

  it('Okta: test connection, match, create, import, PUT updates, deactivate, reactivate, group push', async () => {
    const org = await h.createOrganization('Okta organization');
    const okta = await ScimClient.of(h, org.id);
    const ok = (response: { statusCode: number; body: string }, status: number) => assert.equal(response.statusCode, status, response.body);

    ok(await okta.get('/Users?startIndex=1&count=2'), 200);
    const absent = await okta.get('/Users?filter=userName%20eq%20%22test.user%40okta.local%22&startIndex=1&count=100');
    assert.deepEqual([absent.statusCode, absent.json().totalResults, absent.json().Resources], [200, 0, []]);

    const created = await okta.post('/Users', {
      schemas: [USER_SCHEMA],
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    });
    ok(created, 201);
    const id = created.json().id;
    const duplicate = await okta.post('/Users', {
      schemas: [USER_SCHEMA],
      userName: 'test.user@okta.local',
      emails: [{ value: 'test.user@okta.local' }],
    });
    assert.deepEqual([duplicate.statusCode, duplicate.json().scimType], [409, 'uniqueness']);
    const found = await okta.get('/Users?filter=userName%20eq%20%22test.user%40okta.local%22&startIndex=1&count=100');
    assert.equal(found.json().Resources[0].id, id);

    // Import: pages of count=100 from startIndex=1, the same order every time.
    const second = await okta.createUser({ userName: 'second.user@okta.local', name: { givenName: 'Second', familyName: 'User' } });
    const imported = (await okta.get('/Users?startIndex=1&count=100')).json();
    assert.deepEqual([imported.totalResults, imported.itemsPerPage, imported.Resources.map((u: { id: string }) => u.id)], [2, 2, [id, second]]);
    assert.equal(Number.isInteger(imported.startIndex), true);

    // Update: GET the user, change what changed, PUT the whole object back.
    const current = (await okta.get(`/Users/${id}`)).json();
    const put = await okta.put(`/Users/${id}`, {
      ...current,
      name: { givenName: 'Another', middleName: 'Excited', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work', display: 'test.user@okta.local' }],
      groups: [],
      meta: { resourceType: 'User' },
    });
    ok(put, 200);
    assert.equal(put.json().name.givenName, 'Another');
    assert.equal(put.json().externalId, '00ujl29u0le5T6Aj10h7');

    // Deactivate and reactivate: PATCH replace with an object; older integrations PUT active.
    let response = await okta.patch(`/Users/${id}`, [{ op: 'replace', value: { active: false } }]);
    ok(response, 200);
    assert.equal(response.json().active, false);
    assert.equal((await h.get(`users/${id}`, { token: org.token })).json().active, false);
    response = await okta.patch(`/Users/${id}`, [{ op: 'replace', value: { active: true } }]);
    assert.equal(response.json().active, true);
    response = await okta.put(`/Users/${second}`, { ...(await okta.get(`/Users/${second}`)).json<object>(), active: false });
    assert.equal(response.json().active, false);

    // Push groups: create, import, read, rename, membership changes, full push, unlink with delete.
    const group = await okta.post('/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Test SCIMv2', members: [] });
    ok(group, 201);
    const groupId = group.json().id;
    assert.deepEqual(group.json().members, []);
    assert.equal((await okta.get('/Groups?startIndex=1&count=100')).json().Resources[0].id, groupId);
    ok(await okta.get(`/Groups/${groupId}`), 200);
    ok(await okta.patch(`/Groups/${groupId}`, [{ op: 'replace', value: { id: groupId, displayName: 'Test SCIMv20' } }]), 204);
    ok(
      await okta.patch(`/Groups/${groupId}`, [
        { op: 'remove', path: `members[value eq "${second}"]` },
        { op: 'add', path: 'members', value: [{ value: id, display: 'test.user@okta.local' }] },
      ]),
      204,
    );
    ok(
      await okta.patch(`/Groups/${groupId}`, [
        {
          op: 'replace',
          path: 'members',
          value: [
            { value: id, display: 'test.user@okta.local' },
            { value: second, display: 'second.user@okta.local' },
          ],
        },
      ]),
      204,
    );
    const members = (await okta.get(`/Groups/${groupId}`)).json();
    assert.equal(members.displayName, 'Test SCIMv20');
    assert.deepEqual(
      members.members.map((m: { value: string }) => m.value),
      [id, second],
    );

    // What v5 clients now see.
    const users = (await h.get('users', { token: org.token })).json().results;
    assert.deepEqual(
      users.map((u: Record<string, unknown>) => [u.username, u.firstName, u.active, u.tags]),
      [
        ['test.user@okta.local', 'Another', true, ['Test_SCIMv20']],
        ['second.user@okta.local', 'Second', false, ['Test_SCIMv20']],
      ],
    );

    ok(await okta.delete(`/Groups/${groupId}`), 204);
    assert.equal((await h.get(`users/${id}`, { token: org.token })).json().tags, undefined);
    assert.equal((await okta.get('/Groups')).json().totalResults, 0);
  });
});
