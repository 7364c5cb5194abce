import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Webhook as Verifier } from 'standardwebhooks';
import { signedInAs, textOf, valueOf } from '../helpers/console-sign-in.js';
import { eventsAfter, latestEventId } from '../helpers/events.js';
import { forEachEngine } from '../helpers/harness.js';
import type { PageBrowser, PageReply } from '../helpers/pages.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/** Fast retries and polling, http to loopback allowed: a real worker, on a test's time scale. */
const WEBHOOKS = { allowInsecureLoopback: true, retryBaseMs: 100, timeoutMs: 3000, pollIntervalMs: 50, concurrency: 20, endpointConcurrency: 4 };

/** A delivery as GET /webhooks/{id}/deliveries lists it, as far as these tests read it. */
interface ApiDelivery {
  id: string;
  status: string;
  attempts: { statusCode?: number }[];
}
const secretOf = (reply: PageReply) => /<code class="secret" id="secret">(whsec_[^<]+)<\/code>/.exec(reply.body)?.[1];

forEachEngine(
  'Console: webhooks',
  (h) => {
    let admin: PageBrowser;
    let receiver: WebhookReceiver;
    let section: string;

    before(async () => {
      receiver = await WebhookReceiver.start();
      ({ browser: admin } = await signedInAs(h, 'organizationAdministrator'));
      section = `/o/${h.org.id}/console/webhooks`;
    });
    after(() => receiver.stop());

    /** Creates an endpoint through the console's form; its id and the secret the page showed. */
    async function createEndpoint(events: string[], url = receiver.url): Promise<{ id: string; secret: string; page: PageReply }> {
      const page = await admin.post(section, { url, description: 'Receiver', events });
      assert.equal(page.status, 201, textOf(page).slice(0, 500));
      const id = /action="[^"]*\/webhooks\/([0-9a-f]{32})\/test"/.exec(page.body)![1]!;
      return { id, secret: secretOf(page)!, page };
    }

    it('is for organization administrators: a course administrator and a learner get 403 and change nothing', async () => {
      for (const kind of ['courseAdministrator', 'learner'] as const) {
        const { browser } = await signedInAs(h, kind);
        assert.equal((await browser.get(section)).status, 403, kind);
        assert.equal((await browser.post(section, { url: receiver.url, events: 'user.created' })).status, 403, kind);
      }
      assert.deepEqual((await h.get('webhooks')).json().results, []);
      assert.equal((await admin.get(section)).status, 200);
    });

    it('creates an endpoint with its event types as the API does, shows its secret once, and emits no event', async () => {
      const cursor = await latestEventId(h);
      const { id, secret, page } = await createEndpoint(['user.created', 'user.deleted']);
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
      assert.match(page.body, /data-copy="#secret"/);
      const webhook = (await h.get(`webhooks/${id}`)).json();
      assert.deepEqual(
        [webhook.url, webhook.events, webhook.description, webhook.disabled],
        [receiver.url, ['user.created', 'user.deleted'], 'Receiver', false],
      );
      assert.deepEqual(await eventsAfter(h, cursor), []);
      const again = await admin.get(`${section}/${id}`);
      assert.equal(again.status, 200);
      assert.ok(!again.body.includes(secret), 'the secret is shown once');
      assert.match(textOf(await admin.get(section)), new RegExp(`${receiver.url} Receiver 2 types no attempt none active`));
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it('refuses bad input with 400 and the form kept, and a URL the API refuses with the API’s reason', async () => {
      const none = await admin.post(section, { url: receiver.url, description: 'Kept' });
      assert.equal(none.status, 400);
      assert.match(textOf(none), /must be a list of distinct event types/);
      assert.equal(valueOf(none, 'new-url'), receiver.url);
      assert.equal(valueOf(none, 'new-description'), 'Kept');
      assert.match(none.body, /id="new-events"[^>]*aria-invalid="true"/);
      for (const url of ['https://10.1.2.3/hooks', 'https://printer.local/hooks', 'ftp://hooks.example.com/x', 'not a url']) {
        const api = await h.post('webhooks', { url, events: ['user.created'] });
        assert.equal(api.statusCode, 400, url);
        const reason = api.json().fieldErrors.url as string;
        const refused = await admin.post(section, { url, events: 'user.created' });
        assert.equal(refused.status, 400, url);
        assert.ok(textOf(refused).includes(reason), `${url}: ${reason}`);
        assert.match(refused.body, /id="new-url"[^>]*aria-invalid="true"/);
        assert.equal(valueOf(refused, 'new-url'), url);
        assert.match(refused.body, /value="user.created"\s+checked/);
      }
      assert.deepEqual((await h.get('webhooks')).json().results, []);
    });

    it("shows a failing endpoint's deliveries with status, duration and the start of the answer, and resends one", async () => {
      receiver.answer = () => 503;
      const { id } = await createEndpoint(['user.created']);
      const userId = await h.create('users', { email: 'failing.delivery@example.com', firstName: 'Grace' });
      await receiver.until(() => receiver.received.some((r) => r.event.data.id === userId && r.status === 503), 'a refused delivery');
      // The receiver has answered; the worker records the attempt just after.
      await eventuallyDelivery(id, (delivery) => delivery.attempts.some((attempt) => attempt.statusCode === 503), 'a refused attempt');
      const page = await admin.get(`${section}/${id}`);
      const row = /<tr>\s*<td><span id="delivery-([0-9a-f]{32})">[\s\S]*?<\/tr>/.exec(page.body)!;
      const deliveryId = row[1]!;
      const cells = textOf({ ...page, body: row[0] });
      assert.match(cells, /user\.created (pending|failed) \d+ 503 \d+ ms not now/);
      assert.match(textOf(page), /Success 0% of \d+ attempts?/);

      receiver.answer = () => 204;
      // The worker may have retried and succeeded by now, or still be retrying; a resend queues it again either way.
      const resent = await admin.post(`${section}/${id}/deliveries/${deliveryId}/resend`, {});
      assert.equal(resent.status, 303);
      assert.match(resent.location!, new RegExp(`done=resent#delivery-${deliveryId}$`));
      await receiver.until(() => receiver.received.some((r) => r.event.data.id === userId && r.status === 204), 'the resent delivery');
      const delivery = await eventuallyDelivery(
        id,
        (found) => found.id === deliveryId && found.status === 'succeeded',
        'the resent delivery succeeded',
      );
      assert.equal(delivery.attempts.at(-1)?.statusCode, 204);
      const after = textOf(await admin.get(`${section}/${id}`));
      assert.match(after, /The delivery is queued again|Health over/);
      assert.match(after, /Success \d+% of \d+ attempts/);
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    /** The endpoint's first delivery, as the API reads it, that `accepts`, once there is one. */
    async function eventuallyDelivery(webhookId: string, accepts: (delivery: ApiDelivery) => boolean, what: string) {
      for (let tries = 0; ; tries += 1) {
        const { results } = (await h.get(`webhooks/${webhookId}/deliveries`, { query: { limit: '100' } })).json<{ results: ApiDelivery[] }>();
        const found = results.find(accepts);
        if (found) return found;
        if (tries > 300) throw new Error(`no delivery: ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }

    it('sends a test event, and a new signing secret signs the deliveries from then on', async () => {
      receiver.answer = () => 204;
      const { id, secret } = await createEndpoint(['user.created']);
      assert.equal((await admin.post(`${section}/${id}/test`, {})).status, 303);
      await receiver.until(() => receiver.received.some((r) => r.event.type === 'webhook.ping' && r.event.data.webhookId === id), 'the ping');
      const first = receiver.received.find((r) => r.event.type === 'webhook.ping' && r.event.data.webhookId === id)!;
      new Verifier(secret).verify(first.body, first.headers as Record<string, string>);

      const rotated = await admin.post(`${section}/${id}/rotate`, {});
      assert.equal(rotated.status, 200);
      const renewed = secretOf(rotated)!;
      assert.match(renewed, /^whsec_/);
      assert.notEqual(renewed, secret);
      assert.match(textOf(rotated), /new signing secret/);
      assert.equal((await h.get(`webhooks/${id}`)).json().secret, undefined);
      const before = receiver.received.length;
      assert.equal((await admin.post(`${section}/${id}/test`, {})).status, 303);
      await receiver.until(() => receiver.received.slice(before).some((r) => r.event.type === 'webhook.ping'), 'the second ping');
      const second = receiver.received.slice(before).find((r) => r.event.type === 'webhook.ping')!;
      new Verifier(renewed).verify(second.body, second.headers as Record<string, string>);
      assert.throws(() => new Verifier(secret).verify(second.body, second.headers as Record<string, string>));
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it('disables and enables an endpoint, says what it missed, and recovers it since a moment', async () => {
      receiver.answer = () => 204;
      const { id } = await createEndpoint(['user.created']);
      const disabled = await admin.post(`${section}/${id}/state`, { disabled: 'true' });
      assert.equal(disabled.status, 303);
      const page = await admin.get(disabled.location!);
      assert.match(textOf(page), /The endpoint is disabled/);
      assert.match(textOf(page), /State disabled .* Disabled by PUT/);
      assert.match(page.body, /<button type="submit" class="secondary"\s+disabled>\s*Send a test event/);
      const refused = await admin.post(`${section}/${id}/test`, {});
      assert.equal(refused.status, 400);
      assert.match(textOf(refused), /The webhook is disabled/);

      const missed = await h.create('users', { email: 'missed.while.disabled@example.com' });
      const enabled = await admin.post(`${section}/${id}/state`, { disabled: 'false' });
      assert.equal(enabled.status, 303);
      const since = new URL(enabled.location!, 'https://x').searchParams.get('since')!;
      const told = await admin.get(enabled.location!);
      // Events of the second it was disabled in count too (the service's moments are to the second).
      const count = Number(
        new RegExp(`(\\d+) events? of its types made while it was disabled, since ${since}, had no delivery queued`).exec(textOf(told))?.[1],
      );
      assert.ok(count >= 1, textOf(told));
      assert.equal(valueOf(told, 'recover-since'), since.slice(0, 19));

      const badSince = await admin.post(`${section}/${id}/recover`, { since: 'yesterday-ish' });
      assert.equal(badSince.status, 400);
      assert.equal(valueOf(badSince, 'recover-since'), 'yesterday-ish');
      assert.match(badSince.body, /id="recover-since"[^>]*aria-invalid="true"/);
      const future = await admin.post(`${section}/${id}/recover`, { since: '2999-01-01T00:00' });
      assert.equal(future.status, 400);
      assert.match(textOf(future), /must not be in the future/);

      const recovered = await admin.post(`${section}/${id}/recover`, { since: since.slice(0, 19) });
      assert.equal(recovered.status, 303);
      assert.match(textOf(await admin.get(recovered.location!)), new RegExp(`${count} events? since ${since} (is|are) queued again`));
      await receiver.until(() => receiver.received.some((r) => r.event.data.id === missed), 'the recovered event');
      assert.equal((await h.delete(`webhooks/${id}`)).statusCode, 204);
    });

    it('changes and deletes an endpoint through the service, keeping a refused change in its form', async () => {
      const { id } = await createEndpoint(['user.created']);
      const saved = await admin.post(`${section}/${id}`, { url: receiver.url, description: '', events: ['offering.created', 'offering.updated'] });
      assert.equal(saved.status, 303);
      const webhook = (await h.get(`webhooks/${id}`)).json();
      assert.deepEqual([webhook.events, webhook.description], [['offering.created', 'offering.updated'], undefined]);
      const refused = await admin.post(`${section}/${id}`, { url: 'https://10.0.0.1/x', description: 'Typed', events: 'user.updated' });
      assert.equal(refused.status, 400);
      assert.equal(valueOf(refused, 'edit-url'), 'https://10.0.0.1/x');
      assert.equal(valueOf(refused, 'edit-description'), 'Typed');
      assert.deepEqual((await h.get(`webhooks/${id}`)).json().events, ['offering.created', 'offering.updated']);

      const deleted = await admin.post(`${section}/${id}/delete`, {});
      assert.equal(deleted.status, 303);
      assert.match(textOf(await admin.get(deleted.location!)), /The endpoint is deleted/);
      assert.equal((await h.get(`webhooks/${id}`)).statusCode, 404);
      assert.equal((await admin.get(`${section}/${id}`)).status, 404);
    });

    it("answers another organization's endpoint and delivery as unknown ones: 404, nothing done", async () => {
      const other = await h.createOrganization('Other organization');
      const foreign = (
        await h.post('webhooks', { url: receiver.url, events: ['user.created'], description: 'Foreign' }, { token: other.token })
      ).json();
      const ping = (await h.post(`webhooks/${foreign.id}/test`, {}, { token: other.token })).json();
      const { id: own } = await createEndpoint(['user.created']);
      const pages = [
        await admin.get(`${section}/${foreign.id}`),
        await admin.post(`${section}/${foreign.id}`, { url: receiver.url, events: 'user.updated' }),
        await admin.post(`${section}/${foreign.id}/state`, { disabled: 'true' }),
        await admin.post(`${section}/${foreign.id}/test`, {}),
        await admin.post(`${section}/${foreign.id}/recover`, { since: new Date().toISOString().slice(0, 16) }),
        await admin.post(`${section}/${foreign.id}/rotate`, {}),
        await admin.post(`${section}/${foreign.id}/deliveries/${ping.id}/resend`, {}),
        await admin.post(`${section}/${own}/deliveries/${ping.id}/resend`, {}),
        await admin.post(`${section}/${foreign.id}/delete`, {}),
      ];
      assert.deepEqual(
        pages.map((page) => page.status),
        pages.map(() => 404),
      );
      for (const page of pages) assert.ok(!page.body.includes('Foreign'));
      const still = (await h.get(`webhooks/${foreign.id}`, { token: other.token })).json();
      assert.deepEqual([still.events, still.disabled], [['user.created'], false]);
      assert.ok(!textOf(await admin.get(section)).includes('Foreign'));
      assert.equal((await h.delete(`webhooks/${own}`)).statusCode, 204);
    });
  },
  { events: { retentionDays: 30, webhooks: WEBHOOKS } },
);
