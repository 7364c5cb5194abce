/**
 * Which database errors mean "the database cannot serve right now" (the request may succeed when
 * retried), as opposed to a mistake in a query or in the data.
 */

/** Node's socket and DNS errors on the way to PostgreSQL. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception) and 53 (insufficient resources: disk
 * full, out of memory, too many connections), administrator or crash shutdown, the server still
 * starting (57P03), a statement cancelled by statement_timeout (57014), and a session ended by
 * idle_in_transaction_session_timeout (25P03).
 */
const POSTGRES_UNAVAILABLE = /^(08|53)|^57P0[1-3]$|^57014$|^25P03$/;

/** pg's own errors for a connection that ended, could not be made in time, or stopped answering. */
const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/;

/**
 * SQLite: the file is locked by someone else (BUSY, LOCKED), the disk is full, an I/O error, the
 * file or its directory became read-only or cannot be opened, or the locking protocol failed.
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|PROTOCOL|NOMEM)(_|$)/;

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A connection to PostgreSQL that must not be used again: it ended, or its server stopped answering. */
export function isBrokenConnection(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined && (NETWORK_CODES.has(code) || /^(08|57P0[12])|^25P03$/.test(code))) return true;
  return error instanceof Error && PG_CONNECTION_MESSAGES.test(error.message);
}

/** The database is unreachable, stopped, overloaded, out of space or locked: worth retrying later. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (isBrokenConnection(error)) return true;
  const code = codeOf(error);
  if (code === undefined) return false;
  return POSTGRES_UNAVAILABLE.test(code) || SQLITE_UNAVAILABLE.test(code);
}
