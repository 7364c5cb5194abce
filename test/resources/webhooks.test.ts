import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Webhook as Verifier } from 'standardwebhooks';
import { createUser, unique } from '../helpers/collections.js';
import { eventsAfter } from '../helpers/events.js';
import { forEachEngine, type Harness, type RequestOptions } from '../helpers/harness.js';
import { eventually } from '../helpers/eventually.js';
import { LONG_HOST, storeWebhook, WebhookReceiver, type Received } from '../helpers/webhook-receiver.js';
import { GROUP_SCHEMA, ScimClient } from '../scim/scim-client.js';
import { EVENT_TYPES } from '../../src/events/event-types.js';

/** Fast retries and polling, http to loopback allowed: a real worker, on a test's time scale. */
export const TEST_WEBHOOKS = {
  allowInsecureLoopback: true,
  retryBaseMs: 100,
  timeoutMs: 3000,
  pollIntervalMs: 50,
  concurrency: 200,
  endpointConcurrency: 8,
};

/** Each test starts without webhooks: one left by another would receive its events too. */
async function createWebhook(h: Harness, url: string, events: readonly string[] = EVENT_TYPES, options: RequestOptions = {}) {
  for (const webhook of (await h.get('webhooks', { ...options, query: { limit: '100' } })).json().results) {
    assert.equal((await h.delete(`webhooks/${webhook.id}`, options)).statusCode, 204);
  }
  const response = await h.post('webhooks', { url, events, description: 'Test receiver' }, options);
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string; secret: string }>();
}

