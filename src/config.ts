import { isIP } from 'node:net';
import { engineOf } from './db/database.js';
import { ConfigError } from './lib/config-error.js';
import { DEFAULT_PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH, type PasswordPolicy } from './lib/password-policy.js';
import type { DatabaseLimits, SqliteSynchronous } from './db/options.js';
import type { PostgresTopologyOptions } from './db/database.js';
import { parsePostgresTarget } from './db/postgres-hosts.js';
import type { RateLimitSettings } from './rate-limit/settings.js';
import type { Limit } from './rate-limit/sliding-window.js';
import type { EventSettings } from './events/background.js';
import type { PeopleSettings } from './accounts/settings.js';
import { DEFAULT_RETENTION_DAYS } from './events/retention.js';
import { DEFAULT_BATCH_MS, DEFAULT_SHARED_BATCH_MS, type ImportSettings } from './lib/import-settings.js';
import { MIN_KEEP_ALIVE_TIMEOUT_MS, type ClientLimits } from './server/client-limits.js';

/** Server configuration, read from the settings of `SETTINGS`: environment variables, each overridable by a `--flag` of the same name. */
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
  /** What a user's password must be (PASSWORD_MIN_LENGTH), wherever a password is set: the API, SCIM, imports. */
  passwordPolicy: PasswordPolicy;
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
  /** People's sign-in: their sessions, and the mail of forgotten passwords. */
  people: PeopleSettings;
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
  /** How an import sizes its batches and how many passwords it hashes at once. */
  imports: ImportSettings;
}

interface MetricsSettings {
  /** A plain HTTP administration port serving only /metrics, on `host`. */
  port?: number;
  host: string;
  /** /metrics on the API's port, for requests bearing this token. */
  token?: string;
}

export type Env = Record<string, string | undefined>;

const DEFAULT_DATA_DIR = './data';
const DEFAULT_REQUEST_TIMEOUT = '30s';
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

/** One setting: an environment variable, and the flag of the same name (`DATABASE_URL`: `--database-url`), which wins. */
export interface SettingSpec {
  /** The form of its value, as `serve --help` shows it: `<duration>`, `full|normal`. */
  readonly value: string;
  /** Its value when unset, as an operator would write it; none: unset, or it follows from other settings. */
  readonly default?: string;
  /** The default as the documentation says it (Markdown), where it follows from other settings. */
  readonly shownDefault?: string;
  /** What it does, in Markdown: the table of docs/configuration.md and `serve --help` say it in these words. */
  readonly meaning: string;
}

/**
 * Every setting of the server, in the order docs/configuration.md and `serve --help` list them. The environment
 * variables, the command line's flags, `serve --help` and the table of docs/configuration.md all come from here, and
 * `loadConfig` can read no other name.
 */
