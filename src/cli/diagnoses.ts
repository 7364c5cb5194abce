import { statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, resolve, sep } from 'node:path';
import type { Config } from '../config.js';
import { SetupError } from './command.js';

/**
 * Failures of the environment told the way an operator can act on them: what is wrong, and the setting
 * that changes it. Each returns the one line to print, or undefined for a failure it does not know,
 * whose own message is printed then.
 */

/** What Node.js and the PostgreSQL driver put on the errors they throw. */
interface SystemError {
  code?: unknown;
  message?: string;
  path?: string;
  syscall?: string;
  address?: string;
  port?: number;
  hostname?: string;
}

/** Whether one of two paths is the other or holds it. */
function related(one: string, other: string): boolean {
  const [a, b] = [resolve(one), resolve(other)];
  return a === b || a.startsWith(`${b}${sep}`) || b.startsWith(`${a}${sep}`);
}

/** The setting (and its flag) that chose a path, when one of them did. */
function settingOf(path: string, config: Config): string {
  if (related(path, config.dataDir)) return ' (DATA_DIR, --data-dir)';
  return config.databaseUrl.startsWith('sqlite:') && related(path, config.databaseUrl.slice('sqlite:'.length)) ? ' (DATABASE_URL)' : '';
}

/** The nearest of the paths above `path` that exists, when it is a file (the others above it cannot be looked at). */
function fileAbove(path: string): string | undefined {
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const found = statSync(dir, { throwIfNoEntry: false });
      if (found) return found.isDirectory() ? undefined : dir;
    } catch {
      // ENOTDIR: the file is further up.
    }
  }
  return undefined;
}

/** A directory that is a file, a file that cannot be read or written, an address in use. */
export function environmentDiagnosis(error: unknown, config: Config): string | undefined {
  const { code, path, syscall, address, port } = error as SystemError;
  if (code === 'EADDRINUSE') {
    const setting = port === config.metrics?.port && port !== config.port ? 'METRICS_PORT (--metrics-port)' : 'PORT (--port)';
    return `${address}:${port} is in use by another program: stop it, or set ${setting} to a free port`;
  }
  if (!path) return undefined;
  const file = code === 'EEXIST' && syscall === 'mkdir' ? path : code === 'ENOTDIR' ? fileAbove(path) : undefined;
  if (file) return `${file} is a file, not a directory${settingOf(file, config)}`;
  if (code === 'EACCES' || code === 'EPERM') {
    return `permission denied on ${path}${settingOf(path, config)}: the user running training-api (${userInfo().username}) must be able to read and write it`;
  }
  return undefined;
}

/** Runs `work` on the database of DATABASE_URL: a server out of reach, or a database missing, is told as what to set. */
export async function reachingDatabase<T>(databaseUrl: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const diagnosis = databaseDiagnosis(error, databaseUrl);
    throw diagnosis ? new SetupError(diagnosis, { cause: error }) : error;
  }
}

/** The PostgreSQL server of DATABASE_URL that cannot be reached, or the database it lacks. */
export function databaseDiagnosis(error: unknown, databaseUrl: string): string | undefined {
  const { code, message, address, port, hostname } = error as SystemError;
  if (code === 'ECONNREFUSED') {
    return `nothing accepts connections at ${address}:${port}: start PostgreSQL there, or set DATABASE_URL (--database-url) to where it listens`;
  }
  if (code === 'ENOTFOUND') return `the host ${hostname} of DATABASE_URL is not known: correct DATABASE_URL (--database-url)`;
  // invalid_catalog_name: the server answers, without the database.
  if (code === '3D000') return `${message}: create it with \`${createdb(databaseUrl)}\`, or set DATABASE_URL (--database-url) to one that exists`;
  if (code === '28P01') return `${message}: DATABASE_URL (--database-url) must hold the role's password`;
  return undefined;
}

/** The createdb command that makes the database of a postgres:// URL, on its first host, as its role. */
function createdb(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl.replace(/^(postgres(?:ql)?:\/\/[^/,]*),[^/]*/, '$1'));
    const name = decodeURIComponent(url.pathname.slice(1));
    const options = [url.hostname && `-h ${url.hostname}`, url.port && `-p ${url.port}`, url.username && `-U ${decodeURIComponent(url.username)}`];
    return ['createdb', ...options.filter(Boolean), name].join(' ');
  } catch {
    return 'createdb <name>';
  }
}