forEachEngine(
  'webhooks',
  (h) => {
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await WebhookReceiver.start();
    });
    after(() => receiver.stop());

    it('creates, lists, reads, updates and deletes webhooks; the secret is shown once', async () => {
      const response = await h.post('webhooks', { url: receiver.url, events: ['user.created'] });
      assert.equal(response.statusCode, 201);
      const created = response.json();
      assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
      assert.match(String(response.headers.location), new RegExp(`/api/v5/webhooks/${created.id}$`));
      const read = (await h.get(`webhooks/${created.id}`)).json();
      assert.deepEqual(read, {
        id: created.id,
        url: receiver.url,
        events: ['user.created'],
        disabled: false,
        createdDate: created.createdDate,
        updatedDate: created.updatedDate,
      });
      assert.ok((await h.get('webhooks', { query: { limit: '100' } })).json().results.some((w: { id: string }) => w.id === created.id));
      assert.equal((await h.put(`webhooks/${created.id}`, { events: ['user.deleted', 'user.created'], description: 'Mine' })).statusCode, 204);
      const updated = (await h.get(`webhooks/${created.id}`)).json();
      assert.deepEqual([updated.events, updated.description], [['user.deleted', 'user.created'], 'Mine']);
      assert.equal((await h.put(`webhooks/${created.id}`, { disabled: true })).statusCode, 204);
      assert.deepEqual((({ disabled, disabledReason }) => ({ disabled, disabledReason }))((await h.get(`webhooks/${created.id}`)).json()), {
        disabled: true,
        disabledReason: 'Disabled by PUT',
      });
      assert.equal((await h.delete(`webhooks/${created.id}`)).statusCode, 204);
      assert.equal((await h.get(`webhooks/${created.id}`)).statusCode, 404);
      assert.equal((await h.delete(`webhooks/${created.id}`)).statusCode, 404);
    });

    it('refuses URLs that are not https to a public address, unknown event types; needs a write token; keeps tenants apart', async () => {
      for (const url of [
        'http://example.com/hook',
        'ftp://example.com',
        'https://10.1.2.3/hook',
        'https://[fe80::1]/x',
        'https://169.254.169.254/',
        'https://u:p@example.com/',
        'nope',
      ]) {
        const refused = await h.post('webhooks', { url, events: ['user.created'] });
        assert.equal(refused.statusCode, 400, url);
        assert.ok(refused.json().fieldErrors.url, url);
      }
      assert.equal((await h.post('webhooks', { url: 'https://example.com/hook', events: ['user.exploded'] })).statusCode, 400);
      assert.equal((await h.post('webhooks', { url: 'https://example.com/hook', events: [] })).statusCode, 400);
      const reader = await h.token(h.org.id, { scopes: ['read'] });
      assert.equal((await h.post('webhooks', { url: 'https://example.com/hook', events: ['user.created'] }, { token: reader })).statusCode, 403);
      const { id } = await createWebhook(h, 'https://example.com/hook', ['offering.created']);
      assert.equal((await h.put(`webhooks/${id}`, { url: 'https://192.168.1.1/' })).statusCode, 400);
      const other = await h.createOrganization(unique('Other webhooks'));
      for (const response of [
        await h.get(`webhooks/${id}`, { token: other.token }),
        await h.put(`webhooks/${id}`, { description: 'x' }, { token: other.token }),
        await h.post(`webhooks/${id}/test`, {}, { token: other.token }),
        await h.get(`webhooks/${id}/deliveries`, { token: other.token }),
        await h.delete(`webhooks/${id}`, { token: other.token }),
      ]) {
        assert.equal(response.statusCode, 404);
      }
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it('refuses URLs holding control characters, and IPv4-compatible IPv6 literals (::10.0.0.1), on create and update', async () => {
      const { id } = await createWebhook(h, 'https://example.com/hook', ['offering.created']);
      for (const url of [
        'https://example.com/hook\r\nX-Injected: 1',
        'https://example.com/\nhook',
        'https://exa\tmple.com/',
        ' https://example.com/hook',
        'https://[::127.0.0.1]/',
        'https://[::a00:1]/',
        'https://[::10.0.0.1]/hook',
        'https://[::8.8.8.8]/',
      ]) {
        for (const refused of [await h.post('webhooks', { url, events: ['user.created'] }), await h.put(`webhooks/${id}`, { url })]) {
          assert.equal(refused.statusCode, 400, JSON.stringify(url));
          assert.equal(typeof refused.json().fieldErrors.url, 'string', JSON.stringify(url));
        }
      }
      assert.equal((await h.get(`webhooks/${id}`)).json().url, 'https://example.com/hook');
      assert.equal((await h.put(`webhooks/${id}`, { url: 'https://[2606:4700:4700::1111]/hook' })).statusCode, 204);
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it('delivers every event type once, signed so that the standardwebhooks package verifies it', async () => {
      const { id, secret } = await createWebhook(h, receiver.url);
      const verifier = new Verifier(secret);
      const start = receiver.received.length;
      const cursor = (await eventsAfter(h)).at(-1)?.id;
      const userId = await createUser(h);
      const categoryId = await h.create('userfieldcategories', { name: unique('Profile'), type: 'public' });
      const fieldId = await h.create('userfields', { type: 'text', name: 'Job', categoryId });
      await h.put(`users/${userId}`, { firstName: 'Ada' });
      await h.put(`users/${userId}/userfieldvalues`, { [fieldId]: 'Engineer' });
      await h.put(`users/${userId}/agreements/standard`, { agreed: true });
      const offeringId = await h.create('offerings', { title: 'Course' });
      await h.put(`offerings/${offeringId}`, { title: 'Course 2' });
      const first = await h.create('registrations', { userId, offeringId });
      await h.put(`registrations/${first}`, { status: 'ejected' });
      const second = await h.create('registrations', { userId, offeringId });
      await h.put(`registrations/${second}`, { grade: 90 });
      await h.delete(`users/${await createUser(h)}`);
      await h.delete(`offerings/${await h.create('offerings', { title: 'Bare' })}`);
      await h.put(`userfieldcategories/${categoryId}`, { name: unique('Renamed') });
      await h.put(`userfields/${fieldId}`, { name: 'Role' });
      const offeringCategoryId = await h.create('offeringcategories', { name: unique('Topic') });
      await h.put(`offeringcategories/${offeringCategoryId}`, { name: unique('Subject') });
      await h.delete(`offeringcategories/${offeringCategoryId}`);
      await h.put('agreements/standard', { title: unique('Terms') });
      await h.delete(`userfields/${fieldId}`); // and the user's value of it
      await h.delete(`userfieldcategories/${categoryId}`);

      const expected = await eventsAfter(h, cursor);
      assert.equal(expected.length, 26);
      await receiver.until(() => expected.every((event: { id: string }) => receiver.of(event.id).length > 0), 'every event');
      const got = receiver.received.slice(start);
      assert.deepEqual(new Set(got.map((request) => request.event.type)), new Set(EVENT_TYPES));
      for (const event of expected) {
        const requests = receiver.of(event.id);
        assert.equal(requests.length, 1, `${event.type} delivered once`);
        const [request] = requests as [(typeof requests)[0]];
        assert.deepEqual(verifier.verify(request.body, request.headers as Record<string, string>), event);
        assert.equal(request.headers['webhook-id'], event.id);
        assert.equal(request.headers['content-type'], 'application/json');
      }
      // A forged body fails verification.
      const sample = receiver.of(expected[0].id)[0]!;
      assert.throws(() => verifier.verify(sample.body.replace('"', ' "'), sample.headers as Record<string, string>));
      // The receiver may have answered before the worker recorded its answer.
      const deliveries = await eventually(
        async () => {
          const listed: { status: string; attempts: unknown[] }[] = (await h.get(`webhooks/${id}/deliveries`, { query: { limit: '100' } })).json()
            .results;
          return listed.length === expected.length && listed.every((d) => d.status === 'succeeded') && listed;
        },
        { what: 'every delivery recorded as succeeded' },
      );
      assert.ok(deliveries.every((delivery) => delivery.status === 'succeeded' && delivery.attempts.length === 1));
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it('retries with backoff: a receiver that fails three times gets the event exactly once more', async () => {
      const { id } = await createWebhook(h, receiver.url, ['offering.created']);
      let failures = 0;
      receiver.answer = (request) => (request.event.data.title === 'Retried' && failures++ < 3 ? 500 : 204);
      const offeringId = await h.create('offerings', { title: 'Retried' });
      const event = (await eventsAfter(h)).find((e) => e.data.id === offeringId);
      await receiver.until(() => receiver.of(event.id).length === 4, 'the fourth attempt');
      const [delivery] = (await h.get(`webhooks/${id}/deliveries`)).json().results;
      assert.equal(delivery.eventId, event.id);
      // The answer to the fourth attempt may still be on its way into the database.
      let final = delivery;
      for (let i = 0; i < 100 && final.status === 'pending'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        final = (await h.get(`webhooks/${id}/deliveries`)).json().results[0];
      }
      assert.equal(final.status, 'succeeded');
      assert.deepEqual(
        final.attempts.map((attempt: { statusCode: number }) => attempt.statusCode),
        [500, 500, 500, 204],
      );
      assert.equal(receiver.of(event.id).length, 4);
      receiver.answer = () => 204;
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it('sends a ping on test, lists it among the deliveries, and resends a delivery with the same webhook-id', async () => {
      const { id, secret } = await createWebhook(h, receiver.url, ['user.created']);
      const test = await h.post(`webhooks/${id}/test`, {});
      assert.equal(test.statusCode, 202);
      const ping = test.json();
      assert.equal(ping.eventType, 'webhook.ping');
      await receiver.until(() => receiver.of(ping.eventId).length === 1, 'the ping');
      const [request] = receiver.of(ping.eventId) as [Received];
      assert.equal(request.event.type, 'webhook.ping');
      new Verifier(secret).verify(request.body, request.headers as Record<string, string>);
      const resend = await h.post(`webhooks/${id}/deliveries/${ping.id}/resend`, {});
      assert.equal(resend.statusCode, 202);
      await receiver.until(() => receiver.of(ping.eventId).length === 2, 'the resent ping');
      assert.equal((await h.post(`webhooks/${id}/deliveries/${'0'.repeat(32)}/resend`, {})).statusCode, 404);
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it('disables an endpoint whose every attempt failed for 24 hours, and says so', async () => {
      const { id } = await createWebhook(h, receiver.url, ['offering.updated']);
      receiver.answer = (request) => (request.event.type === 'offering.updated' ? 503 : 204);
      await h.database.db
        .updateTable('webhooks')
        .set({ failing_since: new Date(Date.now() - 25 * 3_600_000).toISOString() })
        .where('id', '=', id)
        .execute();
      const offeringId = await h.create('offerings', { title: 'Never delivered' });
      await h.put(`offerings/${offeringId}`, { title: 'Still not' });
      let webhook = (await h.get(`webhooks/${id}`)).json();
      for (let i = 0; i < 400 && !webhook.disabled; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        webhook = (await h.get(`webhooks/${id}`)).json();
      }
      assert.equal(webhook.disabled, true);
      assert.equal(webhook.disabledReason, 'Every delivery attempt failed for 24 hours (the last: HTTP 503)');
      assert.equal((await h.post(`webhooks/${id}/test`, {})).statusCode, 400);
      receiver.answer = () => 204;
      // Its two deliveries are still pending: nothing was missed.
      const enabled = await h.put(`webhooks/${id}`, { disabled: false });
      assert.equal(enabled.statusCode, 200);
      assert.deepEqual([enabled.json().disabled, enabled.json().missedEvents], [false, 0]);
      assert.equal((await h.get(`webhooks/${id}`)).json().disabled, false);
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it("delivers one resource's events in commit order: a later one waits while an earlier one is retried, other resources do not", async () => {
      const { id } = await createWebhook(h, receiver.url, ['user.created', 'user.updated']);
      const [slow, other] = [await createUser(h), await createUser(h)];
      await receiver.until(() => [slow, other].every((user) => receiver.received.some((r) => r.event.data.id === user)), 'both creations');
      let failures = 0;
      receiver.answer = (request) => (request.event.data.firstName === 'First' && failures++ < 3 ? 500 : 204);
      const start = receiver.received.length;
      await h.put(`users/${slow}`, { firstName: 'First' });
      await h.put(`users/${slow}`, { firstName: 'Second' });
      await h.put(`users/${other}`, { firstName: 'Other' });
      await receiver.until(() => receiver.received.some((r) => r.event.data.firstName === 'Second' && r.status === 204), 'the second update');
      const arrivals = receiver.received.slice(start).map((r) => `${r.event.data.firstName}:${r.status}`);
      assert.deepEqual(
        arrivals.filter((arrival) => !arrival.startsWith('Other')),
        ['First:500', 'First:500', 'First:500', 'First:204', 'Second:204'],
      );
      // The other user's update went out while the first one was being retried.
      assert.ok(arrivals.indexOf('Other:204') < arrivals.indexOf('First:204'), arrivals.join(', '));
      receiver.answer = () => 204;
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it('releases the next delivery of a resource once the earlier one fails for good', async () => {
      const { id } = await createWebhook(h, receiver.url, ['offering.created', 'offering.updated']);
      receiver.answer = (request) => (request.event.type === 'offering.created' ? 503 : 204);
      const offeringId = await h.create('offerings', { title: 'Refused' });
      await h.put(`offerings/${offeringId}`, { title: 'Then accepted' });
      await receiver.until(() => receiver.received.some((r) => r.event.data.id === offeringId && r.status === 503), 'the first refusal');
      const waiting = (await h.get(`webhooks/${id}/deliveries`)).json().results;
      assert.deepEqual(
        waiting.map((delivery: { eventType: string; status: string; nextAttemptDate?: string }) => [
          delivery.eventType,
          delivery.status,
          delivery.nextAttemptDate !== undefined,
        ]),
        [
          ['offering.updated', 'pending', false],
          ['offering.created', 'pending', true],
        ],
      );
      // Its day of retries is over: the next failure is the last.
      await h.database.db
        .updateTable('webhook_deliveries')
        .set({ give_up_at: new Date(Date.now() - 1000).toISOString() })
        .where('webhook_id', '=', id)
        .where('event_type', '=', 'offering.created')
        .execute();
      await receiver.until(() => receiver.received.some((r) => r.event.type === 'offering.updated' && r.event.data.id === offeringId), 'the update');
      const statuses = (await h.get(`webhooks/${id}/deliveries`)).json().results.map((delivery: { status: string }) => delivery.status);
      assert.equal(statuses[1], 'failed');
      receiver.answer = () => 204;
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it('recovers what a disabled webhook missed: enabling it counts the events, recover queues exactly those since then', async () => {
      // An organization of its own: \`since\` is whole seconds, so events other tests made in the same second would be queued too.
      const own = { token: (await h.createOrganization(unique('Recovery'))).token };
      const { id } = await createWebhook(h, receiver.url, ['user.created', 'user.updated'], own);
      const known = await createUser(h, own);
      await receiver.until(() => receiver.received.some((r) => r.event.data.id === known), 'the first user');
      assert.equal((await h.put(`webhooks/${id}`, { disabled: true }, own)).statusCode, 204);
      const cursor = (await eventsAfter(h, undefined, own.token)).at(-1)?.id;
      await createUser(h, own);
      await h.put(`users/${known}`, { firstName: 'Missed' }, own);
      await h.create('offerings', { title: 'Not subscribed' }, own);
      const missed = (await eventsAfter(h, cursor, own.token)).filter((event) => event.type.startsWith('user.'));
      assert.equal(missed.length, 2);

      const enabled = await h.put(`webhooks/${id}`, { disabled: false }, own);
      assert.equal(enabled.statusCode, 200);
      const { missedEvents, recover, disabled } = enabled.json();
      assert.deepEqual([missedEvents, disabled], [2, false]);
      assert.match(recover.url, new RegExp(`^https?://[^/]+/api/v5/webhooks/${id}/recover$`));
      assert.match(recover.body.since, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      // Nothing missed was queued while the webhook was disabled, so nothing arrives by itself.
      const queued = (await h.get(`webhooks/${id}/deliveries`, { ...own, query: { limit: '100' } })).json().results;
      assert.deepEqual(
        missed.filter((event) => queued.some((delivery: { eventId: string }) => delivery.eventId === event.id)),
        [],
      );

      const recovered = await h.post(`webhooks/${id}/recover`, recover.body, own);
      assert.equal(recovered.statusCode, 202, recovered.body);
      assert.deepEqual(recovered.json(), { queued: 2, since: recover.body.since });
      await receiver.until(() => missed.every((event) => receiver.of(event.id).length === 1), 'the missed events');
      // Two resources: in either order.
      const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
      assert.deepEqual(
        receiver.received
          .filter((r) => missed.some((event) => event.id === r.event.id))
          .map((r) => JSON.parse(r.body))
          .sort(byId),
        [...missed].sort(byId),
      );
      // Everything since then is delivered or on its way: nothing more to queue.
      assert.deepEqual((await h.post(`webhooks/${id}/recover`, recover.body, own)).json(), { queued: 0, since: recover.body.since });

      // A delivery that failed for good is queued again, under the same webhook-id.
      await eventually(
        async () => {
          const delivered: { eventId: string; status: string }[] = (await h.get(`webhooks/${id}/deliveries`, own)).json().results;
          return missed.every((event) => delivered.some((d) => d.eventId === event.id && d.status === 'succeeded'));
        },
        { what: 'the missed events recorded as delivered' },
      );
      await h.database.db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed' })
        .where('webhook_id', '=', id)
        .where('event_id', '=', missed[0].id)
        .execute();
      assert.deepEqual((await h.post(`webhooks/${id}/recover`, recover.body, own)).json(), { queued: 1, since: recover.body.since });
      await receiver.until(() => receiver.of(missed[0].id).length === 2, 'the event whose delivery had failed');
      assert.equal((await h.delete(`webhooks/${id}`, own)).statusCode, 204);
    });

    it('refuses a recovery from the future, in another form or beyond the retention; needs a write token; keeps tenants apart', async () => {
      // An organization of its own: the recoveries accepted below queue its past hour of events, and nobody else's.
      const owner = await h.createOrganization(unique('Recoveries'));
      const own = { token: owner.token };
      const { id } = await createWebhook(h, receiver.url, ['user.created'], own);
      const at = (ms: number) => new Date(Date.now() + ms).toISOString().slice(0, 19) + 'Z';
      for (const [since, problem] of [
        [at(3_600_000), /^must not be in the future$/],
        ['yesterday', /^must be a timestamp such as 2013-10-23T00:48:50Z/],
        ['2025-02-30T00:00:00Z', /^must be a timestamp such as 2013-10-23T00:48:50Z/],
        [at(-31 * 86_400_000), /^must be \S+ or later: events are kept 30 days \(EVENTS_RETENTION_DAYS\), and older ones are gone$/],
        [12, /./],
      ] as const) {
        const refused = await h.post(`webhooks/${id}/recover`, { since }, own);
        assert.equal(refused.statusCode, 400, String(since));
        assert.deepEqual(Object.keys(refused.json().fieldErrors), ['since'], String(since));
        assert.match(refused.json().fieldErrors.since, problem, String(since));
      }
      assert.deepEqual(Object.keys((await h.post(`webhooks/${id}/recover`, {}, own)).json().fieldErrors), ['since']);
      assert.equal((await h.post(`webhooks/${id}/recover`, { since: at(-60_000), until: at(0) }, own)).statusCode, 400);

      const since = at(-3_600_000);
      const other = await h.createOrganization(unique('Other recoveries'));
      assert.equal((await h.post(`webhooks/${id}/recover`, { since }, { token: other.token })).statusCode, 404);
      assert.equal((await h.post(`webhooks/${'0'.repeat(32)}/recover`, { since }, own)).statusCode, 404);
      assert.equal((await h.post('webhooks/nope/recover', { since }, own)).statusCode, 404);
      const reader = await h.token(owner.id, { scopes: ['read'] });
      assert.equal((await h.post(`webhooks/${id}/recover`, { since }, { token: reader })).statusCode, 403);

      // An offset is taken to UTC, and a retry with the same Idempotency-Key gets the first answer again.
      const headers = { 'idempotency-key': unique('recover') };
      const local = new Date(Date.parse(since) + 7_200_000).toISOString().slice(0, 19) + '+02:00';
      const first = await h.post(`webhooks/${id}/recover`, { since: local }, { ...own, headers });
      assert.equal(first.statusCode, 202, first.body);
      const replay = await h.post(`webhooks/${id}/recover`, { since: local }, { ...own, headers });
      assert.equal(replay.statusCode, 202);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual(replay.json(), first.json());
      assert.equal(first.json().since, since);
      assert.equal((await h.delete(`webhooks/${id}`, own)).statusCode, 204);
    });

    it('sends nothing for a change whose transaction rolled back', async () => {
      const { id } = await createWebhook(h, receiver.url, ['user.updated', 'offering.created']);
      const userId = await createUser(h);
      const scim = await ScimClient.of(h);
      const refused = await scim.post('/Groups', {
        schemas: [GROUP_SCHEMA],
        displayName: unique('Rolled back'),
        members: [{ value: userId }, { value: '0'.repeat(32) }],
      });
      assert.equal(refused.statusCode, 400);
      // A later change as a barrier: deliveries go out in the order they were queued.
      const barrier = await h.create('offerings', { title: 'Barrier' });
      await receiver.until(() => receiver.received.some((request) => request.event.data.id === barrier), 'the barrier');
      const deliveries = (await h.get(`webhooks/${id}/deliveries`)).json().results;
      assert.deepEqual(
        deliveries.map((delivery: { eventType: string }) => delivery.eventType),
        ['offering.created'],
      );
      assert.ok(!receiver.received.some((request) => request.event.type === 'user.updated' && request.event.data.id === userId));
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });
  },
  { events: { retentionDays: 30, webhooks: TEST_WEBHOOKS } },
);

/** The first attempt of the webhook's newest delivery, once there is one. */
async function firstAttempt(h: Harness, webhookId: string): Promise<{ error?: string; statusCode?: number }> {
  let attempt: { error?: string; statusCode?: number } | undefined;
  await eventually(
    async () => {
      attempt = (await h.get(`webhooks/${webhookId}/deliveries`)).json().results[0]?.attempts[0];
      return attempt !== undefined;
    },
    { what: `an attempt of webhook ${webhookId}` },
  );
  return attempt!;
}

forEachEngine(
  'webhook addresses',
  (h) => {
    it('refuses at save, saying why, the names deliveries could never reach: too long, loopback, private, or with user information', async () => {
      const { id } = await createWebhook(h, 'https://example.com/hook', ['offering.created']);
      const loopback = /is a loopback (name|address) \(set WEBHOOKS_ALLOW_INSECURE_LOOPBACK=true to allow loopback/;
      const refusals: [string, RegExp][] = [
        [`https://${LONG_HOST}/hook`, /^must have a host name of at most 253 characters \(this one has 271\)$/],
        [`https://${'a'.repeat(64)}.example.com/`, /labels \(the parts between dots\) are at most 63 characters each \(one has 64\)/],
        ['https://a..example.com/', /without empty labels/],
        ['https://LOCALHOST/hook', loopback],
        ['https://localhost./hook', loopback],
        ['https://LocalHost.:8443/hook', loopback],
        ['https://hooks.localhost/', loopback],
        ['https://ip6-localhost/hook', loopback],
        ['https://ip6-loopback/hook', loopback],
        ['http://127.0.0.1:8080/hook', loopback],
        ['https://127.0.0.1/hook', loopback],
        ['https://[::1]/hook', loopback],
        ['https://metadata.google.internal/computeMetadata/v1/', /\.internal is not public/],
        ['https://hooks.INTERNAL./', /\.internal is not public/],
        ['https://printer.local/', /\.local is not public/],
        ['https://router.home.arpa/', /\.home\.arpa is not public/],
        [
          'https://example.com\\@127.0.0.1/',
          /^must not hold a user name or password: "example\.com\\@127\.0\.0\.1" has an @, and some clients would post to 127\.0\.0\.1$/,
        ],
        ['https://@example.com/', /user name or password/],
        ['https://:@example.com/', /user name or password/],
        ['https://example.com/a\\b', /backslash/],
      ];
      for (const [url, reason] of refusals) {
        for (const refused of [await h.post('webhooks', { url, events: ['user.created'] }), await h.put(`webhooks/${id}`, { url })]) {
          assert.equal(refused.statusCode, 400, url);
          assert.match(refused.json().fieldErrors.url, reason, url);
        }
      }
      assert.equal((await h.get(`webhooks/${id}`)).json().url, 'https://example.com/hook');
      const longest = `https://${['a', 'b', 'c'].map((letter) => letter.repeat(63)).join('.')}.${'d'.repeat(61)}/`;
      assert.equal(new URL(longest).hostname.length, 253);
      assert.equal((await h.put(`webhooks/${id}`, { url: longest })).statusCode, 204);
      assert.equal((await h.put(`webhooks/${id}`, { url: 'https://internal.example.com./hook' })).statusCode, 204);
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it('refuses at delivery a stored URL whose host name is too long, before any connection is made', async () => {
      await createWebhook(h, 'https://example.com/hook', ['offering.created']);
      const id = await storeWebhook(h.database.db, h.org.id, `https://${LONG_HOST}/hook`, ['user.created']);
      await createUser(h);
      const attempt = await firstAttempt(h, id);
      assert.equal(attempt.error, 'The URL is refused: it must have a host name of at most 253 characters (this one has 271)');
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it('refuses to post to a name that resolves to a loopback address', async () => {
      const receiver = await WebhookReceiver.start();
      try {
        await createWebhook(h, 'https://example.com/hook', ['offering.created']);
        // A public name pointing at loopback is found out only by resolving it, as `localhost` is at delivery (saving it is refused).
        const id = await storeWebhook(h.database.db, h.org.id, `https://localhost:${new URL(receiver.url).port}/hooks`, ['user.created']);
        await createUser(h);
        const attempt = await firstAttempt(h, id);
        assert.match(attempt.error!, /^localhost resolves to (127\.0\.0\.1|::1), a private, link-local or loopback address$/);
        assert.equal(receiver.received.length, 0);
        assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
      } finally {
        await receiver.stop();
      }
    });
  },
  { events: { retentionDays: 30, webhooks: { ...TEST_WEBHOOKS, allowInsecureLoopback: false } } },
);
