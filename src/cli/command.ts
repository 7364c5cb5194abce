import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import { parseScopes, type Scope } from '../auth/scopes.js';
import { flagOf, SETTING_NAMES, type Config, type Env, type SettingName } from '../config.js';
import type { Database } from '../db/schema.js';
import { COMMAND_LINE_ACTOR } from '../lib/actors.js';
import { NotFound } from '../lib/domain-errors.js';
import { organizationsService, type Organization } from '../tenancy/organizations.service.js';

/**
 * What every command shares: the options, the errors, the context a command runs in. The commands
 * themselves are in commands/, each loaded only when it runs (main.ts lists them), so that `--help`
 * and `--version` need nothing else.
 */

/** The organization's administrator at the command line, for services that take a caller. */
export function commandLineCaller(orgId: string): Caller {
  return { orgId, tokenId: 'command-line', scopes: ['read', 'write'], actor: COMMAND_LINE_ACTOR };
}

/**
 * The origin people reach the server at: PUBLIC_URL, else the address it listens on (the self-signed
 * default's https://127.0.0.1:8443), for the links the command line prints.
 */
export function publicOrigin(config: Config): string {
  if (config.publicUrl) return new URL(config.publicUrl).origin;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${config.trustProxy ? 'http' : 'https'}://${host}:${config.port}`;
}

/** An organization's own addresses: where its people sign in, and where its administrators run it. */
export function organizationUrls(config: Config, orgId: string): { signInUrl: string; consoleUrl: string } {
  const base = `${publicOrigin(config)}/o/${orgId}`;
  return { signInUrl: `${base}/sign-in`, consoleUrl: `${base}/console` };
}

/** Thrown for a mistake of the caller: printed without a stack trace, exit code 2. */
export class UsageError extends Error {}

/** The environment is not ready for the command (no database yet): one line, exit code 1. */
export class SetupError extends Error {}

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** Options every command takes. */
export const COMMON_OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

/** Options particular to some commands; each command lists the ones it takes. */
const COMMAND_OPTIONS = {
  name: { type: 'string' },
  org: { type: 'string' },
  scopes: { type: 'string' },
  expires: { type: 'string' },
  users: { type: 'string' },
  'userfield-values': { type: 'string' },
  registrations: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  attribute: { type: 'string' },
  userfield: { type: 'string' },
  yes: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  format: { type: 'string' },
  output: { type: 'string' },
  encoding: { type: 'string' },
  map: { type: 'string' },
  'ignore-columns': { type: 'string' },
  sheet: { type: 'string' },
  'header-row': { type: 'string' },
  locale: { type: 'string' },
  'deactivate-missing': { type: 'boolean' },
  'max-changes': { type: 'string' },
  'only-imported': { type: 'boolean' },
  excel: { type: 'boolean' },
  'redirect-uri': { type: 'string', multiple: true },
  'post-logout-redirect-uri': { type: 'string', multiple: true },
  public: { type: 'boolean' },
  sandbox: { type: 'boolean' },
  email: { type: 'string' },
} as const;

export type CommandOption = keyof typeof COMMAND_OPTIONS;

const TAKES_VALUE = new Set(
  Object.entries(COMMAND_OPTIONS)
    .filter(([, option]) => option.type === 'string')
    .map(([name]) => `--${name}`)
    .concat(SETTING_NAMES.map((name) => `--${flagOf(name)}`)),
);

/**
 * `--users -3` as `--users=-3`: a negative number is the option's value (then refused for its range),
 * where Node's parser would take it for an option and call the value ambiguous.
 */
function negativeValuesJoined(argv: string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const [arg, next] = [argv[index]!, argv[index + 1]];
    if (TAKES_VALUE.has(arg) && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      index++;
    } else joined.push(arg);
  }
  return joined;
}

export function parse(argv: string[]) {
  try {
    return parseArgs({
      args: negativeValuesJoined(argv),
      allowPositionals: true,
      options: {
        ...COMMON_OPTIONS,
        ...COMMAND_OPTIONS,
        ...Object.fromEntries(SETTING_NAMES.map((name) => [flagOf(name), { type: 'string' as const }])),
      },
    });
  } catch (error) {
    // Node's own messages run to three sentences; one line says enough.
    const { code, message } = error as { code?: string; message: string };
    const option = /'(-[^']*)'/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`unknown option ${option}; see training-api --help`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new UsageError(`${message.split('\n')[0]}`);
    throw error;
  }
}

