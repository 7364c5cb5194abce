import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { fillPath, routeTable } from '../helpers/route-table.js';
import { UNKNOWN_ID, VALID_BODIES } from '../helpers/tenants.js';

const ENTITY_TAG = /^"[A-Za-z0-9_-]{27}"$/;

let counter = 0;
const fresh = (prefix: string) => `${prefix}${++counter}`;

/** One kind of item: how to make one, its URL, and two different changes for a PUT. */
interface Kind {
  name: string;
  make: (h: Harness) => Promise<string>;
  change: () => unknown;
  /** Whether DELETE is allowed on the URL. */
  deletable: boolean;
}

const KINDS: Kind[] = [
  {
    name: 'user',
    make: async (h) => `users/${await h.create('users', { email: `${fresh('user')}@example.com` })}`,
    change: () => ({ firstName: fresh('Jane') }),
    deletable: true,
  },
  {
    name: 'userfield category',
    make: async (h) => `userfieldcategories/${await h.create('userfieldcategories', { name: fresh('Category '), type: 'public' })}`,
    change: () => ({ name: fresh('Renamed ') }),
    deletable: true,
  },
  {
    name: 'userfield',
    make: async (h) => `userfields/${await h.create('userfields', { type: 'text', name: fresh('Field '), categoryName: 'Conditional' })}`,
    change: () => ({ name: fresh('Renamed field ') }),
    deletable: true,
  },
  {
    name: 'offering category',
    make: async (h) => `offeringcategories/${await h.create('offeringcategories', { name: fresh('Offering category ') })}`,
    change: () => ({ name: fresh('Renamed ') }),
    deletable: true,
  },
  {
    name: 'offering',
    make: async (h) => `offerings/${await h.create('offerings', { title: fresh('Course ') })}`,
    change: () => ({ title: fresh('Renamed course ') }),
    deletable: true,
  },
  {
    name: 'registration',
    make: async (h) => {
      const userId = await h.create('users', { email: `${fresh('learner')}@example.com` });
      const offeringId = await h.create('offerings', { title: fresh('Graded course ') });
      return `registrations/${await h.create('registrations', { userId, offeringId })}`;
    },
    change: () => ({ grade: 50 + (counter++ % 50) }),
    deletable: false,
  },
  {
    name: 'webhook',
    make: async (h) => {
      const response = await h.post('webhooks', { url: `https://hooks.example.com/${fresh('hook')}`, events: ['user.created'] });
      assert.equal(response.statusCode, 201, response.body);
      return `webhooks/${response.json().id}`;
    },
    change: () => ({ description: fresh('Hook ') }),
    deletable: true,
  },
  {
    name: "user's userfield values",
    make: async (h) => `users/${await h.create('users', { email: `${fresh('valued')}@example.com` })}/userfieldvalues`,
    change: () => ({}),
    deletable: false,
  },
  {
    name: "user's agreement",
    make: async (h) => `users/${await h.create('users', { email: `${fresh('agreeing')}@example.com` })}/agreements/standard`,
    change: () => ({ agreed: true }),
    deletable: false,
  },
];

