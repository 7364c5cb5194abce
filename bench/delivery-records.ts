/**
 * `node dist/bench/delivery-records.js`: the delivery worker's transactions alone on PostgreSQL, as it runs them
 * (`recordAndClaim`, WRITERS at once, default 4): ENDPOINTS webhooks (default 100) with PER_ENDPOINT deliveries queued
 * each (default 100), every attempt a success, no HTTP and no scheduler. Prints the deliveries recorded a second:
 * what the database side of `bench:delivery`'s fan-out allows, whatever the server's CPU.
 *
 *   BENCH_POSTGRES_URL=postgres://... node dist/bench/delivery-records.js
 */
import { performance } from 'node:perf_hooks';
import { migrateToLatest } from '../src/db/database.js';
import type { EventPayload } from '../src/events/event-types.js';
import { newDelivery } from '../src/events/webhooks/deliveries.js';
import { newSigningSecret } from '../src/events/webhooks/signing.js';
import { deliveryQueue, instant, webhooksRepository, type ClaimedDelivery, type Endpoint } from '../src/events/webhooks/webhooks.repository.js';
import { newId } from '../src/lib/ids.js';
import { now } from '../src/lib/time.js';
import { organizationsRepository } from '../src/tenancy/organizations.repository.js';
import { postgresSchema } from './datasets.js';
import { loadAverage } from './stats.js';

const ENDPOINTS = Number(process.env.ENDPOINTS ?? 100);
const PER_ENDPOINT = Number(process.env.PER_ENDPOINT ?? 100);
const WRITERS = Number(process.env.WRITERS ?? 4);
/** As the worker: at most 100 records a transaction, and a claim while fewer than this many wait. */
const RECORDS_PER_BATCH = 100;
const CLAIMED_AHEAD = 400;

if (!process.env.BENCH_POSTGRES_URL) throw new Error('BENCH_POSTGRES_URL is required');
console.log(`Delivery records: ${ENDPOINTS} endpoints, ${PER_ENDPOINT} each, ${WRITERS} writers; load average ${loadAverage()}`);
const { handle, drop } = await postgresSchema(process.env.BENCH_POSTGRES_URL, 'delivery_records');
try {
  const db = handle.db;
  await migrateToLatest(db);
  const orgId = (await organizationsRepository(db).create('Records')).id;
  const endpoints: Endpoint[] = [];
  for (let n = 0; n < ENDPOINTS; n++) {
    const id = newId();
    await db
      .insertInto('webhooks')
      .values({
        org_id: orgId,
        id,
        url: `http://127.0.0.1/${n}`,
        description: null,
        event_types: 'user.updated',
        secret: newSigningSecret(),
        created_date: now(),
        updated_date: now(),
        failing_since: null,
        disabled_date: null,
        disabled_reason: null,
      })
      .execute();
    endpoints.push({ orgId, webhookId: id });
  }
  for (let round = 0; round < PER_ENDPOINT; round++) {
    const event = (): EventPayload =>
      ({ id: newId(), type: 'user.updated', createdDate: new Date().toISOString(), organizationId: orgId, data: { id: newId() } }) as EventPayload;
    const rows = endpoints.map((endpoint) => newDelivery(orgId, endpoint.webhookId, event()));
    await db.transaction().execute((trx) => webhooksRepository(trx).insertDeliveries(rows));
  }

  const queue = deliveryQueue(db);
  const total = ENDPOINTS * PER_ENDPOINT;
  const toRecord: ClaimedDelivery[] = [];
  let recorded = 0;
  const wants = endpoints.map((endpoint) => ({ endpoint, count: 10 }));
  const cutoff = instant(Date.now() - 86_400_000);
  const writer = async () => {
    while (recorded < total) {
      const batch = toRecord.splice(0, RECORDS_PER_BATCH);
      const claimed = await queue.recordAndClaim(
        batch.map((delivery) => ({
          delivery,
          attempt: { statusCode: 204, error: null, responseBody: '', durationMs: 1 },
          succeeded: true,
          retryAt: null,
          disabledReason: '',
        })),
        cutoff,
        toRecord.length < CLAIMED_AHEAD ? wants : [],
        60_000,
      );
      recorded += batch.length;
      toRecord.push(...claimed);
      if (batch.length === 0 && claimed.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: WRITERS }, writer));
  const seconds = (performance.now() - started) / 1000;
  console.log(`${recorded} recorded in ${seconds.toFixed(2)} s: ${Math.round(recorded / seconds)} a second; load average ${loadAverage()}`);
} finally {
  await handle.close();
  await drop();
}
