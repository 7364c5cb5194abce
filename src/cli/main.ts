import { existsSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { parseArgs } from 'node:util';
import { loadConfig, type Config, type Env } from '../config.js';
import { ConfigError } from '../lib/config-error.js';
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { organizationsRepository } from '../resources/organizations/organizations.repository.js';
import { parseScopes, type Scope } from '../auth/scopes.js';
import { clientsService } from '../oauth/clients.service.js';
import { tokensService } from '../auth/tokens.service.js';
import type { Caller } from '../auth/caller.js';
import { DomainError } from '../lib/domain-errors.js';
import { VERSION } from '../lib/version.js';
import { attributeMappingsService } from '../scim/mappings/attribute-mappings.service.js';
import { backupCommand } from './backup.js';
import { copyCommand } from './copy.js';
import { formatOf, FORMATS, type Format } from '../imports/file-rows.js';
import { importOptionsOf } from '../imports/import-options.js';
import { exportCommand, importCommand } from './users-transfer.js';
import { MAX_SEEDED_REGISTRATIONS, MAX_SEEDED_USERFIELD_VALUES, seed } from './seed.js';

/** The organization's administrator at the command line, for services that take a caller. */
function commandLineCaller(orgId: string): Caller {
  return { orgId, tokenId: 'command-line', scopes: ['read', 'write'] };
}

/** Thrown for a mistake of the caller: printed without a stack trace, exit code 2. */
class UsageError extends Error {}

/** The environment is not ready for the command (no database yet): one line, exit code 1. */
class SetupError extends Error {}

interface Output {
  out(line: string): void;
  err(line: string): void;
}

const SETTINGS = [
  'database-url',
  'database-pool-size',
  'host',
  'port',
  'tls-cert-file',
  'tls-key-file',
  'trust-proxy',
  'public-url',
  'log-level',
  'body-limit',
  'data-dir',
  'rate-limit',
  'redis-url',
  'database-connect-timeout',
  'database-statement-timeout',
  'database-idle-timeout',
  'database-keepalive',
  'sqlite-synchronous',
  'oauth-token-lifetime',
  'oauth-rate-limit',
  'request-timeout',
  'headers-timeout',
  'keep-alive-timeout',
  'tls-handshake-timeout',
  'max-connections',
  'max-connections-per-address',
  'metrics-port',
  'metrics-host',
  'metrics-token',
  'workers',
] as const;

/** Options every command takes. */
const COMMON_OPTIONS = {
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
  'deactivate-missing': { type: 'boolean' },
  'max-changes': { type: 'string' },
  'only-imported': { type: 'boolean' },
  excel: { type: 'boolean' },
} as const;

type CommandOption = keyof typeof COMMAND_OPTIONS;

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...COMMON_OPTIONS,
        ...COMMAND_OPTIONS,
        ...Object.fromEntries(SETTINGS.map((setting) => [setting, { type: 'string' as const }])),
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

type Values = ReturnType<typeof parse>['values'];

function settingsOf(values: Values): Env {
  const overrides: Env = {};
  for (const setting of SETTINGS) {
    const value = (values as Record<string, unknown>)[setting];
    if (typeof value === 'string') overrides[setting.toUpperCase().replace(/-/g, '_')] = value;
  }
  return overrides;
}

function required(value: string | undefined, flag: string): string {
  if (!value?.trim()) throw new UsageError(`${flag} is required`);
  return value;
}

/** The whole number given for `flag`, from `min` up to `max` when there is one. */
function countOption(value: string | undefined, flag: string, min: number, max?: number): number {
  const count = Number(required(value, flag));
  if (!/^\d+$/.test(value!.trim()) || count < min || (max !== undefined && count > max)) {
    const range = max === undefined ? (min === 1 ? 'a positive integer' : `an integer of at least ${min}`) : `an integer from ${min} to ${max}`;
    throw new UsageError(`${flag} must be ${range} (got "${value}")`);
  }
  return count;
}

/** A comma-separated list option (`--ignore-columns a,b`), without empty items. */
/** The `--org` value, which must name an existing organization. */
async function organizationOf(db: Kysely<Database>, orgId: string | undefined): Promise<string> {
  const id = required(orgId, '--org');
  if (!(await organizationsRepository(db).find(id))) throw new UsageError(`No organization has the id ${id}`);
  return id;
}

/** The `--scopes` value; an empty one is refused like any other list without a scope, not read as "all scopes". */
function scopesOption(value: string | undefined): Scope[] | undefined {
  try {
    return value === undefined ? undefined : parseScopes(value);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Opens and migrates the database. Only `serve` and `migrate` may create a SQLite file: any other
 * command run from the wrong directory would otherwise work on a new, empty database and say nothing.
 */
async function withDatabase<T>(config: Config, mayCreate: boolean, work: (database: DatabaseHandle) => Promise<T>): Promise<T> {
  const sqlitePath = config.databaseUrl.startsWith('sqlite:') ? config.databaseUrl.slice('sqlite:'.length) : undefined;
  if (!mayCreate && sqlitePath && sqlitePath !== ':memory:' && !existsSync(sqlitePath)) {
    throw new SetupError(`no database at ${sqlitePath}; run \`training-api migrate\` or set DATABASE_URL`);
  }
  const database = openDatabase(config.databaseUrl, { poolSize: 2 });
  try {
    await migrateToLatest(database.db);
    return await work(database);
  } finally {
    await database.close();
  }
}

/** A value as a table cell: a list joined by commas, an object as JSON, nothing as an empty cell. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cell).join(',');
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

function table(rows: Record<string, unknown>[], columns: string[]): string {
  return rows.map((row) => columns.map((c) => cell(row[c])).join('\t')).join('\n');
}

interface Context {
  values: Values;
  /** The positional arguments after the command's name. */
  args: string[];
  config: Config;
  io: Output;
  /** `value` as JSON with --json, else `plain`. */
  print(value: unknown, plain: string): void;
  /** The database, for commands that declare one. */
  db: Kysely<Database>;
}

interface Command {
  /** The words that call it: `tokens create`. */
  name: string;
  /** Its arguments and options, for the usage line. */
  synopsis?: string;
  description: string;
  /** Positional arguments, in order; each is required. */
  args?: string[];
  /** Options beyond --json, --help and the settings of the environment. */
  options?: CommandOption[];
  /** Opened and migrated before `run`: `create` may create a new SQLite file, `existing` refuses to. */
  database?: 'create' | 'existing';
  run(context: Context): Promise<number>;
}

const COMMANDS: Command[] = [
  {
    name: 'serve',
    description: 'run the HTTPS API server (the default command)',
    async run({ config, io }) {
      // Loaded on demand: the other commands start without the whole HTTP stack.
      const { serve } = await import('./serve.js');
      const server = await serve(config, io.err);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      io.err('Shutting down');
      await server.close();
      return 0;
    },
  },
  {
    name: 'healthcheck',
    description: "ask the local server's /healthz (for a container's HEALTHCHECK); exit code 0 when it answers 200",
    async run({ config, io }) {
      const status = await localHealth(config);
      if (status === 200) {
        io.out('ok');
        return 0;
      }
      io.err(`training-api: ${typeof status === 'number' ? `/healthz answered ${status}` : status}`);
      return 1;
    },
  },
  {
    name: 'migrate',
    description: 'create the database, or apply the migrations it lacks',
    database: 'create',
    async run({ print }) {
      print({ migrated: true }, 'Database is up to date');
      return 0;
    },
  },
  {
    name: 'orgs create',
    synopsis: '--name <name>',
    description: 'create an organization; prints its id',
    options: ['name'],
    database: 'existing',
    async run({ db, values, print }) {
      const organization = await organizationsRepository(db).create(required(values.name, '--name'));
      print({ id: organization.id, name: organization.name, createdDate: organization.created_date }, organization.id);
      return 0;
    },
  },
  {
    name: 'orgs list',
    description: 'list organizations',
    database: 'existing',
    async run({ db, print }) {
      const organizations = (await organizationsRepository(db).list()).map((o) => ({ id: o.id, name: o.name, createdDate: o.created_date }));
      print(organizations, table(organizations, ['id', 'name', 'createdDate']));
      return 0;
    },
  },
  {
    name: 'orgs rename',
    synopsis: '<orgId> --name <name>',
    description: 'give an organization a new name',
    args: ['orgId'],
    options: ['name'],
    database: 'existing',
    async run({ db, args, values, print }) {
      const organizations = organizationsRepository(db);
      const before = await organizations.find(args[0]!);
      if (!before) throw new UsageError(`No organization has the id ${args[0]}`);
      const name = required(values.name, '--name');
      await organizations.rename(before.id, name);
      print({ id: before.id, name, previousName: before.name }, `Organization ${before.id} renamed from "${before.name}" to "${name}"`);
      return 0;
    },
  },
  {
    name: 'orgs delete',
    synopsis: '<orgId> --yes',
    description: 'delete an organization with all its users, tokens and data, for good',
    args: ['orgId'],
    options: ['yes'],
    database: 'existing',
    async run({ db, args, values, print }) {
      const organizations = organizationsRepository(db);
      const organization = await organizations.find(args[0]!);
      if (!organization) throw new UsageError(`No organization has the id ${args[0]}`);
      if (!values.yes) throw new UsageError(`deleting "${organization.name}" removes all its data for good; add --yes to confirm`);
      await organizations.delete(organization.id);
      print(
        { id: organization.id, name: organization.name, deleted: true },
        `Organization ${organization.id} ("${organization.name}") deleted with all its data`,
      );
      return 0;
    },
  },
  {
    name: 'tokens create',
    synopsis: '--org <orgId> [--name <label>] [--scopes read,write,scim] [--expires <ISO date>]',
    description: 'create an access token; prints it (shown only this once)',
    options: ['org', 'name', 'scopes', 'expires'],
    database: 'existing',
    async run({ db, values, print }) {
      const orgId = await organizationOf(db, values.org);
      const expiresDate = values.expires ? new Date(values.expires) : undefined;
      if (expiresDate && Number.isNaN(expiresDate.getTime())) throw new UsageError(`--expires must be an ISO 8601 date (got "${values.expires}")`);
      // A token that expired before it was shown could only fail every request.
      if (expiresDate && expiresDate.getTime() <= Date.now()) throw new UsageError(`--expires must be in the future (got "${values.expires}")`);
      const { token, info } = await tokensService(db).create(orgId, { name: values.name, scopes: scopesOption(values.scopes), expiresDate });
      print({ token, ...info }, token);
      return 0;
    },
  },
  {
    name: 'tokens list',
    synopsis: '--org <orgId>',
    description: "list an organization's tokens (never the secrets)",
    options: ['org'],
    database: 'existing',
    async run({ db, values, print }) {
      const tokens = await tokensService(db).list(await organizationOf(db, values.org));
      const columns = ['id', 'name', 'scopes', 'createdDate', 'lastUsedDate', 'expiresDate', 'revokedDate'];
      print(tokens, table(tokens as unknown as Record<string, unknown>[], columns));
      return 0;
    },
  },
  {
    name: 'tokens revoke',
    synopsis: '<tokenId>',
    description: 'revoke a token; effective on its next request',
    args: ['tokenId'],
    database: 'existing',
    async run({ db, args, print }) {
      const tokens = tokensService(db);
      const before = await tokens.find(args[0]!);
      if (!before) throw new UsageError(`No token has the id ${args[0]}`);
      if (before.revokedDate) {
        print(before, `Token ${before.id} was already revoked on ${before.revokedDate}`);
        return 0;
      }
      const info = (await tokens.revoke(before.id))!;
      print(info, `Token ${info.id} revoked`);
      return 0;
    },
  },
  {
    name: 'tokens rotate',
    synopsis: '<tokenId>',
    description: 'replace a token by a new one with the same name, scopes and expiry; prints the new token',
    args: ['tokenId'],
    database: 'existing',
    async run({ db, args, values, print, io }) {
      const rotated = await tokensService(db).rotate(args[0]!);
      if (rotated === 'unknown') throw new UsageError(`No token has the id ${args[0]}`);
      if (rotated === 'revoked') throw new UsageError(`token ${args[0]} is revoked; create a new one with \`training-api tokens create\``);
      if (!values.json) io.err(`Token ${args[0]} revoked; its replacement ${rotated.info.id} (shown only this once):`);
      print({ token: rotated.token, ...rotated.info, replaces: args[0] }, rotated.token);
      return 0;
    },
  },
  {
    name: 'clients create',
    synopsis: '--org <orgId> [--name <label>] [--scopes read,write]',
    description: 'create an OAuth client; prints its id and secret (shown only this once)',
    options: ['org', 'name', 'scopes'],
    database: 'existing',
    async run({ db, values, print }) {
      const orgId = await organizationOf(db, values.org);
      const { secret, info } = await clientsService(db).create(orgId, { name: values.name, scopes: scopesOption(values.scopes) });
      print({ clientId: info.id, clientSecret: secret, ...info }, `${info.id}\t${secret}`);
      return 0;
    },
  },
  {
    name: 'clients list',
    synopsis: '--org <orgId>',
    description: "list an organization's OAuth clients (never the secrets)",
    options: ['org'],
    database: 'existing',
    async run({ db, values, print }) {
      const clients = await clientsService(db).list(await organizationOf(db, values.org));
      const columns = ['id', 'name', 'scopes', 'createdDate', 'lastUsedDate', 'revokedDate'];
      print(clients, table(clients as unknown as Record<string, unknown>[], columns));
      return 0;
    },
  },
  {
    name: 'clients revoke',
    synopsis: '<clientId>',
    description: 'revoke a client and every token issued to it, at once',
    args: ['clientId'],
    database: 'existing',
    async run({ db, args, print }) {
      const info = await clientsService(db).revoke(args[0]!);
      if (!info) throw new UsageError(`No OAuth client has the id ${args[0]}`);
      print(info, info.id);
      return 0;
    },
  },
  {
    name: 'seed',
    synopsis: '--org <orgId> --users <n> [--userfield-values <k>] [--registrations <k>]',
    description:
      'add n realistic demo users, each with values in k demo userfields (up to 10) and active registrations in k demo offerings (up to 100), with a progress bar',
    options: ['org', 'users', 'userfield-values', 'registrations'],
    database: 'existing',
    async run({ db, values, print }) {
      const users = countOption(values.users, '--users', 1);
      const userfieldValues = countOption(values['userfield-values'] ?? '0', '--userfield-values', 0, MAX_SEEDED_USERFIELD_VALUES);
      const registrations = countOption(values.registrations ?? '0', '--registrations', 0, MAX_SEEDED_REGISTRATIONS);
      const orgId = await organizationOf(db, values.org);
      const result = await seed(db, orgId, { users, userfieldValues, registrations });
      const extras = [
        ...(userfieldValues ? [`${result.userfieldValues} userfield values`] : []),
        ...(registrations ? [`${result.registrations} registrations`] : []),
      ];
      print(
        result,
        `${users} users created${extras.length ? ` with ${extras.join(' and ')}` : ''}; each can log in with the password ${result.password}`,
      );
      return 0;
    },
  },
  {
    name: 'import users',
    synopsis:
      '--org <orgId> [--dry-run] [--encoding <name>] [--sheet <name>] [--map "Heading=property,..."] [--ignore-columns a,b] ' +
      '[--deactivate-missing [--only-imported]] [--max-changes <n|p%>] <file.csv|file.jsonl|file.xlsx>',
    description:
      'create or update (matched by email) the users of a file, with their userfield values; every row is checked before any is written. ' +
      "--deactivate-missing deactivates the organization's users missing from the file (--only-imported: only those an import brought), " +
      'refused when more than --max-changes (10% unless told) would be updated or deactivated',
    args: ['file'],
    options: ['org', 'dry-run', 'encoding', 'sheet', 'map', 'ignore-columns', 'deactivate-missing', 'max-changes', 'only-imported'],
    database: 'existing',
    async run({ db, args, values, io }) {
      const caller = commandLineCaller(await organizationOf(db, values.org));
      const file = args[0]!;
      const format = formatOf(file);
      if (!format) throw new UsageError(`${file}: the file must end in .csv, .jsonl or .xlsx`);
      if (!existsSync(file)) throw new UsageError(`No file at ${file}`);
      const written = importOptionsOf(format, {
        dryRun: values['dry-run'],
        encoding: values.encoding,
        sheet: values.sheet,
        map: values.map,
        ignoreColumns: values['ignore-columns'],
        deactivateMissing: values['deactivate-missing'],
        maxChanges: values['max-changes'],
        onlyImported: values['only-imported'],
      });
      if ('errors' in written) {
        const [option, message] = Object.entries(written.errors)[0]!;
        throw new UsageError(`--${option.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)} ${message}`);
      }
      return importCommand(db, caller, file, { ...written.options, json: values.json ?? false }, io);
    },
  },
  {
    name: 'export users',
    synopsis: '--org <orgId> [--format csv|jsonl|xlsx] [--excel] [--output <file>]',
    description:
      "write the organization's users in the format import reads (to stdout unless --output), xlsx an Excel workbook; --excel writes CSV as Excel opens it (UTF-8 with a byte order mark, CRLF)",
    options: ['org', 'format', 'output', 'excel'],
    database: 'existing',
    async run({ db, values, io }) {
      const caller = commandLineCaller(await organizationOf(db, values.org));
      const format = (values.format ?? (values.output && formatOf(values.output)) ?? 'csv') as Format;
      if (!FORMATS.includes(format)) throw new UsageError(`--format must be csv, jsonl or xlsx (got "${values.format}")`);
      if (values.excel && format !== 'csv') throw new UsageError('--excel is for CSV');
      if (format === 'xlsx' && !values.output) throw new UsageError('--format xlsx writes a workbook, which needs a file: name it with --output');
      const count = await exportCommand(db, caller, format, values.output, values.excel ?? false);
      if (values.output) io.err(`Exported ${count} users to ${values.output}`);
      return 0;
    },
  },
  {
    name: 'copy',
    synopsis: '--from <url> --to <url>',
    description: "copy every organization's data into an empty database (sqlite:<path> or postgres://...), all or nothing",
    options: ['from', 'to'],
    run({ values, io }) {
      return copyCommand({ from: required(values.from, '--from'), to: required(values.to, '--to'), json: values.json ?? false }, io);
    },
  },
  {
    name: 'backup',
    synopsis: '--to <file>',
    description: 'copy the SQLite database into a new file while the server runs (for PostgreSQL, use pg_dump)',
    options: ['to'],
    run: ({ config, values, io }) => backupCommand(config.databaseUrl, required(values.to, '--to'), io),
  },
  {
    name: 'scim attributes',
    synopsis: '--org <orgId>',
    description: 'list the SCIM attributes mapped onto userfields',
    options: ['org'],
    database: 'existing',
    async run({ db, values, print }) {
      const mappings = await attributeMappingsService(db).get(commandLineCaller(await organizationOf(db, values.org)));
      const rows = Object.entries(mappings).map(([attribute, userfieldId]) => ({ attribute, userfieldId }));
      print(mappings, table(rows, ['attribute', 'userfieldId']));
      return 0;
    },
  },
  {
    name: 'scim map',
    synopsis: '--org <orgId> --attribute <SCIM attribute> --userfield <userfieldId>',
    description: 'map a SCIM attribute (enterprise extension, ...) onto a userfield',
    options: ['org', 'attribute', 'userfield'],
    database: 'existing',
    run: (context) => updateScimMapping(context, required(context.values.userfield, '--userfield')),
  },
  {
    name: 'scim unmap',
    synopsis: '--org <orgId> --attribute <SCIM attribute>',
    description: 'remove a mapping',
    options: ['org', 'attribute'],
    database: 'existing',
    run: (context) => updateScimMapping(context, null),
  },
];

const HEALTHCHECK_TIMEOUT_MS = 5000;

/** GET /healthz of the server this configuration describes, on the loopback interface: its status or why none. */
function localHealth(config: Config): Promise<number | string> {
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  const host = wildcard ? '127.0.0.1' : config.host;
  // The server's own certificate, self-signed or not, is not what a liveness probe checks.
  const client = config.trustProxy ? http : https;
  return new Promise((resolve) => {
    const request = client.get(
      { host, port: config.port, path: '/healthz', rejectUnauthorized: false, timeout: HEALTHCHECK_TIMEOUT_MS },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer from ${host}:${config.port} within ${HEALTHCHECK_TIMEOUT_MS} ms`)));
    request.on('error', (error) => resolve(error.message));
  });
}

async function updateScimMapping({ db, values, print }: Context, userfieldId: string | null): Promise<number> {
  const caller = commandLineCaller(await organizationOf(db, values.org));
  const attribute = required(values.attribute, '--attribute');
  await attributeMappingsService(db).update(caller, { [attribute]: userfieldId });
  const mappings = await attributeMappingsService(db).get(caller);
  print(mappings, userfieldId ? `${attribute} → ${userfieldId}` : `${attribute} is no longer mapped`);
  return 0;
}

const COLUMN = 42;

function usageLine(command: Command): string {
  return `training-api ${command.name}${command.synopsis ? ` ${command.synopsis}` : ''}`;
}

/** A command's line in a list: its usage, then its description in the second column. */
function listing(command: Command): string {
  const usage = `  ${usageLine(command).slice('training-api '.length)}`;
  return usage.length < COLUMN ? `${usage.padEnd(COLUMN)}${command.description}` : `${usage}\n${' '.repeat(COLUMN)}${command.description}`;
}

const COMMON_HELP = `Options of every command:
  --json                                  print JSON instead of bare values
  --<setting> <value>                     any setting of the environment, e.g. --database-url, --port
  -h, --help                              help; also after a command, as in training-api tokens --help
  --version                               the version of training-api`;

function help(commands: Command[], group?: string): string {
  if (commands.length === 1 && commands[0]!.name === group) {
    const [command] = commands as [Command];
    return `Usage: ${usageLine(command)}\n\n${command.description[0]!.toUpperCase()}${command.description.slice(1)}.\n\n${COMMON_HELP}`;
  }
  const heading = group ? `Usage: training-api ${group} <command> [options]` : 'Usage: training-api <command> [options]';
  return `${heading}\n\nCommands:\n${commands.map(listing).join('\n')}\n\n${COMMON_HELP}`;
}

/** The command that the leading positionals name, and the positionals left for it. */
function find(positionals: string[]): { command?: Command; group: Command[]; args: string[] } {
  const [first = 'serve', second] = positionals;
  const group = COMMANDS.filter((c) => c.name === first || c.name.startsWith(`${first} `));
  const command = COMMANDS.find((c) => c.name === `${first} ${second}`) ?? COMMANDS.find((c) => c.name === first);
  return { command, group, args: positionals.slice(command?.name.split(' ').length ?? 0) };
}

async function run(argv: string[], env: Env, io: Output): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.version) {
    io.out(VERSION);
    return 0;
  }
  if (values.help && positionals.length === 0) {
    io.out(help(COMMANDS));
    return 0;
  }
  const { command, group, args } = find(positionals);
  if (values.help && (command || group.length > 0)) {
    io.out(command ? help([command], command.name) : help(group, positionals[0]));
    return 0;
  }
  if (!command) {
    if (group.length === 0) throw new UsageError(`unknown command "${positionals[0]}"; see training-api --help`);
    const subcommands = group.map((c) => c.name.split(' ')[1]).join(', ');
    const given = positionals[1] === undefined ? 'needs a command' : `has no command "${positionals[1]}"`;
    throw new UsageError(`${positionals[0]} ${given}: ${subcommands}; see training-api ${positionals[0]} --help`);
  }
  const expected = command.args ?? [];
  if (args.length > expected.length) throw new UsageError(`unexpected argument "${args[expected.length]}"; see training-api ${command.name} --help`);
  if (args.length < expected.length) throw new UsageError(`<${expected[args.length]}> is required; see training-api ${command.name} --help`);
  const allowed = new Set<string>([...Object.keys(COMMON_OPTIONS), ...SETTINGS, ...(command.options ?? [])]);
  const stray = Object.keys(values).find((option) => !allowed.has(option));
  if (stray) throw new UsageError(`${command.name} takes no option --${stray}; see training-api ${command.name} --help`);

  const config = loadConfig(env, settingsOf(values));
  const print = (value: unknown, plain: string) => io.out(values.json ? JSON.stringify(value, null, 2) : plain);
  if (!command.database) {
    return command.run({
      values,
      args,
      config,
      io,
      print,
      get db(): never {
        throw new Error(`${command.name} declares no database`);
      },
    });
  }
  return withDatabase(config, command.database === 'create', ({ db }) => command.run({ values, args, config, io, print, db }));
}

/** Runs the command line; returns the exit code. */
export async function main(
  argv: string[],
  env: Env = process.env,
  io: Output = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  },
): Promise<number> {
  try {
    return await run(argv, env, io);
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: string };
    if (error instanceof SetupError) {
      io.err(`training-api: ${error.message}`);
      return 1;
    }
    // A service's refusal (a mapping to a userfield that does not exist, ...) is the operator's to correct, as a usage error is.
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof DomainError ||
      (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))
    ) {
      io.err(`training-api: ${message}`);
      return 2;
    }
    // The environment failed (a database that cannot be reached or opened, a port in use, a directory
    // that cannot be made): the system's message says what, and a stack trace would only bury it.
    if (typeof code === 'string') {
      io.err(`training-api: ${message || code}`);
      return 1;
    }
    io.err(`training-api: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}
