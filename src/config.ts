import { engineOf } from './db/database.js';
import type { DatabaseLimits, SqliteSynchronous } from './db/options.js';
import type { Limit, RateLimitSettings } from './plugins/rate-limit.js';

/** Server configuration: environment variables, each overridable by a `--flag` of the same name. */
export interface Config {
  databaseUrl: string;
  databasePoolSize: number;
  host: string;
  port: number;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  trustProxy: boolean;
  publicUrl?: string;
  logLevel: string;
  bodyLimit: number;
  dataDir: string;
  /** Request budgets; undefined when RATE_LIMIT and OAUTH_RATE_LIMIT are both off. */
  rateLimit?: RateLimitSettings;
  database: DatabaseLimits;
  /** Lifetime of the access tokens POST /oauth/token issues. */
  oauthTokenLifetimeSeconds: number;
  /** SQLite's `synchronous` pragma: FULL makes every acknowledged write survive a power loss. */
  sqliteSynchronous: SqliteSynchronous;
}

export type Env = Record<string, string | undefined>;

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

export class ConfigError extends Error {}

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

function parseDatabaseUrl(value: string): string {
  try {
    engineOf(value);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  return value;
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
  return {
    databaseUrl: parseDatabaseUrl(get('DATABASE_URL') ?? `sqlite:${dataDir}/training-api.db`),
    databasePoolSize: parsePositiveInteger(get('DATABASE_POOL_SIZE') ?? '10', 'DATABASE_POOL_SIZE'),
    host: get('HOST') ?? '127.0.0.1',
    port: parsePort(get('PORT') ?? '8443', 'PORT'),
    tlsCertFile: certFile,
    tlsKeyFile: keyFile,
    trustProxy: parseBoolean(get('TRUST_PROXY')),
    publicUrl: publicUrl ? parsePublicUrl(publicUrl) : undefined,
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
    oauthTokenLifetimeSeconds: oauthTokenLifetime(get('OAUTH_TOKEN_LIFETIME') ?? '1h'),
    sqliteSynchronous: parseSqliteSynchronous(get('SQLITE_SYNCHRONOUS') ?? 'full'),
  };
}
