import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Server as TlsServer } from 'node:tls';
import { sql } from 'kysely';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../db/database.js';
import type { ApiInstance } from '../http/api-instance.js';
import { isPostgres } from '../db/locking.js';
import { inTransaction } from '../db/unit-of-work.js';
import { SERVER_ACTOR } from '../lib/actors.js';
import { organizationsRepository } from '../tenancy/organizations.repository.js';
import { tokensService } from '../auth/tokens.service.js';
import { listenPlain, listenTls, type RunningServer } from '../server/listener.js';
import { ensureSelfSignedCertificate, loadCertificate } from '../server/tls-certificate.js';
import { reportUnexpectedErrors } from '../server/unexpected-errors.js';
import { reloadCertificateOnHangup } from '../server/certificate-reload.js';
import { createMetrics, type MetricsServer } from '../server/metrics.js';
import { turnBufferedStdout } from '../server/log-destination.js';
import { reachingDatabase } from './diagnoses.js';
import { isWorker, leavePrimary, reportServing, startWorkers } from '../server/workers.js';

/**
 * First start on an empty database: one organization and one token, the token written to
 * `<dataDir>/bootstrap-token` (0600) and returned. The terminal only says where it is: what a server
 * prints usually ends up in a log collector, where a token must never be.
 * Instances starting together on one database create a single organization: the check and the
 * creation share a transaction, which PostgreSQL's table lock serializes (SQLite's are exclusive).
 */
export async function bootstrap(database: DatabaseHandle, dataDir: string): Promise<string | undefined> {
  const token = await inTransaction(database.db, SERVER_ACTOR, async (trx) => {
    if (isPostgres(trx)) await sql`lock table organizations in exclusive mode`.execute(trx);
    const organizations = organizationsRepository(trx);
    if ((await organizations.list()).length > 0) return undefined;
    const organization = await organizations.create('Default organization');
    return (await tokensService(trx).create(organization.id, { name: 'bootstrap' })).token;
  });
  if (!token) return undefined;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, 'bootstrap-token');
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return token;
}

interface Serving {
  baseUrl: string;
  close(): Promise<void>;
}

/** The certificate to serve: the configured one, or a self-signed one made on first start. */
function tlsMaterial(config: Config) {
  return config.trustProxy ? undefined : loadTls(config);
}

/** Read on start and again on SIGHUP, so a renewed certificate is served without a restart. */
function loadTls(config: Config) {
  return config.tlsCertFile && config.tlsKeyFile
    ? loadCertificate(config.tlsCertFile, config.tlsKeyFile)
    : ensureSelfSignedCertificate(join(config.dataDir, 'tls'));
}

function announce(config: Config, serving: { baseUrl: string; listening: string }, token: string | undefined, log: (line: string) => void): void {
  const tokenFile = join(config.dataDir, 'bootstrap-token');
  const selfSigned = !config.trustProxy && !config.tlsCertFile;
  const workers = config.workers > 1 ? ` with ${config.workers} workers` : '';
  const { baseUrl, listening } = serving;
  const address = baseUrl.startsWith(`${listening}/`) ? '' : ` (listening on ${listening})`;
  log(`training-api serving ${baseUrl}${address}${selfSigned ? ' (self-signed certificate: use curl -k)' : ''}${workers}`);
  if (token) log(`Created the default organization and its first access token, readable only by this user in ${tokenFile}`);
  else if (existsSync(tokenFile)) log(`Bootstrap access token: ${tokenFile}`);
}

/**
 * With WORKERS above 1 this process is the primary: it migrates and bootstraps the database and
 * makes the certificate once, then forks the workers, which serve (see `serve`).
 */
