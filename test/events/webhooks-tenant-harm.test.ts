import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tokensService } from '../../src/auth/tokens.service.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { ALL_ENGINES, createTestDatabase, engineSkip, type TestDatabase } from '../helpers/database.js';
import { sleep, statusCounts, underLoad } from '../helpers/load.js';
import { ServerProcess } from '../helpers/server-process.js';
import { LONG_HOST, storeWebhook } from '../helpers/webhook-receiver.js';

/** Another organization's requests sent while the deliveries run: the measure was on 584 to 905. */
const OTHER_REQUESTS = 1200;
/** Clients of the other organization at once, on kept-alive connections as an integration's are. */
const OTHER_CLIENTS = 8;
/** Webhooks of the first organization to the long name: each event is as many deliveries. */
const LONG_HOST_WEBHOOKS = 2;
/** Between two users the first organization makes. */
const MAKING_PAUSE_MS = 100;
/** Delivery attempts the other organization's requests go on beside, at least: before the fix, 152 spoiled 36 of 1,245. */
const MIN_ATTEMPTS = 150;

for (const engine of ALL_ENGINES) {
  describe(`a webhook to a ${LONG_HOST.length}-character host name beside another organization [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    let server: ServerProcess;

    before(async () => {
      database = await createTestDatabase(engine);
      server = await ServerProcess.start({
        DATABASE_URL: database.url,
        WEBHOOKS_RETRY_BASE: '100ms',
        WEBHOOKS_POLL_INTERVAL: '50ms',
        WEBHOOKS_TIMEOUT: '2s',
      });
    });
    after(async () => {
      await server?.destroy();
      await database?.drop();
    });

    it("refuses to save it, and the stored ones' deliveries fail none of the other organization's HTTPS requests", async (t) => {
      const tokenA = await server.bootstrapToken();
      const refused = await server.request('POST', 'webhooks', {
        token: tokenA,
        body: { url: `https://${LONG_HOST}/hook`, events: ['user.created'] },
      });
      assert.equal(refused.status, 400, refused.body);
      assert.equal(JSON.parse(refused.body).fieldErrors.url, `must have a host name of at most 253 characters (this one has ${LONG_HOST.length})`);

      const orgA = (await database.db.selectFrom('organizations').select('id').executeTakeFirstOrThrow()).id;
      for (let i = 0; i < LONG_HOST_WEBHOOKS; i++) await storeWebhook(database.db, orgA, `https://${LONG_HOST}/hook${i}`, ['user.created']);
      const orgB = await organizationsRepository(database.db).create('Other organization');
      const tokenB = (await tokensService(database.db).create(orgB.id)).token;

      // The first organization makes users, and so deliveries, all along: about 10 a second.
      let othersDone = false;
      let created = 0;
      const making = (async () => {
        for (let n = 0; !othersDone; n++) {
          const reply = await server.request('POST', 'users', { token: tokenA, body: { email: `harm${n}@example.com` } });
          if (reply.status === 201) created++;
          await sleep(MAKING_PAUSE_MS);
        }
      })();
      const attemptsSoFar = () => database.db.selectFrom('webhook_attempts').select(['error']).where('org_id', '=', orgA).execute();
      const others = await underLoad(
        OTHER_CLIENTS,
        async () => ({ kind: 'list', reply: await server.request('GET', 'users?limit=10', { token: tokenB, timeoutMs: 15_000 }) }),
        async (served) => {
          while (served() < OTHER_REQUESTS || (await attemptsSoFar()).length < MIN_ATTEMPTS) await sleep(100);
        },
      );
      othersDone = true;
      await making;

      const attempts = await attemptsSoFar();
      const failed = others.filter((outcome) => outcome.status !== 200);
      t.diagnostic(
        `${engine}: ${failed.length} of ${others.length} requests of the other organization failed ` +
          `while ${attempts.length} deliveries to the long host name were attempted (${created} users made)`,
      );
      const reason = `The URL is refused: it must have a host name of at most 253 characters (this one has ${LONG_HOST.length})`;
      assert.deepEqual(new Set(attempts.map((attempt) => attempt.error)), new Set([reason]));
      assert.deepEqual(
        statusCounts(others),
        { 200: others.length },
        failed
          .slice(0, 3)
          .map((outcome) => `${outcome.status} ${outcome.body}`)
          .join('\n'),
      );
    });
  });
}
