import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, ALL_ENGINES, engineSkip, type TestDatabase } from '../helpers/database.js';
import { ServerProcess } from '../helpers/server-process.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const METRICS_TOKEN = 'scraper-secret-0123456789';
const RATE_LIMIT = 5;

/** One series' value in Prometheus' text format, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

for (const engine of ALL_ENGINES) {
  describe(`/metrics [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    let server: ServerProcess;
    let token: string;
    let adminUrl: string;

    before(async () => {
      database = await createTestDatabase(engine);
      server = await ServerProcess.start({
        DATABASE_URL: database.url,
        METRICS_PORT: '0',
        METRICS_TOKEN,
        RATE_LIMIT: `${RATE_LIMIT}/minute`,
      });
      // The address is printed after the API's; wait for the line rather than for a time.
      while (!/Metrics on (http:\S+)/.test(server.output)) await new Promise((resolve) => setTimeout(resolve, 50));
      adminUrl = /Metrics on (http:\S+)/.exec(server.output)![1]!;
      token = await server.bootstrapToken();
    });
    after(async () => {
      await server.destroy();
      await database.drop();
    });

    it('counts and times requests by route pattern and status, and counts rate-limit rejections', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < RATE_LIMIT + 2; i++) statuses.push((await server.request('GET', `users/${'0'.repeat(32)}`, { token })).status);
      assert.deepEqual(statuses.slice(0, RATE_LIMIT), Array(RATE_LIMIT).fill(404));
      assert.ok(
        statuses.slice(RATE_LIMIT).every((status) => status === 429),
        statuses.join(' '),
      );

      const response = await fetch(adminUrl);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      const route = 'method="GET",route="/api/v5/users/:id"';
      assert.equal(sample(text, `http_requests_total{${route},status="404"}`), RATE_LIMIT);
      assert.ok(sample(text, `http_requests_total{${route},status="429"}`)! >= 2);
      assert.equal(sample(text, `http_request_duration_seconds_count{${route},status="404"}`), RATE_LIMIT);
      assert.equal(sample(text, `http_request_duration_seconds_bucket{le="+Inf",${route},status="404"}`), RATE_LIMIT);
      assert.ok(sample(text, 'rate_limit_rejections_total{route="/api/v5/users/:id"}')! >= 2);
      assert.ok(sample(text, 'database_query_duration_seconds_count{outcome="ok"}')! > 0);
      assert.ok(sample(text, 'process_resident_memory_bytes')! > 0);
      // No raw URL, hence no id, becomes a label.
      assert.doesNotMatch(text, /0{32}/);
      if (engine === 'postgres') {
        assert.ok(sample(text, 'database_pool_connections')! >= 1);
        assert.notEqual(sample(text, 'database_pool_waiting_requests'), undefined);
      } else {
        assert.equal(sample(text, 'database_pool_connections'), undefined);
      }
    });

    it('serves nothing else on the administration port', async () => {
      assert.equal((await fetch(new URL('/api/v5/users', adminUrl))).status, 404);
    });

    it("answers on the API's port only to the metrics token", async () => {
      for (const bearer of [undefined, token, `${METRICS_TOKEN}x`]) {
        const reply = await server.request('GET', '/metrics', bearer ? { token: bearer } : {});
        assert.equal(reply.status, 401, String(bearer));
        assert.deepEqual(JSON.parse(reply.body), { errors: ['Authentication required'] });
      }
      const reply = await server.request('GET', '/metrics', { token: METRICS_TOKEN });
      assert.equal(reply.status, 200);
      assert.match(reply.body, /^# HELP /m);
    });
  });
}

describe('/metrics of webhook deliveries', () => {
  let server: ServerProcess;
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await WebhookReceiver.start();
    server = await ServerProcess.start({
      METRICS_TOKEN,
      WEBHOOKS_ALLOW_INSECURE_LOOPBACK: 'true',
      WEBHOOKS_RETRY_BASE: '1s',
      WEBHOOKS_POLL_INTERVAL: '100ms',
    });
  });
  after(async () => {
    await server.destroy();
    await receiver.stop();
  });

  it('counts and times every attempt by its result', async () => {
    const token = await server.bootstrapToken();
    let calls = 0;
    receiver.answer = () => (++calls === 1 ? 503 : 204);
    const webhook = await server.request('POST', 'webhooks', { token, body: { url: receiver.url, events: ['user.created'] } });
    assert.equal(webhook.status, 201, webhook.body);
    assert.equal((await server.request('POST', 'users', { token, body: { email: 'metrics@example.com' } })).status, 201);
    await receiver.until(() => receiver.received.length === 2, 'the retried delivery');

    // The attempt is counted once its outcome is recorded, just after the receiver answered.
    let text = '';
    for (let waited = 0; !/webhook_delivery_attempts_total\{result="delivered"\} 1/.test(text) && waited < 5000; waited += 100) {
      text = (await server.request('GET', '/metrics', { token: METRICS_TOKEN })).body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(sample(text, 'webhook_delivery_attempts_total{result="retrying"}'), 1, text);
    assert.equal(sample(text, 'webhook_delivery_attempts_total{result="delivered"}'), 1);
    assert.equal(sample(text, 'webhook_delivery_duration_seconds_count{result="delivered"}'), 1);
  });
});

describe('/metrics not configured', () => {
  let server: ServerProcess;
  before(async () => {
    server = await ServerProcess.start();
  });
  after(async () => {
    await server.destroy();
  });

  it('is not served', async () => {
    const reply = await server.request('GET', '/metrics', { token: await server.bootstrapToken() });
    assert.equal(reply.status, 404);
    assert.doesNotMatch(server.output, /Metrics on/);
  });
});
