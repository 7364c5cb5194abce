import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine, type Response } from '../helpers/harness.js';
import { GROUP_SCHEMA, PATCH_OP, ScimClient, scimError } from './scim-client.js';

forEachEngine('SCIM /Groups', (h) => {
  let scim: ScimClient;
  let ada: string;
  let bob: string;
  let cy: string;
  const tagsOf = async (id: string): Promise<string[]> => (await h.get(`users/${id}`)).json().tags ?? [];

  before(async () => {
    scim = await ScimClient.of(h);
    ada = await scim.createUser({ userName: 'ada@example.com' });
    bob = await scim.createUser({ userName: 'bob@example.com' });
    cy = await scim.createUser({ userName: 'cy@example.com' });
  });

  it('creates a group as a tag its members carry, visible to v5 tag filters', async () => {
    const response = await scim.post('/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Sales, EMEA team',
      externalId: 'g-1',
      members: [{ value: ada }],
    });
    assert.equal(response.statusCode, 201);
    const group = response.json();
    assert.equal(response.headers.location, group.meta.location);
    assert.equal(group.displayName, 'Sales, EMEA team');
    assert.equal(group.externalId, 'g-1');
    assert.deepEqual(
      group.members.map((m: { value: string }) => m.value),
      [ada],
    );
    assert.equal(group.members[0].display, 'ada@example.com');
    assert.match(group.members[0].$ref, /\/scim\/v2\/Users\//);
    assert.deepEqual(await tagsOf(ada), ['Sales_EMEA_team']);
    const tagged = (await h.get('users', { query: { tags: 'sales_emea_team' } })).json().results.map((u: { id: string }) => u.id);
    assert.deepEqual(tagged, [ada]);
    const user = (await scim.get(`/Users/${ada}`)).json();
    assert.deepEqual(user.groups, [{ value: group.id, display: 'Sales, EMEA team', $ref: group.meta.location }]);
  });

  it('counts users tagged through v5 as members', async () => {
    const id = await scim.createGroup({ displayName: 'Mentors' });
    assert.equal((await h.put(`users/${cy}`, { tags: ['mentors', 'other'] })).statusCode, 204);
    assert.deepEqual(
      (await scim.get(`/Groups/${id}`)).json().members.map((m: { value: string }) => m.value),
      [cy],
    );
  });

  it('changes members in batches as Entra ID and Okta send them, keeping other tags', async () => {
    const id = await scim.createGroup({ displayName: 'Batch', members: [] });
    assert.equal((await h.put(`users/${bob}`, { tags: ['keep-me'] })).statusCode, 204);
    let response = await scim.patch(`/Groups/${id}`, [
      { op: 'Add', path: 'members', value: [{ $ref: null, value: ada }, { value: bob }, { value: cy }] },
    ]);
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    assert.deepEqual(await tagsOf(bob), ['keep-me', 'Batch']);
    response = await scim.patch(`/Groups/${id}`, [{ op: 'Remove', path: 'members', value: [{ value: ada }] }]);
    assert.equal(response.statusCode, 204);
    response = await scim.patch(`/Groups/${id}`, [{ op: 'remove', path: `members[value eq "${bob}"]` }]);
    assert.equal(response.statusCode, 204);
    assert.deepEqual(await tagsOf(bob), ['keep-me']);
    const members = async () => (await scim.get(`/Groups/${id}`)).json().members.map((m: { value: string }) => m.value);
    assert.deepEqual(await members(), [cy]);
    await scim.patch(`/Groups/${id}`, [{ op: 'replace', path: 'members', value: [{ value: ada }, { value: bob }] }]);
    assert.deepEqual(await members(), [ada, bob]);
    await scim.patch(`/Groups/${id}`, [{ op: 'remove', path: 'members' }]);
    assert.deepEqual(await members(), []);
    assert.deepEqual(await tagsOf(bob), ['keep-me']);
  });

  it('renames the group and its tag on every member, by PATCH and by PUT', async () => {
    const id = await scim.createGroup({ displayName: 'Old name', members: [{ value: ada }, { value: bob }] });
    await scim.patch(`/Groups/${id}`, [{ op: 'Replace', path: 'displayName', value: 'New name' }]);
    assert.ok((await tagsOf(ada)).includes('New_name'));
    assert.equal((await tagsOf(ada)).includes('Old_name'), false);
    await scim.patch(`/Groups/${id}`, [{ op: 'replace', value: { id, displayName: 'Newer name' } }]);
    const put = await scim.put(`/Groups/${id}`, { schemas: [GROUP_SCHEMA], displayName: 'Put name', externalId: 'p-1' });
    assert.equal(put.statusCode, 200);
    assert.equal(put.json().displayName, 'Put name');
    assert.deepEqual(
      put.json().members.map((m: { value: string }) => m.value),
      [ada, bob],
    );
    assert.ok((await tagsOf(bob)).includes('Put_name'));
    const replaced = await scim.put(`/Groups/${id}`, { displayName: 'Put name', members: [{ value: cy }] });
    assert.deepEqual(
      replaced.json().members.map((m: { value: string }) => m.value),
      [cy],
    );
    assert.equal(replaced.json().externalId, undefined);
  });

  it('deletes a group: the tag leaves every member, who stay', async () => {
    const id = await scim.createGroup({ displayName: 'Short lived', members: [{ value: ada }] });
    assert.equal((await scim.delete(`/Groups/${id}`)).statusCode, 204);
    assert.equal((await tagsOf(ada)).includes('Short_lived'), false);
    assert.equal((await h.get(`users/${ada}`)).statusCode, 200);
    scimError(await scim.get(`/Groups/${id}`), 404);
    scimError(await scim.delete(`/Groups/${id}`), 404);
  });

  it('lists and filters groups, members excluded on request', async () => {
    const org = await h.createOrganization('Group lists');
    const client = await ScimClient.of(h, org.id);
    const member = await client.createUser({ userName: 'member@example.com' });
    const ids = [
      await client.createGroup({ displayName: 'Alpha', externalId: 'A' }),
      await client.createGroup({ displayName: 'Beta', members: [{ value: member }] }),
      await client.createGroup({ displayName: 'Gamma ray', members: [{ value: member }] }),
    ];
    const found = async (filter: string, extra = '') =>
      (await client.find('Groups', filter, extra)).json().Resources.map((g: { id: string }) => ids.indexOf(g.id));
    assert.deepEqual(await found('displayName eq "beta"'), [1]);
    assert.deepEqual(await found('externalId eq "A"'), [0]);
    assert.deepEqual(await found(`members[value eq "${member}"]`), [1, 2]);
    assert.deepEqual(await found(`members.value eq "${member}" and displayName sw "G"`), [2]);
    assert.deepEqual(await found('displayName co "a"'), [0, 1, 2]);
    const lean = (await client.find('Groups', 'displayName eq "Beta"', '&excludedAttributes=members')).json();
    assert.equal(lean.totalResults, 1);
    assert.equal(lean.Resources[0].members, undefined);
    assert.equal(lean.Resources[0].displayName, 'Beta');
    // A user's attributes named on a group are not there: ignored, not refused.
    const named = (await client.find('Groups', 'displayName eq "Beta"', '&attributes=displayName,userName,emails&excludedAttributes=')).json();
    assert.deepEqual(Object.keys(named.Resources[0]).sort(), ['displayName', 'id', 'schemas']);
    const searched = (await client.request('POST', '/Groups/.search', { filter: 'displayName eq "Beta"', excludedAttributes: ['members'] })).json();
    assert.deepEqual(searched.Resources, lean.Resources);
    const page = (await client.get('/Groups?startIndex=2&count=1')).json();
    assert.deepEqual([page.totalResults, page.itemsPerPage, page.Resources[0].id], [3, 1, ids[1]]);
    const users = (await client.find('Users', `groups eq "${ids[2]}"`)).json();
    assert.deepEqual(
      users.Resources.map((u: { id: string }) => u.id),
      [member],
    );
    scimError(await client.find('Groups', 'displayName eq'), 400, 'invalidFilter');
    scimError(await client.find('Groups', 'owner eq "x"'), 400, 'invalidFilter');
  });

  it('shows each group of a page exactly as its own read does: the same members in the same order, meta.version and ETag', async () => {
    const org = await h.createOrganization('Group pages');
    const client = await ScimClient.of(h, org.id);
    const names = ['Team 7', 'Team 70', 'Team 7x', 'a_b', '100% sure', 'ΟΔΟΣ', 'Nobody here'];
    const groups = new Map<string, string>();
    for (const name of names) groups.set(name, await client.createGroup({ displayName: name }));
    // A tag matches as a whole word, whatever its case, with LIKE's wildcards taken literally and Σ folded to σ.
    const people: [string, string | null][] = [
      ['p1', 'Team_7 staff'],
      ['p2', 'team_70 TEAM_7'],
      ['p3', 'Team_7x'],
      ['p4', 'axb Team_7y'],
      ['p5', 'a_b 100%_sure'],
      ['p6', '100x_sure'],
      ['p7', 'οδοσ'],
      ['p8', 'οδος'],
      ['p9', null],
      ['p10', 'Team_7  TEAM_7 a_B'],
      ['p11', 'ΟΔΟΣ'],
    ];
    const ids = new Map<string, string>();
    for (const [name, tags] of people) {
      const id = await client.createUser({ userName: `${name}@pages.example` });
      // Written as stored, so that a word twice, in two cases, or after two spaces is tried too.
      await h.database.db.updateTable('users').set({ tags }).where('id', '=', id).execute();
      ids.set(id, name);
    }
    // Another organization's people with the same tags are no one's members here.
    const stranger = await ScimClient.of(h, (await h.createOrganization('Same tags')).id);
    await h.database.db
      .updateTable('users')
      .set({ tags: 'Team_7 a_b' })
      .where('id', '=', await stranger.createUser({ userName: 'p1@pages.example' }))
      .execute();

    const page = (await client.get('/Groups?count=20')).json().Resources;
    const lean = (await client.get('/Groups?count=20&excludedAttributes=members')).json().Resources;
    const searched = (await client.request('POST', '/Groups/.search', { count: 20 })).json().Resources;
    const membersOf = (group: { members?: { value: string }[] }) => (group.members ?? []).map((member) => ids.get(member.value));
    assert.deepEqual(
      Object.fromEntries(page.map((group: { displayName: string; members?: { value: string }[] }) => [group.displayName, membersOf(group)])),
      {
        'Team 7': ['p1', 'p2', 'p10'],
        'Team 70': ['p2'],
        'Team 7x': ['p3'],
        a_b: ['p5', 'p10'],
        '100% sure': ['p5'],
        ΟΔΟΣ: ['p7', 'p11'],
        'Nobody here': [],
      },
    );
    assert.equal(JSON.stringify(searched), JSON.stringify(page));
    for (const [index, group] of page.entries()) {
      const read = await client.get(`/Groups/${group.id}`);
      assert.equal(JSON.stringify(group), JSON.stringify(read.json()), group.displayName);
      assert.equal(read.headers.etag, group.meta.version);
      assert.equal(lean[index].meta.version, group.meta.version);
      assert.equal(lean[index].members, undefined);
      // v5's tag filter, which matches in SQL, finds the same people.
      const tag = group.displayName.replace(/[\s,]+/g, '_');
      const tagged = (await h.get('users', { token: org.token, query: { tags: tag } }))
        .json()
        .results.map((user: { id: string }) => ids.get(user.id));
      assert.deepEqual(membersOf(group).sort(), tagged.sort(), group.displayName);
    }
  });

  it('reads a page of groups, members and all, in a few statements, not one a group', async () => {
    const org = await h.createOrganization('Many groups');
    const client = await ScimClient.of(h, org.id);
    const member = await client.createUser({ userName: 'everywhere@pages.example' });
    for (let n = 0; n < 20; n++) await client.createGroup({ displayName: `Group ${n}`, members: n % 2 ? [{ value: member }] : [] });
    for (const read of [
      () => client.get('/Groups?count=20'),
      () => client.get('/Groups?count=20&excludedAttributes=members'),
      () => client.request('POST', '/Groups/.search', { count: 20, excludedAttributes: ['members'] }),
    ]) {
      let response: Response | undefined;
      const statements = await h.statementsOf(async () => (response = await read()));
      assert.equal(response?.json().Resources.length, 20);
      assert.ok(statements.length < 8, `${statements.length} statements for a page of 20 groups:\n${statements.join('\n')}`);
    }
  });

  it('refuses attribute names every object inherits (__proto__, constructor) as any unknown attribute: invalidFilter', async () => {
    for (const filter of ['__proto__ eq "x"', 'constructor pr', 'members[constructor eq "x"]']) {
      scimError(await scim.find('Groups', filter), 400, 'invalidFilter');
    }
  });

  it('refuses what it cannot do, changing nothing', async () => {
    const id = await scim.createGroup({ displayName: 'Strict group', members: [{ value: ada }] });
    scimError(await scim.post('/Groups', { displayName: 'strict   group' }), 409, 'uniqueness');
    scimError(await scim.post('/Groups', { displayName: ' , ' }), 400, 'invalidValue');
    scimError(await scim.post('/Groups', { members: [] }), 400, 'invalidValue');
    scimError(await scim.post('/Groups', { displayName: 'Ghosts', members: [{ value: '0190aaaaaaaa7aaa8aaaaaaaaaaaaaaa' }] }), 400, 'invalidValue');
    assert.equal((await scim.find('Groups', 'displayName eq "Ghosts"')).json().totalResults, 0);
    scimError(await scim.post('/Groups', { displayName: 'Bad members', members: 'everyone' }), 400, 'invalidValue');
    const other = await scim.createGroup({ displayName: 'Other group' });
    scimError(await scim.patch(`/Groups/${other}`, [{ op: 'replace', path: 'displayName', value: 'STRICT group' }]), 409, 'uniqueness');
    scimError(await scim.patch(`/Groups/${id}`, [{ op: 'add', path: 'members', value: [{ value: bob }, { value: 'nobody' }] }]), 400, 'invalidValue');
    assert.equal((await tagsOf(bob)).includes('Strict_group'), false);
    scimError(await scim.patch(`/Groups/${id}`, [{ op: 'remove', path: 'displayName' }]), 400, 'invalidValue');
    scimError(await scim.patch(`/Groups/${id}`, [{ op: 'replace', path: 'id', value: 'x' }]), 400, 'mutability');
    scimError(await scim.patch(`/Groups/${id}`, [{ op: 'add', path: 'members[value eq "x"]', value: [] }]), 400, 'invalidPath');
    scimError(await scim.patch('/Groups/0190aaaaaaaa7aaa8aaaaaaaaaaaaaaa', [{ op: 'remove', path: 'members' }]), 404);
    scimError(await scim.put(`/Groups/${id}`, { displayName: 7 }), 400, 'invalidValue');
    assert.deepEqual(
      (await scim.get(`/Groups/${id}`)).json().members.map((m: { value: string }) => m.value),
      [ada],
    );
  });

  it('gives each group an ETag equal to meta.version, members included or not, and honours If-Match on PUT, PATCH and DELETE', async () => {
    const config = (await scim.get('/ServiceProviderConfig')).json();
    assert.deepEqual(config.etag, { supported: true });
    const created = await scim.post('/Groups', { displayName: 'Versioned group', members: [{ value: ada }] });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id;
    const version = created.json().meta.version;
    assert.equal(created.headers.etag, version);
    const read = await scim.get(`/Groups/${id}`);
    assert.equal(read.headers.etag, version);
    assert.equal(read.json().meta.version, version);
    // The version is the whole group's: a read without members names the same one.
    const lean = await scim.get(`/Groups/${id}?excludedAttributes=members`);
    assert.equal(lean.json().members, undefined);
    assert.equal(lean.json().meta.version, version);
    assert.equal(lean.headers.etag, version);
    const listed = (await scim.find('Groups', 'displayName eq "Versioned group"', '&excludedAttributes=members')).json();
    assert.equal(listed.Resources[0].meta.version, version);

    const stale = { 'if-match': version };
    const addBob = { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: bob }] }] };
    const patched = await scim.request('PATCH', `/Groups/${id}`, addBob, stale);
    assert.equal(patched.statusCode, 204, patched.body);
    const now = (await scim.get(`/Groups/${id}`)).json().meta.version;
    assert.notEqual(now, version);
    assert.equal(patched.headers.etag, now);
    // A membership change alone makes the version read before it stale: nothing more is written with it.
    const addCy = { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: cy }] }] };
    scimError(await scim.request('PATCH', `/Groups/${id}`, addCy, stale), 412);
    scimError(await scim.request('PUT', `/Groups/${id}`, { displayName: 'Renamed group' }, stale), 412);
    scimError(await scim.request('DELETE', `/Groups/${id}`, undefined, stale), 412);
    const after = (await scim.get(`/Groups/${id}`)).json();
    assert.equal(after.displayName, 'Versioned group');
    assert.deepEqual(after.members.map((m: { value: string }) => m.value).sort(), [ada, bob].sort());

    const replaced = await scim.request('PUT', `/Groups/${id}`, { displayName: 'Renamed group' }, { 'if-match': `"other", ${now}` });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.equal(replaced.headers.etag, replaced.json().meta.version);
    assert.equal((await scim.request('DELETE', `/Groups/${id}`, undefined, { 'if-match': '*' })).statusCode, 204);
    scimError(await scim.request('DELETE', `/Groups/${id}`, undefined, { 'if-match': '*' }), 404);
    scimError(await scim.request('PATCH', `/Groups/${id}`, addCy, { 'if-match': '*' }), 404);
  });

  it("keeps organizations apart: another organization's token sees and changes nothing", async () => {
    const id = await scim.createGroup({ displayName: 'Ours', members: [{ value: ada }] });
    const stranger = await ScimClient.of(h, (await h.createOrganization('Other')).id);
    scimError(await stranger.get(`/Groups/${id}`), 404);
    scimError(await stranger.patch(`/Groups/${id}`, [{ op: 'remove', path: 'members' }]), 404);
    scimError(await stranger.put(`/Groups/${id}`, { displayName: 'Theirs' }), 404);
    scimError(await stranger.delete(`/Groups/${id}`), 404);
    assert.equal((await stranger.find('Groups', 'displayName eq "Ours"')).json().totalResults, 0);
    const theirs = await stranger.createGroup({ displayName: 'Ours' });
    scimError(await stranger.patch(`/Groups/${theirs}`, [{ op: 'add', path: 'members', value: [{ value: ada }] }]), 400, 'invalidValue');
    assert.deepEqual(
      (await scim.get(`/Groups/${id}`)).json().members.map((m: { value: string }) => m.value),
      [ada],
    );
  });
});
