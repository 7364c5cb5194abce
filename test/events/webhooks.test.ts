import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Webhook as Verifier } from 'standardwebhooks';
import { createUser, unique } from '../helpers/collections.js';
import { eventsAfter } from '../helpers/events.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { sleep } from '../helpers/load.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { GROUP_SCHEMA, ScimClient } from '../scim/scim-client.js';
import { EVENT_TYPES } from '../../src/events/event-types.js';

/** Fast retries and polling, http to loopback allowed: a real worker, on a test's time scale. */
export const TEST_WEBHOOKS = { allowInsecureLoopback: true, retryBaseMs: 100, timeoutMs: 3000, pollIntervalMs: 50 };

/** Each test starts without webhooks: one left by another would receive its events too. */
async function createWebhook(h: Harness, url: string, events: readonly string[] = EVENT_TYPES) {
  for (const webhook of (await h.get('webhooks', { query: { limit: '100' } })).json().results) {
    assert.equal((await h.delete(`webhooks/${webhook.id}`)).statusCode, 204);
  }
  const response = await h.post('webhooks', { url, events, description: 'Test receiver' });
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

      const expected = await eventsAfter(h, cursor);
      assert.equal(expected.length, 14);
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
      let deliveries: { status: string; attempts: unknown[] }[] = [];
      for (let i = 0; i < 200 && !(deliveries.length === expected.length && deliveries.every((d) => d.status === 'succeeded')); i++) {
        await sleep(50);
        deliveries = (await h.get(`webhooks/${id}/deliveries`, { query: { limit: '100' } })).json().results;
      }
      assert.equal(deliveries.length, expected.length);
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
      const [request] = receiver.of(ping.eventId) as [{ body: string; headers: Record<string, string>; event: any }];
      assert.equal(request.event.type, 'webhook.ping');
      new Verifier(secret).verify(request.body, request.headers);
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
      assert.equal((await h.put(`webhooks/${id}`, { disabled: false })).statusCode, 204);
      assert.equal((await h.get(`webhooks/${id}`)).json().disabled, false);
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
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

forEachEngine(
  'webhook addresses checked at delivery',
  (h) => {
    it('refuses to post to a name that resolves to a loopback address', async () => {
      const receiver = await WebhookReceiver.start();
      try {
        const port = new URL(receiver.url).port;
        const { id } = await createWebhook(h, `https://localhost:${port}/hooks`, ['user.created']);
        await createUser(h);
        let delivery: any;
        for (let i = 0; i < 400 && !delivery?.attempts.length; i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          delivery = (await h.get(`webhooks/${id}/deliveries`)).json().results[0];
        }
        assert.match(delivery.attempts[0].error, /localhost resolves to (127\.0\.0\.1|::1), a private, link-local or loopback address/);
        assert.equal(receiver.received.length, 0);
      } finally {
        await receiver.stop();
      }
    });
  },
  { events: { retentionDays: 30, webhooks: { ...TEST_WEBHOOKS, allowInsecureLoopback: false } } },
);
