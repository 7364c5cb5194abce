import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALL_ENGINES, createTestDatabase, engineSkip, type TestDatabase } from '../helpers/database.js';
import { ServerProcess, type Reply } from '../helpers/server-process.js';
import { untilDeliveriesSettled, WebhookReceiver } from '../helpers/webhook-receiver.js';

// Each user's events reach a webhook in the order they committed, while the receiver refuses some
// attempts (so that retries happen) and the server is killed with SIGKILL in the middle of the stream.

const SETTINGS = {
  WEBHOOKS_ALLOW_INSECURE_LOOPBACK: 'true',
  WEBHOOKS_RETRY_BASE: '100ms',
  WEBHOOKS_TIMEOUT: '2s',
  WEBHOOKS_POLL_INTERVAL: '50ms',
};
const USERS = 4;
const UPDATES = 20;

for (const engine of ALL_ENGINES) {
  describe(`webhook order per resource across retries and a SIGKILL [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase | undefined;
    let server: ServerProcess;
    let receiver: WebhookReceiver;

    before(async () => {
      receiver = await WebhookReceiver.start();
      if (engine === 'postgres') database = await createTestDatabase('postgres');
      server = await ServerProcess.start({ ...SETTINGS, ...(database ? { DATABASE_URL: database.url } : {}) });
    });
    after(async () => {
      await receiver.stop();
      await server.destroy();
      await database?.drop();
    });

    it("delivers each user's events in commit order, none missing, with the server killed mid-stream", async (t) => {
      const token = await server.bootstrapToken();
      const created = await server.request('POST', 'webhooks', {
        token,
        body: { url: receiver.url, events: ['user.created', 'user.updated', 'user.deleted'] },
      });
      assert.equal(created.status, 201, created.body);

      // The first attempt of about one event in four is refused; every answer takes 20 ms, so some are under way at the kill.
      const attempts = new Map<string, number>();
      receiver.answer = (request) => {
        const attempt = (attempts.get(request.event.id) ?? 0) + 1;
        attempts.set(request.event.id, attempt);
        const refused = attempt === 1 && parseInt(request.event.id.at(-1)!, 16) % 4 === 0;
        return { status: refused ? 500 : 204, afterMs: 20 };
      };

      // Every write is sent until it is answered; halfway through the stream the server is killed and restarted.
      const writes = USERS * (UPDATES + 2);
      let answered = 0;
      let restarted: Promise<void> | undefined;
      const send = async (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply> => {
        for (;;) {
          const reply = await server.request(method, path, { token, body, headers });
          if (reply.status !== 0) {
            if (++answered === writes / 2) {
              restarted = (async () => {
                await server.kill();
                await server.restart();
              })();
            }
            return reply;
          }
          assert.ok(restarted, `${method} ${path} failed with the server up: ${reply.body}`);
          await restarted;
        }
      };
      const stream = async (user: number) => {
        // The key makes the creation safe to send again: a retry of one that committed gets its answer again.
        const reply = await send('POST', 'users', { email: `order${user}@example.com` }, { 'idempotency-key': `order-${user}` });
        assert.equal(reply.status, 201, reply.body);
        const id = String(reply.headers.location).split('/').pop()!;
        for (let update = 1; update <= UPDATES; update++) {
          // Sent again after a crash, an update that had committed changes nothing and records no event.
          const updated = await send('PUT', `users/${id}`, { firstName: `Version ${update}` });
          assert.equal(updated.status, 204, updated.body);
        }
        const deleted = await send('DELETE', `users/${id}`);
        assert.ok([204, 404].includes(deleted.status), deleted.body); // 404: a deletion sent again after it committed
        return id;
      };
      const users = await Promise.all(Array.from({ length: USERS }, (_, user) => stream(user)));
      assert.ok(restarted, 'the server was killed');

      // The feed says what committed, in commit order.
      const feed: { id: string; type: string; data: { id: string } }[] = [];
      for (let after = ''; ;) {
        const page = JSON.parse((await server.request('GET', `events?limit=100${after}`, { token })).body);
        feed.push(...page.results);
        if (!page.next) break;
        after = `&after=${page.results.at(-1).id}`;
      }
      const committed = (user: string) => feed.filter((event) => event.data.id === user).map((event) => event.id);
      const accepted = (user: string) => receiver.received.filter((r) => r.status === 204 && r.event.data.id === user).map((r) => r.event.id);
      await receiver.until(() => users.every((user) => committed(user).every((id) => accepted(user).includes(id))), 'every event accepted', 60_000);
      await untilDeliveriesSettled(server, token, JSON.parse(created.body).id);

      const expected = users.reduce((sum, user) => sum + committed(user).length, 0);
      const delivered = users.reduce((sum, user) => sum + accepted(user).length, 0);
      const refused = receiver.received.filter((r) => r.status === 500).length;
      const figures = `${expected} events of ${USERS} users; ${delivered} accepted deliveries, ${delivered - expected} duplicated; ${refused} attempts refused and retried`;
      t.diagnostic(figures);
      console.log(`[${engine}] ${figures}`);
      for (const user of users) {
        assert.equal(committed(user).length, UPDATES + 2, `user ${user}: every change committed once`);
        // A duplicate (sent again after the kill, its answer lost) comes right after the first copy, never later.
        const arrivals = accepted(user).filter((id, index, all) => index === 0 || all[index - 1] !== id);
        assert.deepEqual(arrivals, committed(user), `user ${user}: ${figures}`);
      }
    });
  });
}
