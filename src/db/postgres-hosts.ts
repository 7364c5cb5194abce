import pg from 'pg';

/** One host of a PostgreSQL URL's host list. */
export interface PostgresHost {
  host: string;
  port: number;
}

/**
 * A PostgreSQL URL in libpq's syntax, which node-postgres does not read when it names several hosts
 * (`postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write`): the hosts, and the URL of the
 * first one without `target_session_attrs`, which pg parses for everything else.
 */
interface PostgresTarget {
  hosts: PostgresHost[];
  /** Whether only a writable server will do (target_session_attrs read-write or primary). */
  writableOnly: boolean;
  /** The URL for pg: the first host's, for the user, password, database and TLS settings. */
  url: string;
}

const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/;
const DEFAULT_PORT = 5432;
const WRITABLE_ATTRS = new Set(['read-write', 'primary']);

/** The URL without its password, for messages. */
export function redacted(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

function parseHost(entry: string, url: string, setting: string): PostgresHost {
  const match = /^(\[[^\]]+\]|[^:[\]]*)(?::(\d+))?$/.exec(entry);
  if (!match) throw new Error(`${setting} lists a host it cannot read: "${entry}" in ${redacted(url)}`);
  return { host: (match[1] ?? '').replace(/^\[|\]$/g, ''), port: match[2] ? Number(match[2]) : DEFAULT_PORT };
}

/**
 * Reads a PostgreSQL URL with one host or several; `setting` names it in messages. The server's own
 * DATABASE_URL must ask for a writable server when it lists several, or a standby could be chosen.
 */
export function parsePostgresTarget(url: string, setting = 'DATABASE_URL', writes = true): PostgresTarget {
  const parts = URL_PARTS.exec(url);
  if (!parts) throw new Error(`${setting} must be a postgres:// URL (got "${redacted(url)}")`);
  const [, scheme, userinfo = '', hostList, rest = ''] = parts as unknown as [string, string, string | undefined, string, string | undefined];
  const hosts = hostList.split(',').map((entry) => parseHost(entry, url, setting));
  const queryStart = rest.indexOf('?');
  const path = queryStart < 0 ? rest : rest.slice(0, queryStart);
  const params = new URLSearchParams(queryStart < 0 ? '' : rest.slice(queryStart + 1));
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (attrs !== 'any' && !WRITABLE_ATTRS.has(attrs)) {
    throw new Error(`${setting}: target_session_attrs must be read-write, primary or any (got "${attrs}")`);
  }
  if (writes && hosts.length > 1 && !WRITABLE_ATTRS.has(attrs)) {
    throw new Error(`${setting} names several hosts: add target_session_attrs=read-write so that the server writes only to the primary`);
  }
  const writableOnly = WRITABLE_ATTRS.has(attrs);
  // One host and nothing to check: the URL goes to pg as it is (a socket directory in ?host= included).
  if (hosts.length === 1 && !params.has('target_session_attrs')) return { hosts, writableOnly, url };
  params.delete('target_session_attrs');
  const search = params.toString();
  return { hosts, writableOnly, url: `${scheme}${userinfo}${hostName(hosts[0]!)}${path}${search ? `?${search}` : ''}` };
}

/** A host as a URL, metrics and /readyz write it. */
export function hostName({ host, port }: PostgresHost): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** 08001 (cannot connect): the class of errors answered 503 with Retry-After (faults.ts). */
function noServerError(message: string): Error {
  return Object.assign(new Error(message), { code: '08001' });
}

/**
 * Finds the server to connect to among a target's hosts, as libpq does with target_session_attrs:
 * one that accepts a connection and, when only a writable one will do, answers that it is not in
 * recovery (a standby is). The answer is kept until `forget`, called when a connection to it broke
 * or would not open: after a failover the next connection asks again and finds the promoted standby.
 */
export class HostLocator {
  #current: PostgresHost | undefined;
  #finding: Promise<PostgresHost> | undefined;

  constructor(
    readonly target: PostgresTarget,
    private readonly connectTimeoutMs = 5000,
  ) {}

  /** The host in use, when one has been found. */
  get current(): PostgresHost | undefined {
    return this.#current ?? (this.needsLooking ? undefined : this.target.hosts[0]);
  }

  /** Without a choice to make, connections go where the URL says, with no extra round trip. */
  get needsLooking(): boolean {
    return this.target.hosts.length > 1 || this.target.writableOnly;
  }

  async locate(): Promise<PostgresHost> {
    if (!this.needsLooking) return this.target.hosts[0]!;
    if (this.#current) return this.#current;
    this.#finding ??= this.#find().finally(() => {
      this.#finding = undefined;
    });
    return this.#finding;
  }

  /** The host in use (or `host`, if it is the one in use) failed: the next connection looks again. */
  forget(host?: PostgresHost): void {
    if (!host || (this.#current?.host === host.host && this.#current.port === host.port)) this.#current = undefined;
  }

  /** Every host asked at once; of those that qualify, the first in the list wins. */
  async #find(): Promise<PostgresHost> {
    const { hosts } = this.target;
    const answers = await Promise.allSettled(hosts.map((host) => this.#qualifies(host)));
    const index = answers.findIndex((answer) => answer.status === 'fulfilled' && answer.value);
    if (index >= 0) return (this.#current = hosts[index]!);
    const reasons = answers.map(
      (answer, i) => `${hostName(hosts[i]!)} ${answer.status === 'rejected' ? (answer.reason as Error).message : 'is in recovery'}`,
    );
    throw noServerError(`No writable PostgreSQL server: ${reasons.join('; ')}`);
  }

  async #qualifies(host: PostgresHost): Promise<boolean> {
    const client = new pg.Client({ connectionString: this.target.url, connectionTimeoutMillis: this.connectTimeoutMs });
    // The URL's host would win over a host given beside it; pg reads these when it connects.
    client.host = host.host;
    client.port = host.port;
    client.on('error', () => {});
    try {
      await client.connect();
      if (!this.target.writableOnly) return true;
      const { rows } = await client.query<{ recovery: boolean }>('select pg_is_in_recovery() as recovery');
      return rows[0]?.recovery === false;
    } finally {
      client.end().catch(() => {});
    }
  }
}

/**
 * A pg.Client class that connects to the host the locator names at the moment it connects (pg reads
 * `host` and `port` only then), and tells the locator when that host fails.
 */
export function locatedClient(locator: HostLocator): typeof pg.Client {
  return class LocatedClient extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: (error: Error | null, client?: pg.Client) => void): void;
    override connect(callback?: (error: Error | null, client?: pg.Client) => void): Promise<pg.Client> | void {
      if (!locator.needsLooking) return callback ? super.connect(callback) : super.connect();
      const connected = locator.locate().then(async (host) => {
        this.host = host.host;
        this.port = host.port;
        try {
          await super.connect();
        } catch (error) {
          locator.forget(host);
          throw error;
        }
        this.on('error', () => locator.forget(host));
        return this;
      });
      if (!callback) return connected;
      connected.then((client) => callback(null, client), callback);
    }
  };
}
