import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../db/database.js';
import type { ApiInstance } from '../http/api-instance.js';
import { isPostgres } from '../db/locking.js';
import { organizationsRepository } from '../resources/organizations/organizations.repository.js';
import { tokensService } from '../resources/tokens/tokens.service.js';
import { listenPlain, listenTls, type RunningServer } from '../server/listener.js';
import { ensureSelfSignedCertificate, loadCertificate } from '../server/tls-certificate.js';
import { reportUnexpectedErrors } from '../server/unexpected-errors.js';

/**
 * First start on an empty database: one organization and one token, the token written to
 * `<dataDir>/bootstrap-token` (0600) and returned so it can be shown once on the terminal.
 * Instances starting together on one database create a single organization: the check and the
 * creation share a transaction, which PostgreSQL's table lock serializes (SQLite's are exclusive).
 */
export async function bootstrap(database: DatabaseHandle, dataDir: string): Promise<string | undefined> {
  const token = await database.db.transaction().execute(async (trx) => {
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

export interface Serving {
  baseUrl: string;
  close(): Promise<void>;
}

export async function serve(config: Config, log: (line: string) => void): Promise<Serving> {
  let app: ApiInstance | undefined;
  const database = openDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    limits: config.database,
    sqliteSynchronous: config.sqliteSynchronous,
    // The pool replaces the connection by itself; the log says why requests failed meanwhile.
    onConnectionError: (error) => app?.log.warn({ err: error }, 'database connection lost'),
  });
  await migrateToLatest(database.db);
  const token = await bootstrap(database, config.dataDir);

  const tls = config.trustProxy
    ? undefined
    : config.tlsCertFile && config.tlsKeyFile
      ? await loadCertificate(config.tlsCertFile, config.tlsKeyFile)
      : await ensureSelfSignedCertificate(join(config.dataDir, 'tls'));

  app = await buildApp({
    db: database.db,
    ...(tls ? { https: tls } : {}),
    trustProxy: config.trustProxy,
    publicUrl: config.publicUrl,
    bodyLimit: config.bodyLimit,
    rateLimit: config.rateLimit,
    oauthTokenLifetimeSeconds: config.oauthTokenLifetimeSeconds,
    logger: { level: config.logLevel },
  });
  const stopReporting = reportUnexpectedErrors(app.log);
  let server: RunningServer;
  try {
    const listen = tls ? listenTls : listenPlain;
    server = await listen(app, { host: config.host, port: config.port });
  } catch (error) {
    stopReporting();
    await app.close();
    await database.close();
    throw error;
  }

  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const baseUrl = `${config.publicUrl ?? `${tls ? 'https' : 'http'}://${host}:${server.port}`}/api/v5`;
  const tokenFile = join(config.dataDir, 'bootstrap-token');
  log(`training-api serving ${baseUrl}${tls && !config.tlsCertFile ? ' (self-signed certificate: use curl -k)' : ''}`);
  if (token) log(`Created the default organization and its first access token (shown once, also in ${tokenFile}):\n  ${token}`);
  else if (existsSync(tokenFile)) log(`Bootstrap access token: ${tokenFile}`);
  return {
    baseUrl,
    async close() {
      await server.close();
      await database.close();
      stopReporting();
    },
  };
}
