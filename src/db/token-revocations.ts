import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { locatedClient, type HostLocator } from './postgres-hosts.js';

/**
 * Tells the token check when a token may have been revoked or deleted anywhere, so that it can keep
 * the tokens it has resolved and still refuse a revoked one on the next request, on every instance.
 */
export interface RevocationWatch {
  /** Changes whenever a token may have been revoked; undefined while that cannot be known. */
  epoch(): number | undefined;
  close(): Promise<void>;
}

/** The channel the PostgreSQL trigger of migration 0008 notifies on every revocation or deletion. */
const TOKENS_REVOKED_CHANNEL = 'training_api_tokens_revoked';
const RELISTEN_DELAY_MS = 1000;

// This process's own revocations: SQLite's data_version counts only other connections' commits,
// and a PostgreSQL notification comes back a round trip later.
let revokedHere = 0;

/** Called right after this process revoked or deleted tokens. */
export function noteTokensRevoked(): void {
  revokedHere += 1;
}

/** How long a read of SQLite's data_version stands for: a revocation by another process takes effect within it. */
const DATA_VERSION_READ_VALID_MS = 1;

/**
 * SQLite: `PRAGMA data_version` moves whenever another connection (a worker, the CLI) commits. A
 * read serves the requests of the next millisecond too, so a busy server pays one read for several
 * requests, while a revocation made by another process is still refused by every request that
 * arrives more than a millisecond after it.
 */
export function sqliteRevocationWatch(sqlite: BetterSqlite3.Database): RevocationWatch {
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  let version = 0;
  let readAt = -Infinity;
  return {
    epoch() {
      const at = performance.now();
      if (at - readAt >= DATA_VERSION_READ_VALID_MS) {
        version = dataVersion.get() as number;
        readAt = at;
      }
      return version + revokedHere;
    },
    close: async () => {},
  };
}

/**
 * PostgreSQL: a connection of its own LISTENs on the channel the trigger notifies, on the primary (a
 * standby delivers no notifications), found again after a failover. While it is not listening
 * (starting, or lost and being replaced) the epoch is unknown, so nothing is kept.
 */
export function postgresRevocationWatch(locator: HostLocator): RevocationWatch {
  const Client = locatedClient(locator);
  let notices = 0;
  let listening = false;
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  function listen(): void {
    const current = new Client({ connectionString: locator.target.url, keepAlive: true });
    client = current;
    let lost = false;
    const onLost = (): void => {
      if (lost) return;
      lost = true;
      listening = false;
      current.end().catch(() => {});
      if (!closed) retry = setTimeout(listen, RELISTEN_DELAY_MS).unref();
    };
    current.on('notification', () => {
      notices += 1;
    });
    current.on('error', onLost);
    current.on('end', onLost);
    current
      .connect()
      .then(() => current.query(`listen ${TOKENS_REVOKED_CHANNEL}`))
      .then(() => {
        if (lost) return;
        // Whatever was revoked while no one listened: start afresh.
        notices += 1;
        listening = true;
      }, onLost);
  }

  listen();
  return {
    epoch: () => (listening ? notices + revokedHere : undefined),
    async close() {
      closed = true;
      listening = false;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
