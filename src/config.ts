import { isIP } from 'node:net';
import { engineOf } from './db/database.js';
import { ConfigError } from './lib/config-error.js';
import { DEFAULT_PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH } from './lib/password-policy.js';
import type { DatabaseLimits, SqliteSynchronous } from './db/options.js';
import type { PostgresTopologyOptions } from './db/database.js';
import { parsePostgresTarget } from './db/postgres-hosts.js';
import type { RateLimitSettings } from './rate-limit/settings.js';
import type { Limit } from './rate-limit/sliding-window.js';
import type { EventSettings } from './events/background.js';
import { DEFAULT_RETENTION_DAYS } from './events/retention.js';
import { MIN_KEEP_ALIVE_TIMEOUT_MS, type ClientLimits } from './server/client-limits.js';

/** Server configuration: environment variables, each overridable by a `--flag` of the same name. */
export interface Config {
  databaseUrl: string;
  databasePoolSize: number;
  host: string;
  port: number;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** Addresses and networks of the TLS-terminating proxies whose X-Forwarded-* are believed (TRUST_PROXY); false: no proxy. */
  trustProxy: false | string[];
  /** Host names the server answers for (PUBLIC_URL's, ALLOWED_HOSTS); undefined: any. */
  allowedHosts?: string[];
  publicUrl?: string;
  /** Origins whose browser pages may call the API (CORS_ORIGINS); empty: CORS off. */
  corsOrigins: string[];
  /** The shortest password accepted for a user (PASSWORD_MIN_LENGTH). */
  passwordMinLength: number;
  logLevel: string;
  bodyLimit: number;
  dataDir: string;
  /** Request budgets; undefined when RATE_LIMIT and OAUTH_RATE_LIMIT are both off. */
  rateLimit?: RateLimitSettings;
  database: DatabaseLimits;
  /** PostgreSQL beyond one server: read replicas, a transaction pooler, a direct connection for LISTEN. */
  topology: PostgresTopologyOptions;
  /** On SIGTERM, how long /readyz answers 503 while requests are still served, before the server closes. */
  shutdownDelayMs: number;
  /** Lifetime of the access tokens POST /oauth/token issues. */
  oauthTokenLifetimeSeconds: number;
  /** SQLite's `synchronous` pragma: FULL makes every acknowledged write survive a power loss. */
  sqliteSynchronous: SqliteSynchronous;
  /** The event feed's retention and the webhook deliveries. */
  events: EventSettings;
  /** How long a client may take, and how many connections it may hold. */
  clients: ClientLimits;
  /** Server processes sharing the port; 1 serves from this process alone. */
  workers: number;
  /** Where /metrics is served; undefined when neither METRICS_PORT nor METRICS_TOKEN is set. */
  metrics?: MetricsSettings;
}

export interface MetricsSettings {
  /** A plain HTTP administration port serving only /metrics, on `host`. */
  port?: number;
  host: string;
  /** /metrics on the API's port, for requests bearing this token. */
  token?: string;
}

export type Env = Record<string, string | undefined>;

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** `1mb`, `512kb`, `2048` → bytes. */
export function parseByteSize(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(value.trim());
  if (!match) throw new ConfigError(`BODY_LIMIT must be a size such as 1mb, 512kb or 1048576 (got "${value}")`);
  return Math.floor(Number(match[1]) * SIZE_UNITS[(match[2] ?? '').toLowerCase()]!);
}

function parsePort(value: string, name: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`${name} must be a port number from 0 to 65535 (got "${value}")`);
  }
  return port;
}

const DURATION_UNITS: Record<string, number> = { '': 1, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `30s`, `500ms`, `2m`, `1h`, `1500` (milliseconds) → milliseconds, at least 1. */
export function parseDuration(value: string, name: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i.exec(value.trim());
  const ms = match ? Math.round(Number(match[1]) * DURATION_UNITS[(match[2] ?? '').toLowerCase()]!) : 0;
  if (ms < 1) throw new ConfigError(`${name} must be a duration such as 30s, 500ms, 2m or 1h (got "${value}")`);
  return ms;
}

function parseSqliteSynchronous(value: string): SqliteSynchronous {
  const setting = value.trim().toLowerCase();
  if (setting !== 'full' && setting !== 'normal') throw new ConfigError(`SQLITE_SYNCHRONOUS must be full or normal (got "${value}")`);
  return setting;
}

function parsePositiveInteger(value: string, name: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new ConfigError(`${name} must be a positive integer (got "${value}")`);
  return number;
}

function parseBoolean(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value);
}

function parsePublicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute URL such as https://training.example.com (got "${value}")`);
  }
  return url.origin;
}