async function serveWithWorkers(config: Config, log: (line: string) => void): Promise<Serving> {
  const database = openDatabase(config.databaseUrl, { poolSize: 1, limits: config.database, sqliteSynchronous: config.sqliteSynchronous });
  let token: string | undefined;
  try {
    await reachingDatabase(config.databaseUrl, () => migrateToLatest(database.db));
    token = await bootstrap(database, config.dataDir);
  } finally {
    await database.close();
  }
  await tlsMaterial(config);
  if (config.rateLimit && !config.rateLimit.redisUrl) {
    log(`Rate limits are counted by each of the ${config.workers} workers on its own: set REDIS_URL to share them`);
  }
  const workers = await startWorkers(config.workers, log);
  announce(config, workers, token, log);
  return { baseUrl: workers.baseUrl, close: () => workers.stop() };
}

export async function serve(config: Config, log: (line: string) => void): Promise<Serving> {
  if (config.workers > 1 && !isWorker) return serveWithWorkers(config, log);
  let app: ApiInstance | undefined;
  const metrics = config.metrics ? createMetrics() : undefined;
  const database = openDatabase(config.databaseUrl, {
    ...(metrics ? { onQuery: metrics.recordQuery } : {}),
    poolSize: config.databasePoolSize,
    limits: config.database,
    sqliteSynchronous: config.sqliteSynchronous,
    ...config.topology,
    // The pool replaces the connection by itself; the log says why requests failed meanwhile.
    onConnectionError: (error) => app?.log.warn({ err: error }, 'database connection lost'),
  });
  if (metrics && database.pool) metrics.watchPool(database.pool);
  if (metrics && database.topology) metrics.watchTopology(database.topology);
  // A worker's primary has migrated and bootstrapped already.
  let token: string | undefined;
  if (!isWorker) {
    await reachingDatabase(config.databaseUrl, () => migrateToLatest(database.db));
    token = await bootstrap(database, config.dataDir);
  }
  const tls = await tlsMaterial(config);
  let draining = false;
  app = await buildApp({
    db: database.db,
    tokenRevocations: database.watchTokenRevocations(),
    ...(tls ? { https: tls } : {}),
    trustProxy: config.trustProxy,
    publicUrl: config.publicUrl,
    allowedHosts: config.allowedHosts,
    corsOrigins: config.corsOrigins,
    passwordPolicy: config.passwordPolicy,
    imports: config.imports,
    bodyLimit: config.bodyLimit,
    rateLimit: config.rateLimit,
    oauthTokenLifetimeSeconds: config.oauthTokenLifetimeSeconds,
    people: config.people,
    events: config.events,
    clientLimits: config.clients,
    ...(metrics ? { metrics: { metrics, token: config.metrics?.token } } : {}),
    logger: { level: config.logLevel, stream: turnBufferedStdout() },
    ...(database.topology ? { database: { topology: database.topology, replicas: database.replicas } } : {}),
    draining: () => draining,
  });
  const stopReporting = reportUnexpectedErrors(app.log);
  let server: RunningServer | undefined;
  let metricsServer: MetricsServer | undefined;
  try {
    const listen = tls ? listenTls : listenPlain;
    server = await listen(app, { host: config.host, port: config.port, limits: config.clients });
    if (metrics && config.metrics?.port !== undefined) metricsServer = await metrics.listen(config.metrics.host, config.metrics.port);
  } catch (error) {
    stopReporting();
    await (server ?? app).close();
    await database.close();
    throw error;
  }
  const stopReloading = reloadCertificateOnHangup(
    app.log,
    tls ? { server: app.server as unknown as TlsServer, load: () => loadTls(config) } : undefined,
  );

  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const listening = `${tls ? 'https' : 'http'}://${host}:${server.port}`;
  const baseUrl = `${config.publicUrl ?? listening}/api/v5`;
  if (isWorker) reportServing(baseUrl, listening);
  else announce(config, { baseUrl, listening }, token, log);
  if (metricsServer) log(`Metrics on http://${config.metrics!.host}:${metricsServer.port}/metrics`);
  return {
    baseUrl,
    async close() {
      // /readyz answers 503 while requests are still served, until the load balancer has seen it and
      // sends them elsewhere; then the server stops taking connections and finishes those in flight.
      draining = true;
      if (config.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
      await server.close();
      await metricsServer?.close();
      await database.close();
      stopReporting();
      stopReloading();
      leavePrimary();
    },
  };
}
