import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type CompiledQuery, type KyselyPlugin, type Kysely, type RootOperationNode } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import type { EventPayload } from '../../src/events/event-types.js';
import { newDelivery } from '../../src/events/webhooks/deliveries.js';
import { deliveryQueue, instant, webhooksRepository, type ClaimedDelivery, type Endpoint } from '../../src/events/webhooks/webhooks.repository.js';
import { newId } from '../../src/lib/ids.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { createTestDatabase, engineSkip, type TestDatabase } from '../helpers/database.js';
import { storeWebhook } from '../helpers/webhook-receiver.js';

// The statements the delivery worker runs all the time, planned by PostgreSQL with a backlog of thousands of
// pending deliveries across endpoints, under every state of the statistics a busy table goes through: taken while
// it was empty (then a burst came), taken while it was full, with autovacuum on and off (dead versions of the
// deliveries already sent left in place). Each plan must read a bounded number of rows and buffers per delivery it
// picks: the pick once read every pending delivery of the endpoint for each one it took (issue 39).

const ENDPOINTS = 20;
/** Pending deliveries of distinct users, per endpoint: each one ready. */
const READY_PER_ENDPOINT = 250;
/** Users with several events each, per endpoint: one ready delivery, the others waiting behind it. */
const BUSY_USERS_PER_ENDPOINT = 10;
const EVENTS_PER_BUSY_USER = 10;
/** Deliveries already sent, per endpoint. */
const SENT_PER_ENDPOINT = 300;
/** Rounds of claims and recorded successes before the plans are taken: the churn a draining queue leaves. */
const CHURN_ROUNDS = 40;
const PICK = 8;
/** Endpoints whose backlogs are queued at once: each is a transaction of its own, most of it PostgreSQL planning. */
const FILLED_AT_ONCE = 4;

/** What one delivery picked may cost a plan, with a constant for the statement's own (index descents, the webhook). */
const ROWS_PER_PICKED = 12;
const BUFFERS_PER_PICKED = 60;
const CONSTANT_ROWS = 40;
const CONSTANT_BUFFERS = 120;

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Join Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

