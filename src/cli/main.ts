import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config, type Env } from '../config.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../db/database.js';
import { organizationsRepository } from '../resources/organizations/organizations.repository.js';
import { parseScopes, type Scope } from '../auth/scopes.js';
import { clientsService } from '../oauth/clients.service.js';
import { tokensService } from '../resources/tokens/tokens.service.js';
import type { Caller } from '../auth/caller.js';
import { ApiError } from '../lib/errors.js';
import { attributeMappingsService } from '../scim/mappings/attribute-mappings.service.js';
import { copyCommand } from './copy.js';
import { MAX_SEEDED_REGISTRATIONS, MAX_SEEDED_USERFIELD_VALUES, seed } from './seed.js';

const USAGE = `Usage: training-api <command> [options]

Commands:
  serve                                   run the HTTPS API server (default command)
  migrate                                 apply pending database migrations
  orgs create --name <name>               create an organization; prints its id
  orgs list                               list organizations
  tokens create --org <orgId> [--name <label>] [--scopes read,write,scim] [--expires <ISO date>]
                                          create an access token; prints it (shown only this once)
  tokens list --org <orgId>               list an organization's tokens (never the secrets)
  tokens revoke <tokenId>                 revoke a token; effective on its next request
  clients create --org <orgId> [--name <label>] [--scopes read,write]
                                          create an OAuth client; prints its id and secret (shown only this once)
  clients list --org <orgId>              list an organization's OAuth clients (never the secrets)
  clients revoke <clientId>               revoke a client and every token issued to it, at once
  seed --org <orgId> --users <n> [--userfield-values <k>] [--registrations <k>]
                                          add n realistic demo users, each with values in k demo
                                          userfields (up to 10) and active registrations in k demo
                                          offerings (up to 100), with a progress bar
  copy --from <url> --to <url>            copy every organization's data into an empty database
                                          (sqlite:<path> or postgres://...), all or nothing
  scim attributes --org <orgId>           list the SCIM attributes mapped onto userfields
  scim map --org <orgId> --attribute <SCIM attribute> --userfield <userfieldId>
                                          map a SCIM attribute (enterprise extension, ...) onto a userfield
  scim unmap --org <orgId> --attribute <SCIM attribute>
                                          remove a mapping

Options:
  --json                                  print JSON instead of bare values
  --<setting> <value>                     any setting of the environment, e.g. --database-url, --port
  -h, --help                              this help`;

/** The organization's administrator at the command line, for services that take a caller. */
function commandLineCaller(orgId: string): Caller {
  return { orgId, tokenId: 'command-line', scopes: ['read', 'write'] };
}

/** Thrown for a mistake of the caller: printed without a stack trace, exit code 2. */
class UsageError extends Error {}

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
] as const;

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
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
      ...Object.fromEntries(SETTINGS.map((setting) => [setting, { type: 'string' as const }])),
    },
  });
  const overrides: Env = {};
  for (const setting of SETTINGS) {
    const value = (values as Record<string, unknown>)[setting];
    if (typeof value === 'string') overrides[setting.toUpperCase().replace(/-/g, '_')] = value;
  }
  return { values, positionals, overrides };
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

