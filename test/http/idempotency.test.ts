import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CLAIM_LEASE_MS, KEY_RETENTION_MS, pruneIdempotencyKeys } from '../../src/idempotency/key-store.js';
import { forEachEngine, type Harness, type Response } from '../helpers/harness.js';

/** The keys' clock: the system's, moved forward by the tests that need a day to pass. */
let clockOffsetMs = 0;
const clock = () => Date.now() + clockOffsetMs;

const withKey = (key: string, token?: string) => ({ headers: { 'idempotency-key': key }, ...(token ? { token } : {}) });
const pathOf = (response: Response) => {
  const location = String(response.headers.location);
  return location.slice(location.indexOf('/api/v5'));
};

async function offeringsTitled(h: Harness, title: string, token?: string): Promise<string[]> {
  const response = await h.get('offerings', { query: { title, limit: '100' }, ...(token ? { token } : {}) });
  return response.json().results.map((offering: { id: string }) => offering.id);
}

async function keyRows(h: Harness): Promise<number> {
  const { count } = await h.database.db
    .selectFrom('idempotency_keys')
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

forEachEngine(
  'Idempotency-Key',
  (h) => {
    it('replays the first answer of a retried POST, with Idempotent-Replayed, and writes once', async () => {
      const first = await h.post('offerings', { title: 'Replayed', price: 10 }, withKey('retry-1'));
      assert.equal(first.statusCode, 201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      // The same body with its properties in another order is the same request.
      const again = await h.post('offerings', { price: 10, title: 'Replayed' }, withKey('retry-1'));
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.headers.location, first.headers.location);
      assert.equal(again.body, '');
      assert.equal(again.headers['content-length'], '0');
      assert.notEqual(again.headers['x-request-id'], first.headers['x-request-id']);
      assert.deepEqual(await offeringsTitled(h, 'Replayed'), [pathOf(first).split('/').pop()]);
    });

    it('changes nothing without the header', async () => {
      const first = await h.post('offerings', { title: 'Unkeyed' });
      const second = await h.post('offerings', { title: 'Unkeyed' });
      assert.equal(first.statusCode, 201);
      assert.equal(second.statusCode, 201);
      assert.notEqual(first.headers.location, second.headers.location);
      assert.equal(second.headers['idempotent-replayed'], undefined);
      assert.equal((await offeringsTitled(h, 'Unkeyed')).length, 2);
    });

    it('refuses the same key with another body or another path, and writes nothing', async () => {
      assert.equal((await h.post('offerings', { title: 'Mismatch' }, withKey('mismatch'))).statusCode, 201);
      for (const [collection, body] of [
        ['offerings', { title: 'Mismatch 2' }],
        ['offeringcategories', { name: 'Mismatch' }],
      ] as const) {
        const refused = await h.post(collection, body, withKey('mismatch'));
        assert.equal(refused.statusCode, 400);
        assert.match(refused.json().fieldErrors['Idempotency-Key'], /already used with another request/);
        assert.match(refused.json().message, /^Idempotency-Key: /);
      }
      assert.equal((await offeringsTitled(h, 'Mismatch 2')).length, 0);
      assert.equal((await h.get('offeringcategories', { query: { name: 'Mismatch' } })).json().results.length, 0);
    });

    it('refuses a key that is empty, too long or not printable ASCII', async () => {
      for (const key of ['', 'k'.repeat(256), 'tab\there']) {
        const refused = await h.post('offerings', { title: 'Bad key' }, withKey(key));
        assert.equal(refused.statusCode, 400, JSON.stringify(key));
        assert.equal(refused.json().fieldErrors['Idempotency-Key'], 'must be 1 to 255 printable ASCII characters');
      }
      assert.equal((await h.post('offerings', { title: 'Long key' }, withKey('~'.repeat(255)))).statusCode, 201);
      assert.equal((await offeringsTitled(h, 'Bad key')).length, 0);
    });

    it("keeps each organization's keys apart", async () => {
      const other = await h.createOrganization('Other keys');
      const ours = await h.post('offerings', { title: 'Shared key' }, withKey('shared'));
      const theirs = await h.post('offerings', { title: 'Shared key' }, withKey('shared', other.token));
      assert.equal(theirs.statusCode, 201);
      assert.equal(theirs.headers['idempotent-replayed'], undefined);
      assert.notEqual(theirs.headers.location, ours.headers.location);
      const oursAgain = await h.post('offerings', { title: 'Shared key' }, withKey('shared'));
      assert.equal(oursAgain.headers.location, ours.headers.location);
      // Another body under the key is another organization's business: it is refused there only.
      assert.equal((await h.post('offerings', { title: 'Their own' }, withKey('shared', other.token))).statusCode, 400);
      assert.equal((await offeringsTitled(h, 'Shared key', other.token)).length, 1);
      assert.equal((await offeringsTitled(h, 'Shared key')).length, 1);
    });

    it('makes one write of 20 concurrent POSTs with one key, and gives all of them its answer', async () => {
      const email = `concurrent-${h.engine}@example.com`;
      const answers = await Promise.all(Array.from({ length: 20 }, () => h.post('users', { email }, withKey('concurrent-user'))));
      const locations = new Set(answers.map((answer) => answer.headers.location));
      assert.deepEqual(
        answers.map((answer) => answer.statusCode),
        Array(20).fill(201),
      );
      assert.equal(locations.size, 1);
      assert.equal(answers.filter((answer) => answer.headers['idempotent-replayed'] === undefined).length, 1);
      const users = (await h.get('users', { query: { email } })).json().results;
      assert.deepEqual(
        users.map((user: { id: string }) => user.id),
        [
          String([...locations][0])
            .split('/')
            .pop(),
        ],
      );

      const offerings = await Promise.all(
        Array.from({ length: 20 }, () => h.post('offerings', { title: 'Concurrent' }, withKey('concurrent-offering'))),
      );
      assert.equal(new Set(offerings.map((answer) => `${answer.statusCode} ${answer.headers.location}`)).size, 1);
      assert.equal((await offeringsTitled(h, 'Concurrent')).length, 1);
    });

    it('forgets a key after 24 hours, and the periodic pruning deletes it', async () => {
      const first = await h.post('offerings', { title: 'Expiring' }, withKey('expiring'));
      clockOffsetMs += KEY_RETENTION_MS - 60_000;
      assert.equal((await h.post('offerings', { title: 'Expiring' }, withKey('expiring'))).headers['idempotent-replayed'], 'true');
      clockOffsetMs += 120_000;
      const later = await h.post('offerings', { title: 'Expiring' }, withKey('expiring'));
      assert.equal(later.statusCode, 201);
      assert.equal(later.headers['idempotent-replayed'], undefined);
      assert.notEqual(later.headers.location, first.headers.location);
      assert.equal((await offeringsTitled(h, 'Expiring')).length, 2);

      // Every key of the tests before this one is past its 24 hours by now; this one is fresh.
      await pruneIdempotencyKeys(h.database.db, clock());
      assert.equal(await keyRows(h), 1);
      clockOffsetMs += KEY_RETENTION_MS;
      await pruneIdempotencyKeys(h.database.db, clock());
      assert.equal(await keyRows(h), 0);
    });

    it('keeps nothing for a body that fails validation: the corrected retry with the same key runs', async () => {
      const refused = await h.post('offerings', { title: 'Corrected', price: -1 }, withKey('corrected'));
      assert.equal(refused.statusCode, 400);
      assert.ok(refused.json().fieldErrors.price);
      const corrected = await h.post('offerings', { title: 'Corrected', price: 1 }, withKey('corrected'));
      assert.equal(corrected.statusCode, 201);
      assert.equal(corrected.headers['idempotent-replayed'], undefined);
      assert.equal((await offeringsTitled(h, 'Corrected')).length, 1);
    });

    it('keeps a refusal by the handler (an email already in use) and replays it; another body with that key is a 400', async () => {
      const email = `taken-${h.engine}@example.com`;
      await h.create('users', { email });
      const refused = await h.post('users', { email }, withKey('taken'));
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json().fieldErrors.email, 'is already in use');
      const replayed = await h.post('users', { email }, withKey('taken'));
      assert.equal(replayed.statusCode, 400);
      assert.equal(replayed.headers['idempotent-replayed'], 'true');
      assert.match(String(replayed.headers['content-type']), /^application\/json/);
      assert.deepEqual(replayed.json(), refused.json());
      const other = await h.post('users', { email: `free-${h.engine}@example.com` }, withKey('taken'));
      assert.ok(other.json().fieldErrors['Idempotency-Key']);
    });

    it('replays a body with its answer (a new webhook, without its secret) under the alias base path too', async () => {
      const body = { url: 'https://hooks.example.com/in', events: ['user.created'] };
      const first = await h.post('/dc/api/v5/webhooks', body, withKey('webhook'));
      assert.equal(first.statusCode, 201);
      assert.match(String(first.headers.location), /\/dc\/api\/v5\/webhooks\/[0-9a-f]{32}$/);
      const { secret, ...webhook } = first.json();
      assert.match(secret, /^whsec_/);
      const again = await h.post('/dc/api/v5/webhooks', body, withKey('webhook'));
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.headers.location, first.headers.location);
      // The secret is shown once: the stored replay never held it.
      assert.deepEqual(again.json(), webhook);
      const stored = await h.database.db.selectFrom('idempotency_keys').select('body').where('key', '=', 'webhook').executeTakeFirstOrThrow();
      assert.ok(stored.body && !stored.body.includes(secret.slice('whsec_'.length)), stored.body ?? '');
      assert.equal((await h.get('webhooks')).json().results.length, 1);
      // The alias is another path: the key cannot be reused under /api/v5.
      assert.equal((await h.post('webhooks', body, withKey('webhook'))).statusCode, 400);
    });

    it('answers 409 while another request holds the key, and frees a key whose request never answered', async () => {
      const first = await h.post('offerings', { title: 'Abandoned' }, withKey('abandoned'));
      // As if the request were still running (or its server had died before answering).
      await h.database.db
        .updateTable('idempotency_keys')
        .set({ status: null, location: null, claimed_at: new Date(clock()).toISOString() })
        .where('key', '=', 'abandoned')
        .execute();
      const busy = await h.post('offerings', { title: 'Abandoned' }, withKey('abandoned'));
      assert.equal(busy.statusCode, 409);
      assert.equal(busy.headers['retry-after'], '1');
      assert.match(busy.json().errors[0], /still being processed/);

      clockOffsetMs += CLAIM_LEASE_MS + 1000;
      const retried = await h.post('offerings', { title: 'Abandoned' }, withKey('abandoned'));
      assert.equal(retried.statusCode, 201);
      assert.notEqual(retried.headers.location, first.headers.location);
      assert.equal((await h.post('offerings', { title: 'Abandoned' }, withKey('abandoned'))).headers.location, retried.headers.location);
    });
  },
  { idempotency: { clock, waitMs: 3000 } },
);
