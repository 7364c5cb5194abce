import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { ServerProcess } from '../helpers/server-process.js';
import { untilDeliveriesSettled, WebhookReceiver } from '../helpers/webhook-receiver.js';

const WEBHOOK_SETTINGS = {
  WEBHOOKS_ALLOW_INSECURE_LOOPBACK: 'true',
  WEBHOOKS_RETRY_BASE: '100ms',
  WEBHOOKS_TIMEOUT: '2s',
  WEBHOOKS_POLL_INTERVAL: '50ms',
};

async function createWebhook(server: ServerProcess, token: string, url: string, events: string[]): Promise<string> {
  const reply = await server.request('POST', 'webhooks', { token, body: { url, events } });
  assert.equal(reply.status, 201, reply.body);
  return JSON.parse(reply.body).id;
}

describe('webhooks across a crash [sqlite]', () => {
  let receiver: WebhookReceiver;
  let server: ServerProcess;
  before(async () => {
    receiver = await WebhookReceiver.start();
    server = await ServerProcess.start(WEBHOOK_SETTINGS);
  });
  after(async () => {
    await server.destroy();
    await receiver.stop();
  });

  it('delivers after a restart an event whose delivery the SIGKILLed server had not finished', async () => {
    const token = await server.bootstrapToken();
    const webhookId = await createWebhook(server, token, receiver.url, ['user.created']);
    receiver.answer = () => 'hang';
    const created = await server.request('POST', 'users', { token, body: { email: 'crash@example.com' } });
    assert.equal(created.status, 201);
    await receiver.until(() => receiver.received.length === 1, 'the first attempt');
    const eventId = receiver.received[0]!.event.id;
    await server.kill();
    receiver.answer = () => 204;
    await server.restart();
    await receiver.until(() => receiver.of(eventId).length === 2, 'the delivery after the restart');
    assert.deepEqual(
      receiver.received.map((request) => request.headers['webhook-id']),
      [eventId, eventId],
    );
    await untilDeliveriesSettled(server, token, webhookId);
    const [delivery] = JSON.parse((await server.request('GET', `webhooks/${webhookId}/deliveries`, { token })).body).results;
    assert.equal(delivery.status, 'succeeded');
  });
});

describe(
  'webhooks from two instances on one PostgreSQL',
  { skip: !process.env.TEST_POSTGRES_URL && 'needs TEST_POSTGRES_URL: two instances share its database' },
  () => {
    let receiver: WebhookReceiver;
    let database: TestDatabase;
    const servers: ServerProcess[] = [];
    before(async () => {
      receiver = await WebhookReceiver.start();
      database = await createTestDatabase('postgres');
      for (let i = 0; i < 2; i++) servers.push(await ServerProcess.start({ ...WEBHOOK_SETTINGS, DATABASE_URL: database.url }));
    });
    after(async () => {
      for (const server of servers) await server.destroy();
      await database.drop();
      await receiver.stop();
    });

    it('never delivers one event twice', async () => {
      const [a, b] = servers as [ServerProcess, ServerProcess];
      const token = await a.bootstrapToken();
      const webhookId = await createWebhook(a, token, receiver.url, ['user.created', 'user.updated']);
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 40; i++) {
        const server = i % 2 === 0 ? a : b;
        writes.push(
          server.request('POST', 'users', { token, body: { email: `twice${i}@example.com` } }).then(async (reply) => {
            assert.equal(reply.status, 201, reply.body);
            const id = String(reply.headers.location).split('/').pop();
            assert.equal((await server.request('PUT', `users/${id}`, { token, body: { firstName: 'Both' } })).status, 204);
          }),
        );
      }
      await Promise.all(writes);
      await receiver.until(() => new Set(receiver.received.map((request) => request.event.id)).size === 80, 'all 80 events');
      await untilDeliveriesSettled(a, token, webhookId);
      const ids = receiver.received.map((request) => request.event.id);
      assert.equal(ids.length, 80);
      assert.equal(new Set(ids).size, 80);
    });
  },
);