/** The `--org` value, which must name an existing organization. */
async function organizationOf(db: DatabaseHandle['db'], orgId: string | undefined): Promise<string> {
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

async function withDatabase<T>(config: Config, work: (database: DatabaseHandle) => Promise<T>): Promise<T> {
  const database = openDatabase(config.databaseUrl, { poolSize: 2 });
  try {
    await migrateToLatest(database.db);
    return await work(database);
  } finally {
    await database.close();
  }
}

function table(rows: Record<string, unknown>[], columns: string[]): string {
  return rows.map((row) => columns.map((c) => String(row[c] ?? '')).join('\t')).join('\n');
}

async function run(argv: string[], env: Env, io: Output): Promise<number> {
  const { values, positionals, overrides } = parse(argv);
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  const [command = 'serve', subcommand, argument] = positionals;
  const config = loadConfig(env, overrides);
  const print = (value: unknown, plain: string) => io.out(values.json ? JSON.stringify(value, null, 2) : plain);

  switch (`${command} ${subcommand ?? ''}`.trim()) {
    case 'serve': {
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
    }
    case 'migrate':
      return withDatabase(config, async () => {
        print({ migrated: true }, 'Database is up to date');
        return 0;
      });
    case 'orgs create':
      return withDatabase(config, async ({ db }) => {
        const organization = await organizationsRepository(db).create(required(values.name, '--name'));
        print({ id: organization.id, name: organization.name, createdDate: organization.created_date }, organization.id);
        return 0;
      });
    case 'orgs list':
      return withDatabase(config, async ({ db }) => {
        const organizations = (await organizationsRepository(db).list()).map((o) => ({ id: o.id, name: o.name, createdDate: o.created_date }));
        print(organizations, table(organizations, ['id', 'name', 'createdDate']));
        return 0;
      });
    case 'clients create':
      return withDatabase(config, async ({ db }) => {
        const orgId = await organizationOf(db, values.org);
        const { secret, info } = await clientsService(db).create(orgId, { name: values.name, scopes: scopesOption(values.scopes) });
        print({ clientId: info.id, clientSecret: secret, ...info }, `${info.id}\t${secret}`);
        return 0;
      });
    case 'clients list':
      return withDatabase(config, async ({ db }) => {
        const clients = await clientsService(db).list(await organizationOf(db, values.org));
        print(
          clients,
          table(clients as unknown as Record<string, unknown>[], ['id', 'name', 'scopes', 'createdDate', 'lastUsedDate', 'revokedDate']),
        );
        return 0;
      });
    case 'clients revoke':
      return withDatabase(config, async ({ db }) => {
        const info = await clientsService(db).revoke(required(argument, 'the client id'));
        if (!info) throw new UsageError(`No OAuth client has the id ${argument}`);
        print(info, info.id);
        return 0;
      });
    case 'tokens create':
      return withDatabase(config, async ({ db }) => {
        const orgId = await organizationOf(db, values.org);
        const expiresDate = values.expires ? new Date(values.expires) : undefined;
        if (expiresDate && Number.isNaN(expiresDate.getTime())) throw new UsageError(`--expires must be an ISO 8601 date (got "${values.expires}")`);
        // A token that expired before it was shown could only fail every request.
        if (expiresDate && expiresDate.getTime() <= Date.now()) throw new UsageError(`--expires must be in the future (got "${values.expires}")`);
        const { token, info } = await tokensService(db).create(orgId, { name: values.name, scopes: scopesOption(values.scopes), expiresDate });
        print({ token, ...info }, token);
        return 0;
      });
    case 'tokens list':
      return withDatabase(config, async ({ db }) => {
        const tokens = await tokensService(db).list(await organizationOf(db, values.org));
        print(
          tokens,
          table(tokens as unknown as Record<string, unknown>[], [
            'id',
            'name',
            'scopes',
            'createdDate',
            'lastUsedDate',
            'expiresDate',
            'revokedDate',
          ]),
        );
        return 0;
      });
    case 'tokens revoke':
      return withDatabase(config, async ({ db }) => {
        const info = await tokensService(db).revoke(required(argument, 'the token id'));
        if (!info) throw new UsageError(`No token has the id ${argument}`);
        print(info, info.id);
        return 0;
      });
    case 'seed':
      return withDatabase(config, async ({ db }) => {
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
      });
    case 'scim attributes':
      return withDatabase(config, async ({ db }) => {
        const mappings = await attributeMappingsService(db).get(commandLineCaller(await organizationOf(db, values.org)));
        const rows = Object.entries(mappings).map(([attribute, userfieldId]) => ({ attribute, userfieldId }));
        print(mappings, table(rows, ['attribute', 'userfieldId']));
        return 0;
      });
    case 'scim map':
    case 'scim unmap':
      return withDatabase(config, async ({ db }) => {
        const caller = commandLineCaller(await organizationOf(db, values.org));
        const attribute = required(values.attribute, '--attribute');
        const userfieldId = subcommand === 'map' ? required(values.userfield, '--userfield') : null;
        try {
          await attributeMappingsService(db).update(caller, { [attribute]: userfieldId });
        } catch (error) {
          if (error instanceof ApiError) throw new UsageError(Object.values(error.body.fieldErrors ?? {}).join('; ') || error.message);
          throw error;
        }
        const mappings = await attributeMappingsService(db).get(caller);
        print(mappings, subcommand === 'map' ? `${attribute} → ${userfieldId}` : `${attribute} is no longer mapped`);
        return 0;
      });
    case 'copy':
      return copyCommand({ from: required(values.from, '--from'), to: required(values.to, '--to'), json: values.json }, io);
    default:
      throw new UsageError(`Unknown command "${positionals.join(' ')}"\n\n${USAGE}`);
  }
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
    if (error instanceof UsageError || error instanceof ConfigError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      io.err(`training-api: ${message}`);
      return 2;
    }
    // The environment failed (a database that cannot be reached or opened, a port in use, a directory
    // that cannot be made): the system's message says what, and a stack trace would only bury it.
    if (typeof code === 'string') {
      io.err(`training-api: ${message || code}`);
      return 1;
    }
    io.err(`training-api: ${(error as Error).stack ?? error}`);
    return 1;
  }
}