forEachEngine('conditional requests', (h) => {
  const etagOf = async (url: string) => {
    const response = await h.get(url);
    assert.equal(response.statusCode, 200, response.body);
    return String(response.headers.etag);
  };

  /** The values PUT needs a userfield to change; made once. */
  let valueField: string;
  const changeOf = async (kind: Kind) => {
    if (kind.name !== "user's userfield values") return kind.change();
    valueField ??= await h.create('userfields', { type: 'text', name: 'Badge number', categoryName: 'Conditional values' });
    return { [valueField]: fresh('badge ') };
  };

  it('a single item carries a strong ETag, the same on every GET until the item changes', async () => {
    const url = await KINDS[0]!.make(h);
    const first = await h.get(url);
    assert.match(String(first.headers.etag), ENTITY_TAG);
    assert.equal(await etagOf(url), first.headers.etag);
    assert.equal((await h.put(url, { lastName: 'Changed' })).statusCode, 204);
    assert.notEqual(await etagOf(url), first.headers.etag);
    // PUT back as read: nothing changes, the ETag neither.
    const read = await h.get(url);
    assert.equal((await h.put(url, { lastName: 'Changed' })).statusCode, 204);
    assert.equal(await etagOf(url), read.headers.etag);
  });

  it('without conditional headers, reads and writes answer as before (body, status, no precondition)', async () => {
    const url = await KINDS[0]!.make(h);
    const response = await h.get(url);
    assert.equal(response.statusCode, 200);
    assert.deepEqual(Object.keys(response.json()).sort(), ['active', 'createdDate', 'email', 'id', 'updatedDate']);
    assert.equal((await h.put(url, { firstName: 'Unconditional' })).statusCode, 204);
    assert.equal((await h.delete(url)).statusCode, 204);
    assert.equal((await h.get(url)).statusCode, 404);
  });

  it('If-None-Match: 304 with the ETag and no body for the current tag, a list holding it, a weak twin or *', async () => {
    const url = await KINDS[0]!.make(h);
    const etag = await etagOf(url);
    for (const header of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
      const response = await h.get(url, { headers: { 'if-none-match': header } });
      assert.equal(response.statusCode, 304, header);
      assert.equal(response.body, '');
      assert.equal(response.headers.etag, etag);
    }
    const changed = await h.get(url, { headers: { 'if-none-match': '"stale", W/"older"' } });
    assert.equal(changed.statusCode, 200);
    assert.equal(changed.headers.etag, etag);
    assert.equal(changed.json().id, url.split('/').pop());
    assert.equal((await h.get(`users/${'0'.repeat(32)}`, { headers: { 'if-none-match': '*' } })).statusCode, 404);
  });

  for (const kind of KINDS) {
    it(`${kind.name}: If-None-Match gives 304; If-Match with the current ETag writes, a stale one gets 412 and writes nothing`, async () => {
      const url = await kind.make(h);
      const etag = await etagOf(url);
      assert.equal((await h.get(url, { headers: { 'if-none-match': etag } })).statusCode, 304);

      const written = await h.put(url, await changeOf(kind), { headers: { 'if-match': etag } });
      assert.equal(written.statusCode, 204, written.body);
      const current = await etagOf(url);
      assert.notEqual(current, etag);

      const stale = await h.put(url, await changeOf(kind), { headers: { 'if-match': etag } });
      assert.equal(stale.statusCode, 412);
      assert.match(stale.json().errors[0], /If-Match does not name the current version of the item/);
      assert.equal(await etagOf(url), current, 'a refused write changes nothing');

      if (kind.deletable) {
        assert.equal((await h.delete(url, { headers: { 'if-match': etag } })).statusCode, 412);
        assert.equal((await h.get(url)).statusCode, 200);
        assert.equal((await h.delete(url, { headers: { 'if-match': current } })).statusCode, 204);
        assert.equal((await h.get(url)).statusCode, 404);
      }
    });

    it(`${kind.name}: of two writes holding the same ETag at once, exactly one succeeds and the other gets 412`, async () => {
      const url = await kind.make(h);
      const etag = await etagOf(url);
      const [first, second] = [await changeOf(kind), await changeOf(kind)];
      const statuses = (await Promise.all([first, second].map((body) => h.put(url, body, { headers: { 'if-match': etag } })))).map(
        (response) => response.statusCode,
      );
      assert.deepEqual(statuses.sort(), [204, 412]);
    });
  }

  it('If-Match compares strongly and accepts lists and *; malformed tags match nothing', async () => {
    const url = await KINDS[0]!.make(h);
    const etag = await etagOf(url);
    assert.equal((await h.put(url, { firstName: 'Weak' }, { headers: { 'if-match': `W/${etag}` } })).statusCode, 412);
    assert.equal((await h.put(url, { firstName: 'Unquoted' }, { headers: { 'if-match': etag.slice(1, -1) } })).statusCode, 412);
    assert.equal((await h.put(url, { firstName: 'Listed' }, { headers: { 'if-match': `"nope", ${etag}` } })).statusCode, 204);
    assert.equal((await h.put(url, { firstName: 'Any' }, { headers: { 'if-match': '*' } })).statusCode, 204);
    assert.equal((await h.get(url)).json().firstName, 'Any');
  });

  it('If-None-Match on a write: 412 when it names the current version, or * on an existing item', async () => {
    const url = await KINDS[0]!.make(h);
    const etag = await etagOf(url);
    assert.equal((await h.put(url, { firstName: 'No' }, { headers: { 'if-none-match': etag } })).statusCode, 412);
    assert.equal((await h.put(url, { firstName: 'No' }, { headers: { 'if-none-match': '*' } })).statusCode, 412);
    assert.equal((await h.delete(url, { headers: { 'if-none-match': '*' } })).statusCode, 412);
    assert.equal((await h.put(url, { firstName: 'Yes' }, { headers: { 'if-none-match': '"older"' } })).statusCode, 204);
  });

  it("preconditions on an item that does not exist: 404 as without them (RFC 9110 §13.2.1), another organization's alike", async () => {
    const missing = `users/${'0'.repeat(32)}`;
    assert.equal((await h.put(missing, { firstName: 'X' }, { headers: { 'if-match': '*' } })).statusCode, 404);
    assert.equal((await h.delete(missing, { headers: { 'if-match': '"x"' } })).statusCode, 404);
    const url = await KINDS[0]!.make(h);
    const etag = await etagOf(url);
    const other = await h.createOrganization('Other organization');
    const foreign = { token: other.token, headers: { 'if-match': etag } };
    assert.equal((await h.put(url, { firstName: 'Intruder' }, foreign)).statusCode, 404);
    assert.equal((await h.delete(url, foreign)).statusCode, 404);
    assert.equal((await h.get(url, { token: other.token, headers: { 'if-none-match': etag } })).statusCode, 404);
  });

  it('every PUT and DELETE of an item that does not exist answers with If-Match what it answers without (RFC 9110 §13.2.1)', async () => {
    const own = new Proxy({}, { get: () => UNKNOWN_ID }) as Record<string, string>;
    const routes = routeTable(h.app).api.filter(
      (route) => route.api === 'v5' && ['PUT', 'DELETE'].includes(route.method) && route.params.includes('id'),
    );
    assert.ok(routes.length > 10, `${routes.length} routes`);
    const differing: string[] = [];
    for (const route of routes) {
      const url = fillPath(route, (param) => (param === 'type' ? 'custom' : UNKNOWN_ID));
      const body = route.method === 'PUT' ? VALID_BODIES[route.key]?.(own) : undefined;
      const send = (headers: Record<string, string>) => h.request(route.method, url, body, { headers });
      const plain = (await send({})).statusCode;
      const conditional = (await send({ 'if-match': '"x"' })).statusCode;
      if (plain !== conditional || conditional !== 404)
        differing.push(`${route.method} ${route.url}: ${plain} without If-Match, ${conditional} with it`);
    }
    assert.deepEqual(differing, []);
  });

  it('an agreement a PUT defines: If-Match fails while it is undefined, If-None-Match: * lets only the first definition through', async () => {
    const url = 'agreements/custom';
    const body = { title: 'House rules', text: 'Be kind.' };
    assert.equal((await h.put(url, body, { headers: { 'if-match': '*' } })).statusCode, 412);
    assert.equal((await h.get(url)).statusCode, 404);
    assert.equal((await h.put(url, body, { headers: { 'if-none-match': '*' } })).statusCode, 204);
    assert.equal((await h.put(url, { text: 'Be very kind.' }, { headers: { 'if-none-match': '*' } })).statusCode, 412);
    const etag = await etagOf(url);
    assert.equal((await h.put(url, { text: 'Be very kind.' }, { headers: { 'if-match': etag } })).statusCode, 204);
    assert.equal((await h.get(url)).json().text, 'Be very kind.');
  });
});
