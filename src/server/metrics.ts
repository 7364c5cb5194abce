import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolCounts } from '../db/postgres-pool.js';
import type { DatabaseTopology } from '../db/database.js';
import type { DeliveryResult } from '../events/webhooks/delivery-worker.js';
import { errors } from '../lib/errors.js';

/** Seconds: from a cached GET to a bulk write on a busy machine. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/** The server's Prometheus metrics in a registry of their own. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by method, route (its pattern, as /api/v5/users/:id) and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to answering it, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 because a rate limit was spent, by route',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const queryDuration = new Histogram({
    name: 'database_query_duration_seconds',
    help: 'Database statements, by outcome (ok or error)',
    labelNames: ['outcome'] as const,
    buckets: QUERY_BUCKETS,
    registers: [registry],
  });

  const deliveries = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts, by result: delivered (a 2xx), retrying (failed, tried again later) or failed (given up)',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const deliveryDuration = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: "Time from sending a webhook delivery to the receiver's answer (or the timeout), by result",
    labelNames: ['result'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });

  return {
    registry,
    /** Counts and times every answer of `app`. */
    observe(app: FastifyInstance): void {
      app.addHook('onResponse', async (request, reply) => {
        // The route's pattern, never the raw URL: ids would make a series per user.
        const labels = { method: request.method, route: request.routeOptions.url ?? 'unrouted', status: String(reply.statusCode) };
        requests.inc(labels);
        requestDuration.observe(labels, reply.elapsedTime / 1000);
        if (reply.statusCode === 429) rateLimited.inc({ route: labels.route });
      });
    },
    /** For the database's query log. */
    recordQuery(durationMs: number, failed: boolean): void {
      queryDuration.observe({ outcome: failed ? 'error' : 'ok' }, durationMs / 1000);
    },
    /** For the webhook delivery worker: one call per attempt. */
    recordDelivery(result: DeliveryResult, durationMs: number): void {
      deliveries.inc({ result });
      deliveryDuration.observe({ result }, durationMs / 1000);
    },
    /** Reports the PostgreSQL pool's connections at every scrape. */
    watchPool(pool: PoolCounts): void {
      const gauge = (name: string, help: string, read: () => number) =>
        new Gauge({
          name,
          help,
          registers: [registry],
          collect() {
            this.set(read());
          },
        });
      gauge('database_pool_connections', 'Connections the PostgreSQL pool holds', () => pool.totalCount);
      gauge('database_pool_idle_connections', 'Connections of the pool not in use', () => pool.idleCount);
      gauge('database_pool_waiting_requests', 'Queries waiting for a connection of the pool', () => pool.waitingCount);
    },
    /** Reports the PostgreSQL host in use and each read replica's state at every scrape. */
    watchTopology(topology: () => DatabaseTopology): void {
      new Gauge({
        name: 'database_primary',
        help: 'The PostgreSQL host writes go to (1), by host; none while no writable host is found',
        labelNames: ['host'] as const,
        registers: [registry],
        collect() {
          this.reset();
          const { primary } = topology();
          if (primary) this.set({ host: primary }, 1);
        },
      });
      const replicaGauge = (name: string, help: string, read: (state: DatabaseTopology['replicas'][number]) => number | null) =>
        new Gauge({
          name,
          help,
          labelNames: ['host'] as const,
          registers: [registry],
          collect() {
            this.reset();
            for (const state of topology().replicas) {
              const value = read(state);
              if (value !== null) this.set({ host: state.host }, value);
            }
          },
        });
      replicaGauge('database_replica_up', 'Whether a read replica answers (1) or not (0), by host', (state) => (state.up ? 1 : 0));
      replicaGauge('database_replica_lag_seconds', "How far a read replica is behind the primary's writes, by host", (state) => state.lagSeconds);
    },
    /**
     * GET /metrics on the API's own port, for a scraper that presents `Authorization: Bearer <token>`; the
     * token is METRICS_TOKEN, unrelated to the API's tokens.
     */
    route(app: FastifyInstance, token: string): void {
      const expected = Buffer.from(`Bearer ${token}`);
      // Its own token, not one of the API's.
      app.get('/metrics', { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
        const given = Buffer.from(request.headers.authorization ?? '');
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw errors.authenticationRequired();
        reply.header('Content-Type', registry.contentType);
        return registry.metrics();
      });
    },
    /** A plain HTTP server answering GET /metrics only, for an administration port (METRICS_PORT). */
    async listen(host: string, port: number): Promise<MetricsServer> {
      const server = http.createServer((request, response) => {
        if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
          response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Only GET /metrics is served here\n');
          return;
        }
        registry.metrics().then(
          (text) => response.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
          (error: Error) => response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${error.message}\n`),
        );
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port }, () => resolve());
      });
      return {
        port: (server.address() as AddressInfo).port,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}
