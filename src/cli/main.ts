import { existsSync } from 'node:fs';
import { loadConfig, SETTING_NAMES, SETTINGS, flagOf, type Env, type Config, type SettingSpec } from '../config.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../db/database.js';
import { ConfigError } from '../lib/config-error.js';
import { DomainError } from '../lib/domain-errors.js';
import { VERSION } from '../lib/version.js';
import { COMMON_OPTIONS, parse, required, settingsOf, SetupError, UsageError, type Command, type Output } from './command.js';

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

/**
 * A command's module, loaded when the command runs: `--help` and `--version` load none, and a module
 * that cannot load (a native binding missing from the installation) is told in one line.
 */
async function load<T>(module: () => Promise<T>): Promise<T> {
  try {
    return await module();
  } catch (error) {
    throw new SetupError(`the command cannot be loaded: ${String((error as Error).message).split('\n')[0]}`);
  }
}

const orgs = () => load(() => import('./commands/orgs.js'));
const tokens = () => load(() => import('./commands/tokens.js'));
const clients = () => load(() => import('./commands/clients.js'));
const users = () => load(() => import('./commands/users.js'));
const scim = () => load(() => import('./commands/scim.js'));

const COMMANDS: Command[] = [
  {
    name: 'serve',
    description: 'run the HTTPS API server (the default command)',
    run: async (context) => (await load(() => import('./commands/serve.js'))).serve(context),
  },
  {
    name: 'healthcheck',
    description: "ask the local server's /healthz (for a container's HEALTHCHECK); exit code 0 when it answers 200",
    run: async (context) => (await load(() => import('./commands/healthcheck.js'))).healthcheck(context),
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
    run: async (context) => (await orgs()).create(context),
  },
  {
    name: 'orgs list',
    description: 'list organizations',
    database: 'existing',
    run: async (context) => (await orgs()).list(context),
  },
  {
    name: 'orgs rename',
    synopsis: '<orgId> --name <name>',
    description: 'give an organization a new name',
    args: ['orgId'],
    options: ['name'],
    database: 'existing',
    run: async (context) => (await orgs()).rename(context),
  },
  {
    name: 'orgs delete',
    synopsis: '<orgId> --yes',
    description: 'delete an organization with all its users, tokens and data, for good',
    args: ['orgId'],
    options: ['yes'],
    database: 'existing',
    run: async (context) => (await orgs()).remove(context),
  },
  {
    name: 'tokens create',
    synopsis: '--org <orgId> [--name <label>] [--scopes read,write,scim] [--expires <ISO date>]',
    description: 'create an access token; prints it (shown only this once)',
    options: ['org', 'name', 'scopes', 'expires'],
    database: 'existing',
    run: async (context) => (await tokens()).create(context),
  },
  {
    name: 'tokens list',
    synopsis: '--org <orgId>',
    description: "list an organization's tokens (never the secrets)",
    options: ['org'],
    database: 'existing',
    run: async (context) => (await tokens()).list(context),
  },
  {
    name: 'tokens revoke',
    synopsis: '<tokenId>',
    description: 'revoke a token; effective on its next request',
    args: ['tokenId'],
    database: 'existing',
    run: async (context) => (await tokens()).revoke(context),
  },
  {
    name: 'tokens rotate',
    synopsis: '<tokenId>',
    description: 'replace a token by a new one with the same name, scopes and expiry; prints the new token',
    args: ['tokenId'],
    database: 'existing',
    run: async (context) => (await tokens()).rotate(context),
  },
  {
    name: 'clients create',
    synopsis: '--org <orgId> [--name <label>] [--scopes read,write]',
    description: 'create an OAuth client; prints its id and secret (shown only this once)',
    options: ['org', 'name', 'scopes'],
    database: 'existing',
    run: async (context) => (await clients()).create(context),
  },
  {
    name: 'clients list',
    synopsis: '--org <orgId>',
    description: "list an organization's OAuth clients (never the secrets)",
    options: ['org'],
    database: 'existing',
    run: async (context) => (await clients()).list(context),
  },
  {
    name: 'clients revoke',
    synopsis: '<clientId>',
    description: 'revoke a client and every token issued to it, at once',
    args: ['clientId'],
    database: 'existing',
    run: async (context) => (await clients()).revoke(context),
  },
  {
    name: 'seed',
    synopsis: '--org <orgId> --users <n> [--userfield-values <k>] [--registrations <k>]',
    description:
      'add n realistic demo users, each with values in k demo userfields (up to 10) and active registrations in k demo offerings (up to 100), with a progress bar',
    options: ['org', 'users', 'userfield-values', 'registrations'],
    database: 'existing',
    run: async (context) => (await load(() => import('./commands/seed.js'))).seed(context),
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
    run: async (context) => (await users()).importCommand(context),
  },
  {
    name: 'export users',
    synopsis: '--org <orgId> [--format csv|jsonl|xlsx] [--excel] [--output <file>]',
    description:
      "write the organization's users in the format import reads (to stdout unless --output), xlsx an Excel workbook; --excel writes CSV as Excel opens it (UTF-8 with a byte order mark, CRLF)",
    options: ['org', 'format', 'output', 'excel'],
    database: 'existing',
    run: async (context) => (await users()).exportCommand(context),
  },
  {
    name: 'copy',
    synopsis: '--from <url> --to <url>',
    description: "copy every organization's data into an empty database (sqlite:<path> or postgres://...), all or nothing",
    options: ['from', 'to'],
    async run({ values, io }) {
      const { copyCommand } = await load(() => import('./copy.js'));
      return copyCommand({ from: required(values.from, '--from'), to: required(values.to, '--to'), json: values.json ?? false }, io);
    },
  },
  {
    name: 'backup',
    synopsis: '--to <file>',
    description: 'copy the SQLite database into a new file while the server runs (for PostgreSQL, use pg_dump)',
    options: ['to'],
    async run({ config, values, io }) {
      const { backupCommand } = await load(() => import('./backup.js'));
      return backupCommand(config.databaseUrl, required(values.to, '--to'), io);
    },
  },
  {
    name: 'scim attributes',
    synopsis: '--org <orgId>',
    description: 'list the SCIM attributes mapped onto userfields',
    options: ['org'],
    database: 'existing',
    run: async (context) => (await scim()).attributes(context),
  },
  {
    name: 'scim map',
    synopsis: '--org <orgId> --attribute <SCIM attribute> --userfield <userfieldId>',
    description: 'map a SCIM attribute (enterprise extension, ...) onto a userfield',
    options: ['org', 'attribute', 'userfield'],
    database: 'existing',
    run: async (context) => (await scim()).map(context),
  },
  {
    name: 'scim unmap',
    synopsis: '--org <orgId> --attribute <SCIM attribute>',
    description: 'remove a mapping',
    options: ['org', 'attribute'],
    database: 'existing',
    run: async (context) => (await scim()).unmap(context),
  },
];

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
  --<setting> <value>                     a setting, e.g. --database-url, --port (training-api serve --help lists them)
  -h, --help                              help; also after a command, as in training-api tokens --help
  --version                               the version of training-api`;

const HELP_WIDTH = 120;

/** `text` without Markdown's marks, in lines of at most HELP_WIDTH after `indent` spaces. */
function wrapped(text: string, indent: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\*\*|`/g, '').split(/\s+/)) {
    if (line && indent + line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].map((part) => `${' '.repeat(indent)}${part}`);
}

