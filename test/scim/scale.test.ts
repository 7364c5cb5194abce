import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { ScimClient } from './scim-client.js';

const USERS = 10_000;
/** Requests in flight at once, as an identity provider's provisioning run sends them. */
const CONCURRENCY = 32;
/** Members per group PATCH, as Entra ID batches them. */
const MEMBERS_PER_PATCH = 100;

/** Runs `count` tasks, CONCURRENCY at a time. */
async function inParallel(count: number, task: (n: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** Every page of a SCIM list: user id → userName. */
async function scimList(scim: ScimClient, filter: string): Promise<Map<string, string>> {
  const users = new Map<string, string>();
  for (let startIndex = 1; ;) {
    const page = (await scim.get(`/Users?filter=${encodeURIComponent(filter)}&startIndex=${startIndex}&count=1000&attributes=userName`)).json();
    for (const user of page.Resources) users.set(user.id, user.userName);
    startIndex += page.itemsPerPage;
    if (page.itemsPerPage === 0 || startIndex > page.totalResults) return users;
  }
}

/** Every page of a v5 list: user id → username. */
async function v5List(h: Harness, token: string, query: Record<string, string>): Promise<Map<string, string>> {
  const users = new Map<string, string>();
  for (let offset = 0; ; offset += 100) {
    const page = (await h.get('users', { token, query: { ...query, limit: '100', offset: String(offset) } })).json();
    for (const user of page.results) users.set(user.id, user.username);
    if (!page.next) return users;
  }
}

const sorted = (map: Map<string, string>) => [...map].sort(([a], [b]) => (a < b ? -1 : 1));

forEachEngine('SCIM at scale', (h) => {
  it(`provisions ${USERS} users and a group through SCIM; SCIM filters and v5 GET /users then list the same people`, async () => {
    const org = await h.createOrganization('Scale');
    const scim = await ScimClient.of(h, org.id);

    const created = new Map<string, string>();
    await inParallel(USERS, async (n) => {
      const response = await scim.post('/Users', {
        userName: `person${n}@scale.example`,
        name: { givenName: `Given${n}`, familyName: `Family${n % 97}` },
        externalId: `hr-${n}`,
        active: n % 10 !== 1,
      });
      assert.equal(response.statusCode, 201, response.body);
      created.set(response.json().id, `person${n}@scale.example`);
    });
    assert.equal(created.size, USERS);

    // Half of them join a group, a batch of members per PATCH.
    const group = await scim.createGroup({ displayName: 'Scale Sales' });
    const odd = [...created.keys()].filter((id) => Number(/person(\d+)@/.exec(created.get(id)!)![1]) % 2 === 1);
    for (let start = 0; start < odd.length; start += MEMBERS_PER_PATCH) {
      const members = odd.slice(start, start + MEMBERS_PER_PATCH).map((value) => ({ value }));
      assert.equal((await scim.patch(`/Groups/${group}`, [{ op: 'Add', path: 'members', value: members }])).statusCode, 204);
    }

    const everyoneActive = await scimList(scim, 'active eq true and userName ew "@scale.example"');
    assert.equal(everyoneActive.size, 9000);
    assert.deepEqual(sorted(everyoneActive), sorted(await v5List(h, org.token, { active: 'true' })));

    const activeSales = await scimList(scim, `groups eq "${group}" and active eq true`);
    assert.equal(activeSales.size, 4000);
    assert.deepEqual(sorted(activeSales), sorted(await v5List(h, org.token, { tags: 'scale_sales', active: 'true' })));
    for (const [id, userName] of activeSales) assert.equal(created.get(id), userName);
  });
});