export type Values = ReturnType<typeof parse>['values'];

/** The settings given as flags, keyed by their environment variables. */
export function settingsOf(values: Values): Env {
  const overrides: Env = {};
  for (const name of SETTING_NAMES) {
    const value = (values as Record<string, unknown>)[flagOf(name)];
    if (typeof value === 'string') overrides[name] = value;
  }
  return overrides;
}

export function required(value: string | undefined, flag: string): string {
  if (!value?.trim()) throw new UsageError(`${flag} is required`);
  return value;
}

/** The whole number given for `flag`, from `min` up to `max` when there is one. */
export function countOption(value: string | undefined, flag: string, min: number, max?: number): number {
  const count = Number(required(value, flag));
  if (!/^\d+$/.test(value!.trim()) || count < min || (max !== undefined && count > max)) {
    const range = max === undefined ? (min === 1 ? 'a positive integer' : `an integer of at least ${min}`) : `an integer from ${min} to ${max}`;
    throw new UsageError(`${flag} must be ${range} (got "${value}")`);
  }
  return count;
}

/** The organization `id` names, or the usage error that says there is none. */
export async function existingOrganization(db: Kysely<Database>, id: string): Promise<Organization> {
  try {
    return await organizationsService(db).get(id);
  } catch (error) {
    if (error instanceof NotFound) throw new UsageError(`No organization has the id ${id}`);
    throw error;
  }
}

/** The `--org` value, which must name an existing organization. */
export async function organizationOf(db: Kysely<Database>, orgId: string | undefined): Promise<string> {
  return (await existingOrganization(db, required(orgId, '--org'))).id;
}

/** The `--scopes` value; an empty one is refused like any other list without a scope, not read as "all scopes". */
export function scopesOption(value: string | undefined): Scope[] | undefined {
  try {
    return value === undefined ? undefined : parseScopes(value);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A value as a table cell: a list joined by commas, an object as JSON, nothing as an empty cell. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cell).join(',');
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

export function table(rows: Record<string, unknown>[], columns: string[]): string {
  return rows.map((row) => columns.map((c) => cell(row[c])).join('\t')).join('\n');
}

/** What opening a command's database did: the SQLite file it created, if any, and the migrations it applied. */
export interface Migrated {
  created?: string;
  applied: string[];
}

export interface Context {
  values: Values;
  /** The positional arguments after the command's name. */
  args: string[];
  config: Config;
  io: Output;
  /** `value` as JSON with --json, else `plain`. */
  print(value: unknown, plain: string): void;
  /** The database, for commands that declare one. */
  db: Kysely<Database>;
  /** What opening it did, for commands that declare one. */
  migrated: Migrated;
}

/** An option a command takes: its value as the help writes it (none for a switch), what it does, whether it must be given. */
export interface OptionUse {
  value?: string;
  meaning: string;
  required?: boolean;
}

/**
 * A command, as the command line parses it and its help describes it: the usage line, the options,
 * the settings and the exit codes of `training-api <command> --help` are written from these fields.
 */
export interface Command {
  /** The words that call it: `tokens create`. */
  name: string;
  description: string;
  /** Positional arguments, in order, each with what it is; each is required. */
  args?: Record<string, string>;
  /** Options beyond --json, --help and the settings of the environment. */
  options?: Partial<Record<CommandOption, OptionUse>>;
  /** Opened and migrated before `run`: `create` may create a new SQLite file, `existing` refuses to. */
  database?: 'create' | 'existing';
  /** The settings it reads (all of them for `serve`); a command with a database reads DATABASE_URL and DATA_DIR. */
  settings?: readonly SettingName[] | 'all';
  /** Its exit codes where they differ from every command's (0 done, 1 the environment failed, 2 a usage error). */
  exits?: Record<number, string>;
  run(context: Context): Promise<number>;
}