/** Rows the plan's scans produced or threw away, over all their loops (the removed counts are averages per loop). */
function rowsRead(node: PlanNode): number {
  const own = /^(Seq|Index|Index Only|Bitmap Heap) Scan$/.test(node['Node Type'])
    ? (node['Actual Rows'] +
        (node['Rows Removed by Filter'] ?? 0) +
        (node['Rows Removed by Join Filter'] ?? 0) +
        (node['Rows Removed by Index Recheck'] ?? 0)) *
      node['Actual Loops']
    : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

function nodeTypes(node: PlanNode): string[] {
  return [node['Node Type'], ...(node.Plans ?? []).flatMap(nodeTypes)];
}

/** Records the statements run through the instance it is given to, compiled with their parameters. */
class StatementCapture implements KyselyPlugin {
  readonly nodes: RootOperationNode[] = [];
  transformQuery({ node }: { node: RootOperationNode }): RootOperationNode {
    this.nodes.push(node);
    return node;
  }
  async transformResult<R>({ result }: { result: R }): Promise<R> {
    return result;
  }
}

/** Rolls back whatever `work` did. */
class RolledBack extends Error {}

/** The last statement `work` ran (of those `which` selects), compiled with its parameters (what it did is kept). */
async function statementOf(
  db: Kysely<Database>,
  work: (db: Kysely<Database>) => Promise<unknown>,
  which: (statement: CompiledQuery) => boolean = () => true,
): Promise<CompiledQuery> {
  const capture = new StatementCapture();
  await work(db.withPlugin(capture));
  const statements = capture.nodes.map((node) => db.getExecutor().compileQuery(node, { queryId: 'plan' }));
  return statements.findLast(which)!;
}

/** EXPLAIN (ANALYZE, BUFFERS) of the statement, run in a transaction rolled back after. */
async function explain(db: Kysely<Database>, statement: CompiledQuery): Promise<{ plan: PlanNode; text: string }> {
  let plan: PlanNode | undefined;
  await db
    .transaction()
    .execute(async (trx) => {
      const explained = await trx.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
        ...statement,
        sql: `explain (analyze, buffers, format json) ${statement.sql}`,
      });
      plan = explained.rows[0]!['QUERY PLAN'][0].Plan;
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return { plan: plan!, text: JSON.stringify(plan) };
}

function userEvent(orgId: string, userId: string): EventPayload {
  return { id: newId(), type: 'user.updated', createdDate: new Date().toISOString(), organizationId: orgId, data: { id: userId } } as EventPayload;
}

describe('the plans of the delivery worker’s statements [postgres]', { skip: engineSkip('postgres') }, () => {
  let database: TestDatabase;
  let db: Kysely<Database>;
  let orgId: string;
  const endpoints: Endpoint[] = [];
  /** The ordering keys of the users with several events, of the last backlog. */
  let busyKeys: string[] = [];

  before(async () => {
    // The dead versions the churn leaves must be the only ones: no other test file's open transaction may keep them.
    database = await createTestDatabase('postgres', { ownDatabase: true });
    db = database.db;
    orgId = (await organizationsRepository(db).create('Plans')).id;
    // Another organization's endpoints, with their own backlog: the pick must not read it.
    const otherOrgId = (await organizationsRepository(db).create('Plans, the other')).id;
    for (let n = 0; n < ENDPOINTS; n++) {
      const owner = n % 4 === 3 ? otherOrgId : orgId;
      endpoints.push({ orgId: owner, webhookId: await storeWebhook(db, owner, `https://hooks.example/${n}`, ['user.updated']) });
    }
  });
  after(async () => {
    await database?.drop();
  });

  /** The backlog of one endpoint: ready deliveries, resources with many waiting, and deliveries already sent. */
  async function fillEndpoint(endpoint: Endpoint): Promise<string[]> {
    const keys: string[] = [];
    const events: EventPayload[] = [];
    for (let n = 0; n < READY_PER_ENDPOINT + SENT_PER_ENDPOINT; n++) events.push(userEvent(endpoint.orgId, newId()));
    for (let user = 0; user < BUSY_USERS_PER_ENDPOINT; user++) {
      const userId = newId();
      keys.push(`user:${userId}`);
      for (let n = 0; n < EVENTS_PER_BUSY_USER; n++) events.push(userEvent(endpoint.orgId, userId));
    }
    // As the outbox queues them: in order, each waiting behind an earlier pending one of its user.
    await db
      .transaction()
      .execute((trx) => webhooksRepository(trx).insertDeliveries(events.map((event) => newDelivery(endpoint.orgId, endpoint.webhookId, event))));
    const sent = events.slice(0, SENT_PER_ENDPOINT).map((event) => event.id);
    await db
      .updateTable('webhook_deliveries')
      .set({ status: 'succeeded', next_attempt_at: null, attempts: 1 })
      .where('org_id', '=', endpoint.orgId)
      .where('webhook_id', '=', endpoint.webhookId)
      .where('event_id', 'in', sent)
      .execute();
    return keys;
  }

  /**
   * The backlog of every endpoint, FILLED_AT_ONCE endpoints at a time (each endpoint's deliveries in order, as the
   * outbox queues them; endpoints are independent), with `midway` run when a quarter of the endpoints are full.
   */
  async function fillBacklog(midway: () => Promise<void>): Promise<void> {
    const keys: string[][] = [];
    const fill = async (from: number, to: number) => {
      for (let start = from; start < to; start += FILLED_AT_ONCE) {
        const batch = endpoints.slice(start, Math.min(start + FILLED_AT_ONCE, to));
        keys.push(...(await Promise.all(batch.map(fillEndpoint))));
      }
    };
    await fill(0, ENDPOINTS / 4);
    await midway();
    await fill(ENDPOINTS / 4, ENDPOINTS);
    // In the endpoints' order: the tests below pick the busy users of one endpoint by its place.
    busyKeys = keys.flat();
  }

  /** Claims and records successes as the worker does, round after round, leaving dead row versions behind. */
  async function churn(): Promise<void> {
    const queue = deliveryQueue(db);
    for (let round = 0; round < CHURN_ROUNDS; round++) {
      const endpoint = endpoints[round % 3]!;
      const at = Date.now();
      const claimed: ClaimedDelivery[] = await queue.recordAndClaim([], '', [{ endpoint, count: PICK }], 30_000);
      await queue.recordAndClaim(
        claimed.map((delivery) => ({
          delivery,
          attempt: { statusCode: 204, error: null, responseBody: '', durationMs: 1 },
          succeeded: true,
          retryAt: null,
          disabledReason: '',
        })),
        instant(at - 86_400_000),
        [],
        30_000,
      );
    }
  }

  for (const autovacuum of [true, false]) {
    for (const statistics of ['empty', 'midway', 'full'] as const) {
      it(`reads a bounded number of rows and buffers per delivery picked: autovacuum ${autovacuum ? 'on' : 'off'}, statistics of the ${statistics === 'midway' ? 'table a quarter full' : `${statistics} table`}`, async (t) => {
        await sql`truncate webhook_deliveries cascade`.execute(db);
        for (const table of ['webhook_deliveries', 'webhook_attempts', 'webhooks']) {
          await sql`alter table ${sql.table(table)} set (autovacuum_enabled = ${sql.raw(String(autovacuum))})`.execute(db);
        }
        const analyze = () => sql`analyze webhook_deliveries, webhook_attempts, webhooks`.execute(db).then(() => {});
        if (statistics === 'empty') await analyze();
        await fillBacklog(statistics === 'midway' ? analyze : async () => {});
        if (statistics === 'full') await analyze();
        await churn();

        // An endpoint drained by the churn, with the dead versions it left, and one untouched, in one claim taken
        // for real, then explained, picking the next ones.
        {
          const wants = [endpoints[0]!, endpoints[5]!].map((endpoint) => ({ endpoint, count: PICK }));
          const claim = await statementOf(db, (trx) => deliveryQueue(trx).recordAndClaim([], '', wants, 30_000));
          const { plan, text } = await explain(db, claim);
          const picked = plan['Actual Rows'];
          assert.equal(picked, PICK * wants.length, `the claim picked ${picked} deliveries: ${text}`);
          const rows = rowsRead(plan);
          const buffers = plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
          t.diagnostic(`claim of ${picked}: ${rows} rows, ${buffers} buffers; ${[...new Set(nodeTypes(plan))].join(', ')}`);
          assert.ok(rows <= ROWS_PER_PICKED * picked + CONSTANT_ROWS, `the claim read ${rows} rows for ${picked} deliveries: ${text}`);
          assert.ok(buffers <= BUFFERS_PER_PICKED * picked + CONSTANT_BUFFERS, `the claim read ${buffers} buffers for ${picked} deliveries: ${text}`);
        }

        // The poll: every endpoint has deliveries due; it reads one entry of each.
        const due = await statementOf(db, (trx) => deliveryQueue(trx).endpointsDue(instant(Date.now())));
        const { plan, text } = await explain(db, due);
        const found = plan['Actual Rows'];
        assert.equal(found, ENDPOINTS, `the poll found ${found} endpoints: ${text}`);
        const rows = rowsRead(plan);
        const buffers = plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
        t.diagnostic(`poll of ${found} endpoints: ${rows} rows, ${buffers} buffers; ${[...new Set(nodeTypes(plan))].join(', ')}`);
        assert.ok(rows <= 4 * found + CONSTANT_ROWS, `the poll read ${rows} rows for ${found} endpoints: ${text}`);
        assert.ok(buffers <= 16 * found + CONSTANT_BUFFERS, `the poll read ${buffers} buffers for ${found} endpoints: ${text}`);

        // The release of the next delivery of resources whose delivery ended: one step down each one's order.
        const endpoint = endpoints[5]!;
        const heads = await db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('org_id', '=', endpoint.orgId)
          .where('webhook_id', '=', endpoint.webhookId)
          .where('ordering_key', 'in', busyKeys)
          .where('next_attempt_at', 'is not', null)
          .execute();
        assert.equal(heads.length, BUSY_USERS_PER_ENDPOINT);
        const release = await statementOf(db, (trx) =>
          deliveryQueue(trx).recordAndClaim(
            heads.map((delivery) => ({
              delivery,
              attempt: { statusCode: 204, error: null, responseBody: '', durationMs: 1 },
              succeeded: true,
              retryAt: null,
              disabledReason: '',
            })),
            instant(Date.now() - 86_400_000),
            [],
            30_000,
          ),
        );
        assert.match(release.sql, /unnest/, 'the last statement of the record is the release');
        const released = await explain(db, release);
        const releaseRows = rowsRead(released.plan);
        t.diagnostic(`release of ${heads.length} resources: ${releaseRows} rows; ${[...new Set(nodeTypes(released.plan))].join(', ')}`);
        assert.ok(
          releaseRows <= 4 * heads.length + CONSTANT_ROWS,
          `the release read ${releaseRows} rows for ${heads.length} resources: ${released.text}`,
        );

        // Queueing: each new delivery looks for the last pending one of its resource, one step up its order,
        // whether the resource has a backlog (the users with several events) or none (new users).
        const queued = [
          ...busyKeys.slice(5 * BUSY_USERS_PER_ENDPOINT, 6 * BUSY_USERS_PER_ENDPOINT).map((key) => key.slice('user:'.length)),
          ...Array.from({ length: 40 }, () => newId()),
        ];
        const probe = await statementOf(
          db,
          (trx) =>
            trx
              .transaction()
              .execute((unit) =>
                webhooksRepository(unit).insertDeliveries(
                  queued.map((userId) => newDelivery(endpoint.orgId, endpoint.webhookId, userEvent(endpoint.orgId, userId))),
                ),
              ),
          (statement) => /unnest/.test(statement.sql),
        );
        assert.match(probe.sql, /for share/, 'the probe locks the delivery it finds');
        const probed = await explain(db, probe);
        const probeRows = rowsRead(probed.plan);
        const probeBuffers = probed.plan['Shared Hit Blocks'] + probed.plan['Shared Read Blocks'];
        t.diagnostic(
          `queueing of ${queued.length} deliveries: ${probeRows} rows, ${probeBuffers} buffers; ${[...new Set(nodeTypes(probed.plan))].join(', ')}`,
        );
        assert.equal(
          probed.plan['Actual Rows'],
          BUSY_USERS_PER_ENDPOINT,
          `the probe found ${probed.plan['Actual Rows']} resources with a backlog: ${probed.text}`,
        );
        assert.ok(probeRows <= 4 * queued.length + CONSTANT_ROWS, `the probe read ${probeRows} rows for ${queued.length} deliveries: ${probed.text}`);
        assert.ok(
          probeBuffers <= 16 * queued.length + CONSTANT_BUFFERS,
          `the probe read ${probeBuffers} buffers for ${queued.length} deliveries: ${probed.text}`,
        );
      });
    }
  }
});
