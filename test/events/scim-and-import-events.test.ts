import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { eventsAfter } from '../helpers/events.js';
import { forEachEngine } from '../helpers/harness.js';
import { ENTERPRISE, ScimClient, USER_SCHEMA } from '../scim/scim-client.js';
import { backdated } from '../helpers/actors.js';

const CUSTOM = 'urn:example:params:scim:schemas:extension:acme:2.0:User';
/** An updatedDate no write of the test can give: a write that moved it would show. */
const LONG_AGO = backdated('2001-01-01T00:00:00Z');

forEachEngine('events of SCIM and the user import', (h) => {
  let scim: ScimClient;
  let employeeNumber: string;
  let costCenter: string;
  let colors: string;
  let cursor: string | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'import-events-'));

  /** The events recorded since the last call. */
  async function newEvents(): Promise<any[]> {
    const events = await eventsAfter(h, cursor);
    cursor = events.at(-1)?.id ?? cursor;
    return events;
  }

  /** Sets the users' updatedDate to LONG_AGO, behind the API's back. */
  async function backdate(...ids: string[]): Promise<void> {
    await h.database.db.updateTable('users').set({ updated_date: LONG_AGO }).where('id', 'in', ids).execute();
  }

  const user = async (id: string) => (await h.get(`users/${id}`)).json();
  const values = async (id: string) => (await h.get(`users/${id}/userfieldvalues`)).json();

  before(async () => {
    scim = await ScimClient.of(h);
    employeeNumber = await h.create('userfields', { type: 'number', name: 'Employee number', categoryName: 'HR' });
    costCenter = await h.create('userfields', {
      type: 'dropdown',
      name: 'Cost center',
      categoryName: 'HR',
      options: [{ name: 'CC-1' }, { name: 'CC-2' }],
    });
    colors = await h.create('userfields', {
      type: 'checkboxes',
      name: 'Colors',
      categoryName: 'HR',
      options: [{ name: 'Red' }, { name: 'Green' }, { name: 'Blue' }],
    });
    const mapped = await h.put('scimattributes', {
      [`${ENTERPRISE}:employeeNumber`]: employeeNumber,
      [`${ENTERPRISE}:costCenter`]: costCenter,
      [`${CUSTOM}:colors`]: colors,
    });
    assert.equal(mapped.statusCode, 204, mapped.body);
    await newEvents();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a SCIM PUT or PATCH that changes nothing writes nothing: no event, no updatedDate moved, the same meta', async () => {
    const sent = {
      schemas: [USER_SCHEMA, ENTERPRISE, CUSTOM],
      userName: 'same.again@example.com',
      name: { givenName: 'Same', familyName: 'Again' },
      emails: [{ value: 'same.again@example.com', type: 'work', primary: true }],
      locale: 'en_GB',
      externalId: 'hr-1',
      password: 'unchanged1',
      active: true,
      // As identity providers send them: a number as a string, options in their own order.
      [ENTERPRISE]: { employeeNumber: '1001', costCenter: 'CC-1' },
      [CUSTOM]: { colors: ['Blue', 'Red'] },
    };
    const id = await scim.createUser(sent);
    assert.deepEqual((await values(id))[colors], ['Red', 'Blue']);
    await backdate(id);
    const stored = (await scim.get(`/Users/${id}`)).json();
    assert.equal(stored.meta.lastModified, LONG_AGO);
    await newEvents();

    const put = await scim.put(`/Users/${id}`, sent);
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(put.json().meta, stored.meta);
    const patch = await scim.patch(`/Users/${id}`, [
      { op: 'replace', path: 'name.givenName', value: 'Same' },
      { op: 'replace', path: 'active', value: 'True' },
      { op: 'replace', path: `${ENTERPRISE}:employeeNumber`, value: 1001 },
      { op: 'replace', path: `${CUSTOM}:colors`, value: ['Blue', 'Red'] },
      { op: 'add', value: { [`${ENTERPRISE}:costCenter`]: 'CC-1', password: 'unchanged1' } },
    ]);
    assert.equal(patch.statusCode, 200, patch.body);
    assert.deepEqual(patch.json().meta, stored.meta);

    assert.deepEqual(await newEvents(), []);
    assert.equal((await user(id)).updatedDate, LONG_AGO);
  });

  it('a SCIM write that changes something records what changed, with the previous values', async () => {
    const id = await scim.createUser({ userName: 'changer@example.com', name: { givenName: 'Ada' }, [ENTERPRISE]: { employeeNumber: 7 } });
    // The user and its values, of one request: before it, there was no user, hence no updatedDate.
    const created = await newEvents();
    assert.deepEqual(
      created.map((event) => [event.type, event.data.updatedDate, event.previousAttributes]),
      [
        ['user.created', (await user(id)).updatedDate, undefined],
        ['userfieldvalues.updated', (await user(id)).updatedDate, { values: {}, updatedDate: null }],
      ],
    );
    await backdate(id);

    assert.equal((await scim.patch(`/Users/${id}`, [{ op: 'replace', path: 'name.givenName', value: 'Augusta' }])).statusCode, 200);
    const renamed = await newEvents();
    assert.deepEqual(
      renamed.map((event) => event.type),
      ['user.updated'],
    );
    assert.deepEqual(renamed[0].data, await user(id));
    assert.deepEqual(renamed[0].previousAttributes, { firstName: 'Ada', updatedDate: LONG_AGO });

    await backdate(id);
    assert.equal((await scim.patch(`/Users/${id}`, [{ op: 'replace', path: `${ENTERPRISE}:employeeNumber`, value: '8' }])).statusCode, 200);
    const renumbered = await newEvents();
    assert.deepEqual(
      renumbered.map((event) => event.type),
      ['userfieldvalues.updated'],
    );
    const after = await user(id);
    assert.notEqual(after.updatedDate, LONG_AGO);
    assert.deepEqual(renumbered[0].data, { userId: id, values: await values(id), updatedDate: after.updatedDate });
    assert.deepEqual(renumbered[0].previousAttributes, { values: { [employeeNumber]: 7 }, updatedDate: LONG_AGO });

    await backdate(id);
    const put = await scim.put(`/Users/${id}`, {
      userName: 'changer@example.com',
      name: { givenName: 'Augusta', familyName: 'King' },
      [ENTERPRISE]: { employeeNumber: 8, costCenter: 'CC-2' },
    });
    assert.equal(put.statusCode, 200, put.body);
    const both = await newEvents();
    assert.deepEqual(
      both.map((event) => event.type),
      ['user.updated', 'userfieldvalues.updated'],
    );
    // Both events of the request name the updatedDate before it, and the one it set.
    const changed = (await user(id)).updatedDate;
    assert.deepEqual(both[0].previousAttributes, { lastName: null, updatedDate: LONG_AGO });
    assert.deepEqual(both[1].previousAttributes, { values: { [employeeNumber]: 8 }, updatedDate: LONG_AGO });
    assert.deepEqual(both[1].data, { userId: id, values: { [employeeNumber]: 8, [costCenter]: 'CC-2' }, updatedDate: changed });
    assert.equal(both[0].data.updatedDate, changed);
  });

  it('SCIM group writes record user.updated for each user whose tags changed, and only for them', async () => {
    const [ann, ben, cat, dan] = [
      await scim.createUser({ userName: 'ann@groups.example' }),
      await scim.createUser({ userName: 'ben@groups.example' }),
      await scim.createUser({ userName: 'cat@groups.example' }),
      await scim.createUser({ userName: 'dan@groups.example' }),
    ];
    assert.equal((await h.put(`users/${dan}`, { tags: ['other'] })).statusCode, 204);
    await backdate(ann, ben, cat, dan);
    await newEvents();
    /** The user.updated events since the last call: user id → previous tags (null when none). */
    const retagged = async () => {
      const events = await newEvents();
      assert.ok(
        events.every((event) => event.type === 'user.updated'),
        JSON.stringify(events),
      );
      for (const event of events) {
        // updatedDate too, unless the user changed earlier in the same second (timestamps count seconds).
        assert.deepEqual(
          Object.keys(event.previousAttributes).filter((key) => key !== 'updatedDate'),
          ['tags'],
        );
        assert.deepEqual(event.data, await user(event.data.id), 'the user as the API returns it');
      }
      return Object.fromEntries(events.map((event) => [event.data.id, event.previousAttributes.tags]));
    };

    const group = await scim.createGroup({ displayName: 'Team Blue', members: [{ value: ann }, { value: ben }] });
    assert.deepEqual(await retagged(), { [ann]: null, [ben]: null });
    assert.equal((await newEvents()).length, 0);
    const patch = async (operations: unknown[]) => assert.equal((await scim.patch(`/Groups/${group}`, operations)).statusCode, 204);

    await patch([{ op: 'add', path: 'members', value: [{ value: ann }, { value: cat }] }]);
    assert.deepEqual(await retagged(), { [cat]: null }, 'Ann was a member already');
    await patch([{ op: 'remove', path: 'members', value: [{ value: ben }, { value: dan }] }]);
    assert.deepEqual(await retagged(), { [ben]: ['Team_Blue'] }, 'Dan was no member');
    const benLeft = (await user(ben)).updatedDate;
    await patch([{ op: 'remove', path: `members[value eq "${dan}"]` }]);
    assert.deepEqual(await retagged(), {});
    const put = await scim.put(`/Groups/${group}`, { displayName: 'Team Blue', members: [{ value: cat }, { value: ann }] });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(await retagged(), {}, 'the same name and members');
    await patch([{ op: 'replace', path: 'members', value: [{ value: cat }, { value: dan }] }]);
    assert.deepEqual(await retagged(), { [ann]: ['Team_Blue'], [dan]: ['other'] });
    await patch([{ op: 'replace', path: 'displayName', value: 'Team Green' }]);
    assert.deepEqual(await retagged(), { [cat]: ['Team_Blue'], [dan]: ['other', 'Team_Blue'] });
    assert.deepEqual((await user(dan)).tags, ['other', 'Team_Green']);
    await patch([{ op: 'replace', path: 'externalId', value: 'g-7' }]);
    assert.deepEqual(await retagged(), {});
    assert.equal((await scim.delete(`/Groups/${group}`)).statusCode, 204);
    assert.deepEqual(await retagged(), { [cat]: ['Team_Green'], [dan]: ['other', 'Team_Green'] });
    assert.equal((await user(ben)).updatedDate, benLeft, 'Ben left once, and nothing touched him since');
  });

  it('importing the same file again writes nothing, and a changed cell records exactly its change', async () => {
    const importFile = async (name: string, lines: string[]) => {
      const path = join(dir, name);
      writeFileSync(path, lines.join('\n'));
      const run = await runCli(h.database.url, 'import', 'users', '--org', h.org.id, path);
      assert.equal(run.code, 0, run.err);
      return run.out;
    };
    const header = 'email,firstName,lastName,password,tags,active,Employee number,Cost center';
    const rows = [
      'eve@import.example,Eve,Adams,garden11,"red, green",true,1,CC-1',
      'fay@import.example,Fay,,,,false,2,',
      'gus@import.example,Gus,Grant,,,,,CC-2',
    ];
    assert.match(await importFile('first.csv', [header, ...rows]), /: 3 created, 0 updated, 0 unchanged, 4 userfield values set$/);
    const created = await newEvents();
    assert.deepEqual(created.map((event) => event.type).sort(), [
      'user.created',
      'user.created',
      'user.created',
      'userfieldvalues.updated',
      'userfieldvalues.updated',
      'userfieldvalues.updated',
    ]);
    const ids = created.filter((event) => event.type === 'user.created').map((event) => event.data.id as string);
    // Before the batch that created them, the users had no updatedDate.
    for (const event of created.filter((event) => event.type === 'userfieldvalues.updated')) assert.equal(event.previousAttributes.updatedDate, null);
    await backdate(...ids);

    assert.match(await importFile('again.csv', [header, ...rows]), /: 0 created, 0 updated, 3 unchanged, 0 userfield values set$/);
    assert.deepEqual(await newEvents(), []);
    for (const id of ids) assert.equal((await user(id)).updatedDate, LONG_AGO);

    const [eve, fay, gus] = ids as [string, string, string];
    const renamed = [rows[0], 'fay@import.example,Faye,,,,false,2,', rows[2]] as string[];
    assert.match(await importFile('renamed.csv', [header, ...renamed]), /: 0 created, 1 updated, 2 unchanged, 0 userfield values set$/);
    const [nameChange, ...noMore] = await newEvents();
    assert.deepEqual(noMore, []);
    assert.equal(nameChange.type, 'user.updated');
    assert.deepEqual(nameChange.data, await user(fay));
    assert.deepEqual(nameChange.previousAttributes, { firstName: 'Fay', updatedDate: LONG_AGO });

    const moved = [rows[0], renamed[1], 'gus@import.example,Gus,Grant,,,,,CC-1'] as string[];
    assert.match(await importFile('moved.csv', [header, ...moved]), /: 0 created, 1 updated, 2 unchanged, 1 userfield values set$/);
    const [valueChange, ...none] = await newEvents();
    assert.deepEqual(none, []);
    assert.equal(valueChange.type, 'userfieldvalues.updated');
    assert.deepEqual(valueChange.data, { userId: gus, values: { [costCenter]: 'CC-1' }, updatedDate: (await user(gus)).updatedDate });
    assert.deepEqual(valueChange.previousAttributes, { values: { [costCenter]: 'CC-2' }, updatedDate: LONG_AGO });
    assert.equal((await user(eve)).updatedDate, LONG_AGO, 'her password, tags and values are as stored');

    // A row changing the user and a value: both events name the updatedDate before the batch.
    await backdate(gus);
    const both = [rows[0], renamed[1], 'gus@import.example,Gustav,Grant,,,,,CC-2'] as string[];
    assert.match(await importFile('both.csv', [header, ...both]), /: 0 created, 1 updated, 2 unchanged, 1 userfield values set$/);
    const changes = await newEvents();
    const changed = (await user(gus)).updatedDate;
    assert.deepEqual(
      changes.map((event) => [event.type, event.data.updatedDate, event.previousAttributes]),
      [
        ['user.updated', changed, { firstName: 'Gus', updatedDate: LONG_AGO }],
        ['userfieldvalues.updated', changed, { values: { [costCenter]: 'CC-1' }, updatedDate: LONG_AGO }],
      ],
    );
  });

  it('an export imported back into its organization changes nothing', async () => {
    const exported = join(dir, 'everyone.jsonl');
    const run = await runCli(h.database.url, 'export', 'users', '--org', h.org.id, '--output', exported);
    assert.equal(run.code, 0, run.err);
    const count = (await eventsAfter(h)).length;
    const again = await runCli(h.database.url, 'import', 'users', '--org', h.org.id, exported);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /: 0 created, 0 updated, (\d+) unchanged, 0 userfield values set$/);
    assert.equal((await eventsAfter(h)).length, count);
  });
});