/** Every setting, as the flag that sets it, its environment variable, its default and what it does. */
function settingsHelp(): string {
  const lines = ['Settings, each an environment variable or its flag (the flag wins):'];
  for (const name of SETTING_NAMES) {
    const setting: SettingSpec = SETTINGS[name];
    const shown = setting.shownDefault ?? setting.default;
    const flag = `  --${flagOf(name)} ${setting.value}`;
    const variable = `${name}${shown === undefined ? '' : `, default ${shown.replace(/`/g, '')}`}`;
    lines.push(...(flag.length < COLUMN ? [`${flag.padEnd(COLUMN)}${variable}`] : [flag, `${' '.repeat(COLUMN)}${variable}`]));
    lines.push(...wrapped(setting.meaning, COLUMN + 2));
  }
  return lines.join('\n');
}

function help(commands: Command[], group?: string): string {
  if (commands.length === 1 && commands[0]!.name === group) {
    const [command] = commands as [Command];
    const settings = command.name === 'serve' ? `\n\n${settingsHelp()}` : '';
    return `Usage: ${usageLine(command)}\n\n${command.description[0]!.toUpperCase()}${command.description.slice(1)}.\n\n${COMMON_HELP}${settings}`;
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
  const allowed = new Set<string>([...Object.keys(COMMON_OPTIONS), ...SETTING_NAMES.map(flagOf), ...(command.options ?? [])]);
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