export const SETTINGS = {
  DATABASE_URL: {
    value: '<url>',
    shownDefault: `\`sqlite:${DEFAULT_DATA_DIR}/training-api.db\``,
    meaning:
      "`sqlite:<path>` or `postgres://user@host:port/db`; several hosts in libpq's syntax with `target_session_attrs=read-write` (`postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write`): the server writes to the one that is not in recovery and finds the new primary after a failover by itself (docs/deploy.md)",
  },
  DATABASE_POOL_SIZE: {
    value: '<n>',
    default: '10',
    meaning: 'PostgreSQL connections per instance',
  },
  DATABASE_CONNECT_TIMEOUT: {
    value: '<duration>',
    default: '5s',
    meaning: 'longest wait for a new PostgreSQL connection, or for a free one from the pool',
  },
  DATABASE_STATEMENT_TIMEOUT: {
    value: '<duration>',
    default: '10s',
    meaning:
      "longest a statement may run (PostgreSQL `statement_timeout`, and `idle_in_transaction_session_timeout`), or, on SQLite, wait for another process's write lock",
  },
  DATABASE_IDLE_TIMEOUT: {
    value: '<duration>',
    default: '30s',
    meaning: 'an unused PostgreSQL connection is closed after this',
  },
  DATABASE_KEEPALIVE: {
    value: '<duration>',
    default: '30s',
    meaning: 'TCP keep-alive probes on PostgreSQL connections start after this much silence',
  },
  DATABASE_READ_URL: {
    value: '<url>',
    meaning:
      'PostgreSQL read replicas, one host or several: `GET` handlers read there, each client always reading its own writes; the event feed and watermarked lists read what the primary committed',
  },
  DATABASE_READ_MAX_LAG: {
    value: '<duration>',
    default: '5s',
    meaning: 'a replica further behind the primary than this, or not answering, serves no reads until it catches up',
  },
  DATABASE_POOL_MODE: {
    value: 'session|transaction',
    default: 'session',
    meaning:
      '`transaction` when `DATABASE_URL` leads to PgBouncer in transaction mode: no startup parameters (set `statement_timeout` on the role instead), and without `DATABASE_LISTEN_URL` every request looks its token up',
  },
  DATABASE_PREPARED_STATEMENTS: {
    value: 'on|off',
    shownDefault: '`on` (`off` with `DATABASE_POOL_MODE=transaction`)',
    meaning:
      "the statements of almost every request (a token by its hash, a user by id, an event row, an organization's webhooks) go to PostgreSQL as named statements, parsed and planned once per connection; `off` sends them unnamed, for a pooler that cannot keep named statements (PgBouncer before 1.21 in transaction mode)",
  },
  DATABASE_LISTEN_URL: {
    value: '<url>',
    meaning: 'a direct PostgreSQL connection (not through a transaction pooler) on which the server LISTENs for token revocations',
  },
  SHUTDOWN_DELAY: {
    value: '<duration>',
    default: '0',
    meaning:
      'on SIGTERM, how long `/readyz` answers 503 while requests are still served, so that a load balancer stops sending them before the server closes',
  },
  SQLITE_SYNCHRONOUS: {
    value: 'full|normal',
    default: 'full',
    meaning:
      '`full`: every acknowledged write is on disk, and survives a power loss; `normal`: faster writes that survive a crash of the process but may lose the last ones on a power loss (see below)',
  },
  WORKERS: {
    value: '<n>',
    default: '1',
    meaning:
      "server processes sharing the port (Node's cluster): the first migrates the database, then forks them; SIGTERM stops all. Each worker has its own `DATABASE_POOL_SIZE`, connection limits and, without `REDIS_URL`, its own rate-limit counts. On two cores shared with the load generator, `WORKERS=2` served 1.5 times the reads of one process (docs/performance.md)",
  },
  HOST: {
    value: '<address>',
    default: '127.0.0.1',
    meaning: 'listen address',
  },
  PORT: {
    value: '<port>',
    default: '8443',
    meaning: 'listen port (`0` picks a free port)',
  },
  TLS_CERT_FILE: {
    value: '<file>',
    meaning:
      'PEM file of the certificate (and its chain), set together with `TLS_KEY_FILE`; unset: a self-signed certificate for localhost is made once in `<DATA_DIR>/tls/`',
  },
  TLS_KEY_FILE: {
    value: '<file>',
    meaning: "PEM file of the certificate's private key",
  },
  TRUST_PROXY: {
    value: 'true|<addresses>',
    meaning:
      "TLS is terminated by a proxy: listen plain HTTP and serve only requests marked `X-Forwarded-Proto: https` (`/healthz` and `/readyz` excepted, for the balancer's probes). The proxies' addresses or networks (`10.0.0.5,192.168.0.0/16`), whose `X-Forwarded-For`, `-Proto` and `-Host` alone are believed; `true` trusts loopback and private networks",
  },
  PUBLIC_URL: {
    value: '<url>',
    meaning: 'origin used in `Location`, `next` and `prev` (else taken from the request); **production sets it**: only its host is then served',
  },
  ALLOWED_HOSTS: {
    value: '<hosts>',
    shownDefault: 'listen address, `localhost`, `127.0.0.1`, `::1`',
    meaning:
      "host names served besides `PUBLIC_URL`'s (comma-separated; `*`: any); a request naming another `Host` gets 400. Without `PUBLIC_URL` and `TRUST_PROXY` the links are built from the `Host`, so it must also name the port the server listens on (`localhost:8443`; no port means 443): behind a port mapping (`docker run -p 9000:8443`), set `PUBLIC_URL` to the address clients use",
  },
  CORS_ORIGINS: {
    value: '<origins>',
    meaning: 'origins whose browser pages may call the API (`https://app.example.com,http://localhost:3000`); unset: CORS off',
  },
  PASSWORD_MIN_LENGTH: {
    value: '<n>',
    default: String(DEFAULT_PASSWORD_MIN_LENGTH),
    meaning: "shortest user password, through the API, SCIM and imports alike (v5's 6 up to 64; NIST SP 800-63B asks for 8); the refusal names it",
  },
  LOG_LEVEL: {
    value: '<level>',
    default: 'info',
    meaning: 'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`',
  },
  BODY_LIMIT: {
    value: '<size>',
    default: '1mb',
    meaning: 'larger request bodies get 413',
  },
  RATE_LIMIT: {
    value: '<n>/<period>|off',
    default: '1200/minute',
    meaning:
      'requests per token over a sliding window (`<n>/second`, `/minute`, `/hour`, or `off`); every answer to a valid token counts, a 403 for its scope included; requests without a valid token (none, a bad one, an unknown address) count against their address with the same budget of their own, and once it is spent only they are refused: a valid token from that address is served on its own budget; beyond a budget 429 with `Retry-After` and `RateLimit-*` headers',
  },
  OAUTH_RATE_LIMIT: {
    value: '<n>/<period>|off',
    default: '30/minute',
    meaning: "the OAuth endpoints' stricter budget, per address, and per client at `/oauth/token` (`off` to lift it)",
  },
  REDIS_URL: {
    value: '<url>',
    meaning:
      'shared rate-limit counters for several instances (`redis://127.0.0.1:6379`); if Redis is unreachable, requests are served unlimited and a warning is logged',
  },
  SESSION_IDLE_TIMEOUT: {
    value: '<duration>',
    default: '30m',
    meaning: "a person's session in a browser ends after this long unused (the sign-in pages, the account page)",
  },
  SESSION_MAX_AGE: {
    value: '<duration>',
    default: '10h',
    meaning: "a person's session ends this long after the sign-in, however much it is used",
  },
  SMTP_URL: {
    value: '<url>',
    meaning:
      'the SMTP server that sends forgotten-password links (`smtp://user:password@mail.example.com:587`, `smtps://…` for TLS from the start); without it no mail is sent and `training-api users reset-link` makes a link',
  },
  MAIL_FROM: {
    value: '<address>',
    shownDefault: "`training-api@` and `PUBLIC_URL`'s host",
    meaning: 'the sender of the mails',
  },
  OPERATOR_TOKEN: {
    value: '<token>',
    meaning:
      "the server operator's secret (32 characters or more): whoever gives it at `/o/operator/sign-in` lists organizations, creates them with their first administrator, and resets sandboxes; unset, those pages answer 404",
  },
  OAUTH_TOKEN_LIFETIME: {
    value: '<duration>',
    default: '1h',
    meaning: 'lifetime of the access tokens `POST /oauth/token` issues (1m to 24h)',
  },
  REQUEST_TIMEOUT: {
    value: '<duration>',
    default: DEFAULT_REQUEST_TIMEOUT,
    meaning: 'a request, headers and body, must have arrived within this of its first byte; else `408` and the connection is closed',
  },
  HEADERS_TIMEOUT: {
    value: '<duration>',
    shownDefault: '`10s`',
    meaning:
      'the headers must have arrived within this (at most `REQUEST_TIMEOUT`; unset, it is `REQUEST_TIMEOUT` when that is shorter than 10 s); a new connection that stays silent this long is closed too',
  },
  KEEP_ALIVE_TIMEOUT: {
    value: '<duration>',
    default: '72s',
    meaning:
      "an idle kept-alive connection is closed after this (longer than the usual load balancer's 60 s, so the balancer closes first); answers advertise a second less in `Keep-Alive: timeout=`, so that clients reading it close first; at least `2s`",
  },
  TLS_HANDSHAKE_TIMEOUT: {
    value: '<duration>',
    default: '10s',
    meaning: 'a connection that has not completed its TLS handshake within this of connecting is closed, however it trickles its bytes',
  },
  MAX_CONNECTIONS: {
    value: '<n>',
    default: '1000',
    meaning: "open connections per instance; a connection beyond it is closed at once (keep it below the process's descriptor limit, `ulimit -n`)",
  },
  MAX_CONNECTIONS_PER_ADDRESS: {
    value: '<n>',
    default: '100',
    meaning:
      'open connections from one client address (an IPv6 address counts with its /64); not applied behind `TRUST_PROXY`, where every connection comes from the proxy',
  },
  DATA_DIR: {
    value: '<dir>',
    default: DEFAULT_DATA_DIR,
    meaning: 'where the default database, certificate and bootstrap token live',
  },
  METRICS_PORT: {
    value: '<port>',
    meaning: 'serve Prometheus metrics at `http://<METRICS_HOST>:<METRICS_PORT>/metrics`, plain HTTP, nothing else on that port',
  },
  METRICS_HOST: {
    value: '<address>',
    default: '127.0.0.1',
    meaning: 'the address `METRICS_PORT` listens on',
  },
  METRICS_TOKEN: {
    value: '<token>',
    meaning:
      "also serve `GET /metrics` on the API's port to requests bearing `Authorization: Bearer <METRICS_TOKEN>` (16 characters or more; not an API token)",
  },
  EVENTS_RETENTION_DAYS: {
    value: '<days>',
    default: String(DEFAULT_RETENTION_DAYS),
    meaning: 'how long the event feed keeps events (and the deliveries list finished deliveries)',
  },
  WEBHOOKS_TIMEOUT: {
    value: '<duration>',
    default: '10s',
    meaning: 'longest a webhook delivery attempt may take',
  },
  WEBHOOKS_RETRY_BASE: {
    value: '<duration>',
    default: '30s',
    meaning: 'wait after a first failed delivery attempt; each later one waits four times longer (at most 6h), for 24 hours',
  },
  WEBHOOKS_POLL_INTERVAL: {
    value: '<duration>',
    default: '1s',
    meaning: 'how often each instance looks for due webhook deliveries',
  },
  WEBHOOKS_CONCURRENCY: {
    value: '<n>',
    default: '200',
    meaning: 'webhook deliveries in flight at once per instance, to all endpoints together',
  },
  WEBHOOKS_ENDPOINT_CONCURRENCY: {
    value: '<n>',
    default: '8',
    meaning:
      "webhook deliveries in flight at once per instance to one endpoint: all a slow or hanging endpoint can hold of the instance's slots (one resource's events go one at a time whatever this is)",
  },
  IMPORT_BATCH_TIME: {
    value: '<duration>',
    default: `${DEFAULT_BATCH_MS}ms`,
    meaning:
      "how long each batch of an import (its rows compared and written, in one transaction) is sized to take; the import gives the server a turn between batches. Shorter lets the API's writes wait less for an import's (on SQLite, for the database's write lock); longer imports faster",
  },
  IMPORT_SHARED_BATCH_TIME: {
    value: '<duration>',
    default: `${DEFAULT_SHARED_BATCH_MS}ms`,
    meaning:
      "on SQLite, how long each batch of an import is sized to take while other connections write beside it (the API, when the import runs as `training-api import users`); after each such batch the import waits for their next write (at most 5 ms) before it writes again. About what an API write then waits for the import's write lock; never more than IMPORT_BATCH_TIME",
  },
  IMPORT_PARALLELISM: {
    value: '<n>',
    shownDefault: 'the number of cores',
    meaning: 'passwords an import hashes at once (its share of the cores while a file with passwords is imported)',
  },
  WEBHOOKS_ALLOW_INSECURE_LOOPBACK: {
    value: 'true|false',
    meaning: 'also accept `http://` webhook URLs to loopback addresses (local development, tests); otherwise only `https` to public addresses',
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;
/** The settings that have a default of their own. */
type DefaultedSetting = { [Name in SettingName]: (typeof SETTINGS)[Name] extends { default: string } ? Name : never }[SettingName];

export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** `DATABASE_URL` → `database-url`, the flag (without its dashes) that sets it on the command line. */
export function flagOf(name: SettingName): string {
  return name.toLowerCase().replace(/_/g, '-');
}

/** The settings as the table of docs/configuration.md (Markdown), one row a setting. */
export function settingsTable(): string {
  const rows = SETTING_NAMES.map((name) => {
    const setting: SettingSpec = SETTINGS[name];
    const shown = setting.shownDefault ?? (setting.default === undefined ? 'unset' : `\`${setting.default}\``);
    return `| \`${name}\` | ${shown} | ${setting.meaning.replace(/\|/g, '\\|')} |`;
  });
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** `1mb`, `512kb`, `2048` → bytes. */
function parseByteSize(value: string): number {
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
function parseDuration(value: string, name: string): number {
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

function topologyOf(settings: Settings, databaseUrl: string): PostgresTopologyOptions {
  const readUrl = parseOtherPostgresUrl(settings.given('DATABASE_READ_URL'), 'DATABASE_READ_URL', databaseUrl);
  const listenUrl = parseOtherPostgresUrl(settings.given('DATABASE_LISTEN_URL'), 'DATABASE_LISTEN_URL', databaseUrl);
  const transactionPooler = parsePoolMode(settings.value('DATABASE_POOL_MODE'));
  return {
    ...(readUrl ? { readUrl } : {}),
    readMaxLagMs: settings.duration('DATABASE_READ_MAX_LAG'),
    ...(listenUrl ? { listenUrl } : {}),
    transactionPooler,
    preparedStatements: parsePreparedStatements(settings.given('DATABASE_PREPARED_STATEMENTS'), transactionPooler),
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

/**
 * Timeouts and connection caps. A header timeout longer than the request's would never fire: its
 * default follows a shorter REQUEST_TIMEOUT, and only one set longer is refused.
 */
function clientLimits(settings: Settings): ClientLimits {
  const requestTimeoutMs = settings.duration('REQUEST_TIMEOUT');
  const headersTimeout = settings.given('HEADERS_TIMEOUT');
  const limits: ClientLimits = {
    requestTimeoutMs,
    headersTimeoutMs: headersTimeout ? parseDuration(headersTimeout, 'HEADERS_TIMEOUT') : Math.min(DEFAULT_HEADERS_TIMEOUT_MS, requestTimeoutMs),
    keepAliveTimeoutMs: settings.duration('KEEP_ALIVE_TIMEOUT'),
    tlsHandshakeTimeoutMs: settings.duration('TLS_HANDSHAKE_TIMEOUT'),
    maxConnections: settings.count('MAX_CONNECTIONS'),
    maxConnectionsPerAddress: settings.count('MAX_CONNECTIONS_PER_ADDRESS'),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    const requestTimeout = settings.given('REQUEST_TIMEOUT') ?? `${DEFAULT_REQUEST_TIMEOUT}, its default`;
    throw new ConfigError(`HEADERS_TIMEOUT (${headersTimeout}) must not be longer than REQUEST_TIMEOUT (${requestTimeout})`);
  }
  if (limits.keepAliveTimeoutMs < MIN_KEEP_ALIVE_TIMEOUT_MS) {
    throw new ConfigError(`KEEP_ALIVE_TIMEOUT must be at least ${MIN_KEEP_ALIVE_TIMEOUT_MS / 1000}s (got "${settings.given('KEEP_ALIVE_TIMEOUT')}")`);
  }
  return limits;
}

/** The settings as given (a flag's value, else the environment's), and as they are read with the table's defaults. */
interface Settings {
  given(name: SettingName): string | undefined;
  value(name: DefaultedSetting): string;
  duration(name: DefaultedSetting): number;
  count(name: DefaultedSetting): number;
}

function settingsOf(env: Env, overrides: Env): Settings {
  const given = (name: SettingName) => overrides[name] ?? env[name];
  const value = (name: DefaultedSetting) => given(name) ?? SETTINGS[name].default;
  return {
    given,
    value,
    duration: (name) => parseDuration(value(name), name),
    count: (name) => parsePositiveInteger(value(name), name),
  };
}

/** Reads the configuration from `env`; `overrides` come from command-line flags, keyed like the variables. */
export function loadConfig(env: Env, overrides: Env = {}): Config {
  const settings = settingsOf(env, overrides);
  const { given, value, duration, count } = settings;
  const dataDir = value('DATA_DIR');
  const certFile = given('TLS_CERT_FILE');
  const keyFile = given('TLS_KEY_FILE');
  if (Boolean(certFile) !== Boolean(keyFile)) {
    throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  const publicUrl = given('PUBLIC_URL');
  const databaseUrl = parseDatabaseUrl(given('DATABASE_URL') ?? `sqlite:${dataDir}/training-api.db`);
  return {
    databaseUrl,
    databasePoolSize: count('DATABASE_POOL_SIZE'),
    host: value('HOST'),
    port: parsePort(value('PORT'), 'PORT'),
    tlsCertFile: certFile,
    tlsKeyFile: keyFile,
    trustProxy: parseTrustProxy(given('TRUST_PROXY')),
    publicUrl: publicUrl ? parsePublicUrl(publicUrl) : undefined,
    allowedHosts: allowedHostsOf(given('ALLOWED_HOSTS'), publicUrl ? parsePublicUrl(publicUrl) : undefined, value('HOST')),
    corsOrigins: parseCorsOrigins(given('CORS_ORIGINS') ?? ''),
    passwordPolicy: { minLength: parsePasswordMinLength(value('PASSWORD_MIN_LENGTH')) },
    logLevel: parseLogLevel(value('LOG_LEVEL')),
    bodyLimit: parseByteSize(value('BODY_LIMIT')),
    dataDir,
    rateLimit: rateLimitOf(value('RATE_LIMIT'), value('OAUTH_RATE_LIMIT'), given('REDIS_URL')),
    database: {
      connectTimeoutMs: duration('DATABASE_CONNECT_TIMEOUT'),
      statementTimeoutMs: duration('DATABASE_STATEMENT_TIMEOUT'),
      idleTimeoutMs: duration('DATABASE_IDLE_TIMEOUT'),
      keepAliveMs: duration('DATABASE_KEEPALIVE'),
    },
    topology: topologyOf(settings, databaseUrl),
    shutdownDelayMs: /^\s*0+(ms|s)?\s*$/i.test(value('SHUTDOWN_DELAY')) ? 0 : duration('SHUTDOWN_DELAY'),
    oauthTokenLifetimeSeconds: oauthTokenLifetime(value('OAUTH_TOKEN_LIFETIME')),
    people: peopleOf(settings, publicUrl ? parsePublicUrl(publicUrl) : undefined),
    sqliteSynchronous: parseSqliteSynchronous(value('SQLITE_SYNCHRONOUS')),
    events: {
      retentionDays: count('EVENTS_RETENTION_DAYS'),
      webhooks: {
        allowInsecureLoopback: parseBoolean(given('WEBHOOKS_ALLOW_INSECURE_LOOPBACK')),
        retryBaseMs: duration('WEBHOOKS_RETRY_BASE'),
        timeoutMs: duration('WEBHOOKS_TIMEOUT'),
        pollIntervalMs: duration('WEBHOOKS_POLL_INTERVAL'),
        concurrency: count('WEBHOOKS_CONCURRENCY'),
        endpointConcurrency: count('WEBHOOKS_ENDPOINT_CONCURRENCY'),
      },
    },
    clients: clientLimits(settings),
    workers: count('WORKERS'),
    metrics: metricsOf(settings),
    imports: {
      batchMs: duration('IMPORT_BATCH_TIME'),
      sharedBatchMs: duration('IMPORT_SHARED_BATCH_TIME'),
      ...(given('IMPORT_PARALLELISM') === undefined ? {} : { parallelism: parsePositiveInteger(given('IMPORT_PARALLELISM')!, 'IMPORT_PARALLELISM') }),
    },
  };
}

function peopleOf({ given, duration }: Settings, publicUrl: string | undefined): PeopleSettings {
  const sessions = { idleMs: duration('SESSION_IDLE_TIMEOUT'), maxMs: duration('SESSION_MAX_AGE') };
  if (sessions.idleMs > sessions.maxMs) {
    throw new ConfigError(
      `SESSION_IDLE_TIMEOUT (${given('SESSION_IDLE_TIMEOUT')}) must not be longer than SESSION_MAX_AGE (${given('SESSION_MAX_AGE') ?? SETTINGS.SESSION_MAX_AGE.default})`,
    );
  }
  const operatorToken = given('OPERATOR_TOKEN');
  if (operatorToken !== undefined && operatorToken.length < MIN_OPERATOR_TOKEN_LENGTH) {
    throw new ConfigError(`OPERATOR_TOKEN must be at least ${MIN_OPERATOR_TOKEN_LENGTH} characters long`);
  }
  const operator = operatorToken !== undefined ? { operatorToken } : {};
  const url = given('SMTP_URL');
  if (url === undefined) return { sessions, ...operator };
  if (!/^smtps?:\/\/[^/]/i.test(url))
    throw new ConfigError(`SMTP_URL must be an smtp:// or smtps:// URL (got "${url.replace(/\/\/[^@/]*@/, '//…@')}")`);
  const host = publicUrl ? new URL(publicUrl).hostname : 'localhost';
  return { sessions, ...operator, mail: { url, from: given('MAIL_FROM') ?? `training-api@${host}` } };
}

/** The operator's token stands for a password no one chose: long enough that guessing it is hopeless. */
const MIN_OPERATOR_TOKEN_LENGTH = 32;

const MIN_METRICS_TOKEN_LENGTH = 16;

function metricsOf({ given, value }: Settings): MetricsSettings | undefined {
  const port = given('METRICS_PORT');
  const token = given('METRICS_TOKEN');
  if (port === undefined && token === undefined) return undefined;
  if (port !== undefined && Number(value('WORKERS')) > 1) {
    // Every worker would open the administration port; with workers, each answers /metrics on the API's port.
    throw new ConfigError('METRICS_PORT cannot be combined with WORKERS above 1: use METRICS_TOKEN to read each worker on the API port');
  }
  if (token !== undefined && token.length < MIN_METRICS_TOKEN_LENGTH) {
    throw new ConfigError(`METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN_LENGTH} characters long`);
  }
  return {
    ...(port !== undefined ? { port: parsePort(port, 'METRICS_PORT') } : {}),
    host: value('METRICS_HOST'),
    ...(token !== undefined ? { token } : {}),
  };
}
