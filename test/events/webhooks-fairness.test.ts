import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { ALL_ENGINES, createTestDatabase, engineSkip, type TestDatabase } from '../helpers/database.js';
import { sleep } from '../helpers/load.js';
import { ServerProcess } from '../helpers/server-process.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

// Webhook endpoints served side by side by one real server process, with the default concurrency and timeout:
// a hanging endpoint delays only itself, and slow endpoints are served in parallel.

/** The default settings, but for http to loopback and a quicker poll (new events are found within 100 ms, not 1 s). */
const SETTINGS = { WEBHOOKS_ALLOW_INSECURE_LOOPBACK: 'true', WEBHOOKS_POLL_INTERVAL: '100ms' };

/** An organization of the server's database and a token of it. */
async function newOrganization(databaseUrl: string, name: string): Promise<string> {
  const created = await runCli(databaseUrl, 'orgs', 'create', '--name', name);
  assert.equal(created.code, 0, created.err);
  const token = await runCli(databaseUrl, 'tokens', 'create', '--org', created.out.trim());
  assert.equal(token.code, 0, token.err);
  return token.out.trim();
}

async function createWebhook(server: ServerProcess, token: string, url: string, events: string[]): Promise<void> {
  const reply = await server.request('POST', 'webhooks', { token, body: { url, events } });
  assert.equal(reply.status, 201, reply.body);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

// Each engine's server, database and receivers are its own, and the tests mostly wait (12 s of a write every 100 ms,
// endpoints that take 2 s to answer): the engines run at the same time, not one after the other.
describe('webhook endpoints side by side', { concurrency: true }, () => {
  for (const engine of ALL_ENGINES) {
    describe(`webhook endpoints side by side [${engine}]`, { skip: engineSkip(engine), concurrency: 1 }, () => {
      let database: TestDatabase | undefined;
      let server: ServerProcess;
      let databaseUrl: string;
      const receivers: WebhookReceiver[] = [];
      const receiver = async () => {
        const started = await WebhookReceiver.start();
        receivers.push(started);
        return started;
      };

      before(async () => {
        if (engine === 'postgres') database = await createTestDatabase('postgres');
        server = await ServerProcess.start({ ...SETTINGS, ...(database ? { DATABASE_URL: database.url } : {}) });
        databaseUrl = database?.url ?? `sqlite:${server.dataDir}/training-api.db`;
      });
      after(async () => {
        // Hanging and slow requests end first, so that the server stops without waiting for them.
        for (const started of receivers) await started.stop();
        await server.destroy();
        await database?.drop();
      });

      it("keeps another organization's deliveries prompt while one organization's endpoint hangs", async (t) => {
        const [hanging, healthy] = [await receiver(), await receiver()];
        hanging.answer = () => 'hang';
        const tokenA = await server.bootstrapToken();
        const tokenB = await newOrganization(databaseUrl, 'Healthy receiver');
        await createWebhook(server, tokenA, hanging.url, ['user.created']);
        await createWebhook(server, tokenB, healthy.url, ['user.created']);

        // Both organizations create a user every 100 ms for 12 s: A's deliveries pile up behind its hanging endpoint.
        const answeredAt = new Map<string, number>();
        const create = async (token: string, email: string) => {
          const reply = await server.request('POST', 'users', { token, body: { email } });
          assert.equal(reply.status, 201, reply.body);
          answeredAt.set(String(reply.headers.location).split('/').pop()!, Date.now());
        };
        const end = Date.now() + 12_000;
        for (let i = 0; Date.now() < end; i++) {
          await Promise.all([create(tokenA, `hang${i}@example.com`), create(tokenB, `prompt${i}@example.com`), sleep(100)]);
        }
        const eventsOfB = answeredAt.size / 2;
        await healthy.until(() => healthy.received.length >= eventsOfB, "every one of B's events", 20_000);

        const fromCreatedDate = healthy.received.map((request) => request.receivedAt - Date.parse(request.event.createdDate));
        const fromAnswer = healthy.received.map((request) => request.receivedAt - answeredAt.get(request.event.data.id)!);
        const figures =
          `B: ${healthy.received.length} deliveries; latency from createdDate (to the second, so up to 1 s more) ` +
          `p50 ${percentile(fromCreatedDate, 50)} ms, p99 ${percentile(fromCreatedDate, 99)} ms; ` +
          `from the write's answer p50 ${percentile(fromAnswer, 50)} ms, p99 ${percentile(fromAnswer, 99)} ms. ` +
          `A: ${eventsOfB} events, ${hanging.received.length} requests to its hanging endpoint`;
        t.diagnostic(figures);
        console.log(`[${engine}] ${figures}`);
        assert.equal(new Set(healthy.received.map((request) => request.event.id)).size, eventsOfB);
        assert.ok(percentile(fromCreatedDate, 99) < 2000, figures);
        // The hanging endpoint holds its own slots (8 by default), no more: at most two rounds of them in 12 s of 10 s timeouts.
        assert.ok(hanging.received.length <= 16, figures);
      });

      it('delivers 50 or more a second to 20 endpoints that each take 2 s to answer', async (t) => {
        const slow = await Promise.all(Array.from({ length: 20 }, () => receiver()));
        for (const endpoint of slow) endpoint.answer = () => ({ status: 204, afterMs: 2000 });
        const token = await newOrganization(databaseUrl, 'Slow receivers');
        for (const endpoint of slow) await createWebhook(server, token, endpoint.url, ['offering.created']);

        const started = Date.now();
        for (let i = 0; i < 40; i++) {
          const reply = await server.request('POST', 'offerings', { token, body: { title: `Course ${i}` } });
          assert.equal(reply.status, 201, reply.body);
        }
        const expected = 40 * slow.length;
        const answered = () => slow.reduce((sum, endpoint) => sum + endpoint.received.filter((request) => request.status === 204).length, 0);
        await slow[0]!.until(() => answered() >= expected, 'every delivery answered', 45_000);
        const seconds = (Date.now() - started) / 1000;
        const rate = expected / seconds;
        const figures = `${expected} deliveries to ${slow.length} endpoints answering in 2 s: ${seconds.toFixed(1)} s, ${rate.toFixed(1)} deliveries/s`;
        t.diagnostic(figures);
        console.log(`[${engine}] ${figures}`);
        const requests = slow.reduce((sum, endpoint) => sum + endpoint.received.length, 0);
        assert.equal(requests, expected, 'each delivered once');
        assert.ok(rate >= 50, figures);
      });
    });
  }
});