/** `https://app.example.com, http://localhost:3000` → the origins, each as a browser sends it. */
function parseCorsOrigins(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      let url: URL | undefined;
      try {
        url = new URL(entry);
      } catch {
        // refused below
      }
      if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username) {
        throw new ConfigError(`CORS_ORIGINS must list origins such as https://app.example.com, separated by commas (got "${entry}")`);
      }
      return url.origin;
    });
}

function parsePasswordMinLength(value: string): number {
  const length = Number(value);
  if (!Number.isInteger(length) || length < DEFAULT_PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw new ConfigError(
      `PASSWORD_MIN_LENGTH must be a whole number from ${DEFAULT_PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} (got "${value}")`,
    );
  }
  return length;
}

/** What TRUST_PROXY=true trusts: a proxy on this host or on a private network. */
const PRIVATE_NETWORKS = ['loopback', 'linklocal', 'uniquelocal'];
const PROXY_ENTRY = /^(loopback|linklocal|uniquelocal|[0-9a-f:.]+(\/\d{1,3})?)$/i;

/** `true` → private networks; `10.0.0.5, 192.168.0.0/16` → those; unset or false → no proxy. */
function parseTrustProxy(value: string | undefined): false | string[] {
  if (value === undefined || /^(|0|false|no|off)$/i.test(value.trim())) return false;
  if (parseBoolean(value)) return PRIVATE_NETWORKS;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const invalid = entries.find((entry) => !PROXY_ENTRY.test(entry) || (!entry.includes('loc') && isIP(entry.split('/')[0]!) === 0));
  if (invalid !== undefined || entries.length === 0) {
    throw new ConfigError(
      `TRUST_PROXY must be true, or the proxies' addresses or networks such as 10.0.0.5,192.168.0.0/16 (got "${invalid ?? value}")`,
    );
  }
  return entries;
}

