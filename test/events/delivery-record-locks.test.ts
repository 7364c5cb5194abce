import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { inTransaction } from '../../src/db/unit-of-work.js';
import type { EventPayload } from '../../src/events/event-types.js';
import { newDelivery } from '../../src/events/webhooks/deliveries.js';
import {
  deliveryQueue,
  instant,
  webhooksRepository,
  type ClaimedDelivery,
  type Endpoint,
  type FinishedAttempt,
} from '../../src/events/webhooks/webhooks.repository.js';
import { SERVER_ACTOR } from '../../src/lib/actors.js';
import { newId } from '../../src/lib/ids.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { createTestDatabase, engineSkip, type TestDatabase } from '../helpers/database.js';
import { storeWebhook } from '../helpers/webhook-receiver.js';

// The delivery worker's transactions on PostgreSQL run side by side (up to four at once): recording the attempts of
// one webhook must not wait for another transaction recording that webhook's, or with 100 endpoints, whose rounds all
// share webhooks, the writers take turns (issue 39). A deletion of the webhook still waits for a record under way.

/** How long a statement that does not wait takes at most, on a loaded machine. */
const PROMPT_MS = 3000;

const succeeded = (delivery: ClaimedDelivery): FinishedAttempt => ({
  delivery,
  attempt: { statusCode: 204, error: null, responseBody: '', durationMs: 1 },
  succeeded: true,
  retryAt: null,
  disabledReason: '',
});

/** Whether `work` ended within PROMPT_MS. */
function promptly(work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), PROMPT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

describe('the records of one webhook’s attempts, two transactions at once [postgres]', { skip: engineSkip('postgres') }, () => {
  let database: TestDatabase;
  let db: Kysely<Database>;
  let endpoint: Endpoint;

  before(async () => {
    database = await createTestDatabase('postgres');
    db = database.db;
    const orgId = (await organizationsRepository(db).create('Records side by side')).id;
    endpoint = { orgId, webhookId: await storeWebhook(db, orgId, 'https://hooks.example/records', ['user.updated']) };
    const events = Array.from(
      { length: 4 },
      (): EventPayload =>
        ({ id: newId(), type: 'user.updated', createdDate: new Date().toISOString(), organizationId: orgId, data: { id: newId() } }) as EventPayload,
    );
    await db
      .transaction()
      .execute((trx) => webhooksRepository(trx).insertDeliveries(events.map((event) => newDelivery(orgId, endpoint.webhookId, event))));
  });
  after(async () => {
    await database?.drop();
  });

  /** Records `delivery` in a transaction left open until `close` is called; resolves once it is recorded. */
  async function openRecord(delivery: ClaimedDelivery): Promise<{ close(): void; ended: Promise<void> }> {
    let close!: () => void;
    const closed = new Promise<void>((resolve) => (close = resolve));
    let recorded!: () => void;
    const wasRecorded = new Promise<void>((resolve) => (recorded = resolve));
    const ended = inTransaction(db, SERVER_ACTOR, async (trx) => {
      await deliveryQueue(trx).recordAndClaim([succeeded(delivery)], instant(Date.now() - 86_400_000), [], 30_000);
      recorded();
      await closed;
    });
    await Promise.race([wasRecorded, ended]);
    return { close, ended };
  }

  it('records an attempt while another transaction recording the same webhook’s is open', async () => {
    const queue = deliveryQueue(db);
    const claimed = await queue.recordAndClaim([], '', [{ endpoint, count: 2 }], 30_000);
    assert.equal(claimed.length, 2);
    const first = await openRecord(claimed[0]!);
    const second = queue.recordAndClaim([succeeded(claimed[1]!)], instant(Date.now() - 86_400_000), [], 30_000);
    const secondWasPrompt = await promptly(second);
    first.close();
    await Promise.all([first.ended, second]);
    assert.ok(secondWasPrompt, `the second record waited more than ${PROMPT_MS} ms for the first transaction`);
    const statuses = await db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('org_id', '=', endpoint.orgId)
      .where('id', 'in', [claimed[0]!.id, claimed[1]!.id])
      .execute();
    assert.deepEqual(
      statuses.map((row) => row.status),
      ['succeeded', 'succeeded'],
    );
  });

  it('makes the webhook’s deletion wait for a record under way', async () => {
    const claimed = await deliveryQueue(db).recordAndClaim([], '', [{ endpoint, count: 1 }], 30_000);
    assert.equal(claimed.length, 1);
    const record = await openRecord(claimed[0]!);
    const deletion = webhooksRepository(db).delete(endpoint.orgId, endpoint.webhookId);
    const deletionWasPrompt = await promptly(deletion);
    record.close();
    await record.ended;
    assert.equal(await deletion, true);
    assert.equal(deletionWasPrompt, false, 'the deletion went ahead of a transaction recording the webhook’s attempt');
    const left = await db.selectFrom('webhook_deliveries').select('id').where('org_id', '=', endpoint.orgId).execute();
    assert.deepEqual(left, []);
  });
});