/** PUBLIC_URL's host and ALLOWED_HOSTS (`*`: any host); by default the listen address and this machine's names. */
function allowedHostsOf(allowedHosts: string | undefined, publicUrl: string | undefined, host: string): string[] | undefined {
  const listed = (allowedHosts ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  if (listed.includes('*')) return undefined;
  const fromUrl = publicUrl ? [new URL(publicUrl).hostname.replace(/^\[|\]$/g, '')] : [];
  if (fromUrl.length > 0 || listed.length > 0) return [...fromUrl, ...listed];
  return [host, 'localhost', '127.0.0.1', '::1'];
}

function parseDatabaseUrl(value: string): string {
  try {
    if (engineOf(value) === 'postgres') parsePostgresTarget(value);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return value;
}

/** A PostgreSQL URL beside DATABASE_URL (one host or several), checked now rather than at the first connection. */
function parseOtherPostgresUrl(value: string | undefined, name: string, databaseUrl: string): string | undefined {
  if (value === undefined) return undefined;
  if (engineOf(databaseUrl) !== 'postgres') throw new ConfigError(`${name} needs a PostgreSQL DATABASE_URL`);
  try {
    parsePostgresTarget(value, name, name === 'DATABASE_LISTEN_URL');
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return value;
}

function parsePoolMode(value: string): boolean {
  const mode = value.trim().toLowerCase();
  if (mode !== 'session' && mode !== 'transaction') throw new ConfigError(`DATABASE_POOL_MODE must be session or transaction (got "${value}")`);
  return mode === 'transaction';
}

/** On unless a transaction pooler is in front (PgBouncer before 1.21 keeps no prepared statement); on or off when set. */
function parsePreparedStatements(value: string | undefined, transactionPooler: boolean): boolean {
  if (value === undefined) return !transactionPooler;
  if (/^(1|true|yes|on)$/i.test(value.trim())) return true;
  if (/^(0|false|no|off)$/i.test(value.trim())) return false;
  throw new ConfigError(`DATABASE_PREPARED_STATEMENTS must be on or off (got "${value}")`);
}

function topologyOf(get: (name: string) => string | undefined, databaseUrl: string): PostgresTopologyOptions {
  const readUrl = parseOtherPostgresUrl(get('DATABASE_READ_URL'), 'DATABASE_READ_URL', databaseUrl);
  const listenUrl = parseOtherPostgresUrl(get('DATABASE_LISTEN_URL'), 'DATABASE_LISTEN_URL', databaseUrl);
  const transactionPooler = parsePoolMode(get('DATABASE_POOL_MODE') ?? 'session');
  return {
    ...(readUrl ? { readUrl } : {}),
    readMaxLagMs: parseDuration(get('DATABASE_READ_MAX_LAG') ?? '5s', 'DATABASE_READ_MAX_LAG'),
    ...(listenUrl ? { listenUrl } : {}),
    transactionPooler,
    preparedStatements: parsePreparedStatements(get('DATABASE_PREPARED_STATEMENTS'), transactionPooler),
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parseLogLevel(value: string): string {
  if (!LOG_LEVELS.includes(value)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${value}")`);
  return value;
}

const WINDOWS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000 };

/** `1200/minute` → a limit; `off` → undefined. */
export function parseRateLimit(value: string, name = 'RATE_LIMIT'): Limit | undefined {
  if (/^(off|none|0)$/i.test(value.trim())) return undefined;
  const match = /^(\d+)\s*\/\s*(second|minute|hour)$/i.exec(value.trim());
  if (!match || Number(match[1]) < 1) {
    throw new ConfigError(`${name} must look like 1200/minute (per second, minute or hour) or off (got "${value}")`);
  }
  return { max: Number(match[1]), windowMs: WINDOWS[match[2]!.toLowerCase()]! };
}

function rateLimitOf(api: string, oauth: string, redisUrl: string | undefined): RateLimitSettings | undefined {
  const settings: RateLimitSettings = { api: parseRateLimit(api), oauth: parseRateLimit(oauth, 'OAUTH_RATE_LIMIT') };
  if (!settings.api && !settings.oauth) return undefined;
  return { ...settings, ...(redisUrl ? { redisUrl } : {}) };
}

/** Whole seconds, from one minute to one day: a client asks for a new token when it expires. */
function oauthTokenLifetime(value: string): number {
  const seconds = Math.floor(parseDuration(value, 'OAUTH_TOKEN_LIFETIME') / 1000);
  if (seconds < 60 || seconds > 86_400) throw new ConfigError(`OAUTH_TOKEN_LIFETIME must be from 1m to 24h (got "${value}")`);
  return seconds;
}

const DEFAULT_REQUEST_TIMEOUT = '30s';
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

/**
 * Timeouts and connection caps. A header timeout longer than the request's would never fire: its
 * default follows a shorter REQUEST_TIMEOUT, and only one set longer is refused.
 */
function clientLimits(get: (name: string) => string | undefined): ClientLimits {
  const duration = (name: string, fallback: string) => parseDuration(get(name) ?? fallback, name);
  const count = (name: string, fallback: string) => parsePositiveInteger(get(name) ?? fallback, name);
  const requestTimeoutMs = duration('REQUEST_TIMEOUT', DEFAULT_REQUEST_TIMEOUT);
  const headersTimeout = get('HEADERS_TIMEOUT');
  const limits: ClientLimits = {
    requestTimeoutMs,
    headersTimeoutMs: headersTimeout ? parseDuration(headersTimeout, 'HEADERS_TIMEOUT') : Math.min(DEFAULT_HEADERS_TIMEOUT_MS, requestTimeoutMs),
    keepAliveTimeoutMs: duration('KEEP_ALIVE_TIMEOUT', '72s'),
    tlsHandshakeTimeoutMs: duration('TLS_HANDSHAKE_TIMEOUT', '10s'),
    maxConnections: count('MAX_CONNECTIONS', '1000'),
    maxConnectionsPerAddress: count('MAX_CONNECTIONS_PER_ADDRESS', '100'),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    const requestTimeout = get('REQUEST_TIMEOUT') ?? `${DEFAULT_REQUEST_TIMEOUT}, its default`;
    throw new ConfigError(`HEADERS_TIMEOUT (${headersTimeout}) must not be longer than REQUEST_TIMEOUT (${requestTimeout})`);
  }
  if (limits.keepAliveTimeoutMs < MIN_KEEP_ALIVE_TIMEOUT_MS) {
    throw new ConfigError(`KEEP_ALIVE_TIMEOUT must be at least ${MIN_KEEP_ALIVE_TIMEOUT_MS / 1000}s (got "${get('KEEP_ALIVE_TIMEOUT')}")`);
  }
  return limits;
}

export const DEFAULT_DATA_DIR = './data';

/** Reads the configuration from `env`; `overrides` come from command-line flags, keyed like the variables. */
export function loadConfig(env: Env, overrides: Env = {}): Config {
  const get = (name: string) => overrides[name] ?? env[name];
  const dataDir = get('DATA_DIR') ?? DEFAULT_DATA_DIR;
  const certFile = get('TLS_CERT_FILE');
  const keyFile = get('TLS_KEY_FILE');
  if (Boolean(certFile) !== Boolean(keyFile)) {
    throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  const publicUrl = get('PUBLIC_URL');
  const duration = (name: string, fallback: string) => parseDuration(get(name) ?? fallback, name);
  const databaseUrl = parseDatabaseUrl(get('DATABASE_URL') ?? `sqlite:${dataDir}/training-api.db`);
  return {
    databaseUrl,
    databasePoolSize: parsePositiveInteger(get('DATABASE_POOL_SIZE') ?? '10', 'DATABASE_POOL_SIZE'),
    host: get('HOST') ?? '127.0.0.1',
    port: parsePort(get('PORT') ?? '8443', 'PORT'),
    tlsCertFile: certFile,
    tlsKeyFile: keyFile,
    trustProxy: parseTrustProxy(get('TRUST_PROXY')),
    publicUrl: publicUrl ? parsePublicUrl(publicUrl) : undefined,
    allowedHosts: allowedHostsOf(get('ALLOWED_HOSTS'), publicUrl ? parsePublicUrl(publicUrl) : undefined, get('HOST') ?? '127.0.0.1'),
    corsOrigins: parseCorsOrigins(get('CORS_ORIGINS') ?? ''),
    passwordMinLength: parsePasswordMinLength(get('PASSWORD_MIN_LENGTH') ?? String(DEFAULT_PASSWORD_MIN_LENGTH)),
    logLevel: parseLogLevel(get('LOG_LEVEL') ?? 'info'),
    bodyLimit: parseByteSize(get('BODY_LIMIT') ?? '1mb'),
    dataDir,
    rateLimit: rateLimitOf(get('RATE_LIMIT') ?? '1200/minute', get('OAUTH_RATE_LIMIT') ?? '30/minute', get('REDIS_URL')),
    database: {
      connectTimeoutMs: duration('DATABASE_CONNECT_TIMEOUT', '5s'),
      statementTimeoutMs: duration('DATABASE_STATEMENT_TIMEOUT', '10s'),
      idleTimeoutMs: duration('DATABASE_IDLE_TIMEOUT', '30s'),
      keepAliveMs: duration('DATABASE_KEEPALIVE', '30s'),
    },
    topology: topologyOf(get, databaseUrl),
    shutdownDelayMs: /^\s*0+(ms|s)?\s*$/i.test(get('SHUTDOWN_DELAY') ?? '0') ? 0 : duration('SHUTDOWN_DELAY', '0'),
    oauthTokenLifetimeSeconds: oauthTokenLifetime(get('OAUTH_TOKEN_LIFETIME') ?? '1h'),
    sqliteSynchronous: parseSqliteSynchronous(get('SQLITE_SYNCHRONOUS') ?? 'full'),
    events: {
      retentionDays: parsePositiveInteger(get('EVENTS_RETENTION_DAYS') ?? String(DEFAULT_RETENTION_DAYS), 'EVENTS_RETENTION_DAYS'),
      webhooks: {
        allowInsecureLoopback: parseBoolean(get('WEBHOOKS_ALLOW_INSECURE_LOOPBACK')),
        retryBaseMs: duration('WEBHOOKS_RETRY_BASE', '30s'),
        timeoutMs: duration('WEBHOOKS_TIMEOUT', '10s'),
        pollIntervalMs: duration('WEBHOOKS_POLL_INTERVAL', '1s'),
        concurrency: parsePositiveInteger(get('WEBHOOKS_CONCURRENCY') ?? '200', 'WEBHOOKS_CONCURRENCY'),
        endpointConcurrency: parsePositiveInteger(get('WEBHOOKS_ENDPOINT_CONCURRENCY') ?? '8', 'WEBHOOKS_ENDPOINT_CONCURRENCY'),
      },
    },
    clients: clientLimits(get),
    workers: parsePositiveInteger(get('WORKERS') ?? '1', 'WORKERS'),
    metrics: metricsOf(get),
  };
}

const MIN_METRICS_TOKEN_LENGTH = 16;

function metricsOf(get: (name: string) => string | undefined): MetricsSettings | undefined {
  const port = get('METRICS_PORT');
  const token = get('METRICS_TOKEN');
  if (port === undefined && token === undefined) return undefined;
  if (port !== undefined && Number(get('WORKERS') ?? '1') > 1) {
    // Every worker would open the administration port; with workers, each answers /metrics on the API's port.
    throw new ConfigError('METRICS_PORT cannot be combined with WORKERS above 1: use METRICS_TOKEN to read each worker on the API port');
  }
  if (token !== undefined && token.length < MIN_METRICS_TOKEN_LENGTH) {
    throw new ConfigError(`METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN_LENGTH} characters long`);
  }
  return {
    ...(port !== undefined ? { port: parsePort(port, 'METRICS_PORT') } : {}),
    host: get('METRICS_HOST') ?? '127.0.0.1',
    ...(token !== undefined ? { token } : {}),
  };
}
