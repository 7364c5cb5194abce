import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig, SETTING_NAMES, SETTINGS, flagOf, type Env, type Config, type SettingName, type SettingSpec } from '../config.js';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '../db/database.js';
import { ConfigError } from '../lib/config-error.js';
import { DomainError } from '../lib/domain-errors.js';
import { VERSION } from '../lib/version.js';
import { RESET_LINK_MINUTES } from '../accounts/settings.js';
import {
  COMMON_OPTIONS,
  parse,
  required,
  settingsOf,
  SetupError,
  UsageError,
  type Command,
  type Context,
  type Migrated,
  type OptionUse,
  type Output,
} from './command.js';
import { environmentDiagnosis, reachingDatabase } from './diagnoses.js';

/**
 * Opens and migrates the database. Only `serve` and `migrate` may create a SQLite file: any other
 * command run from the wrong directory would otherwise work on a new, empty database and say nothing.
 * A file that cannot be looked at (permission denied) is not taken for a missing one.
 */
async function withDatabase<T>(config: Config, mayCreate: boolean, work: (database: DatabaseHandle, migrated: Migrated) => Promise<T>): Promise<T> {
  const sqlitePath = config.databaseUrl.startsWith('sqlite:') ? config.databaseUrl.slice('sqlite:'.length) : undefined;
  const missing = sqlitePath !== undefined && sqlitePath !== ':memory:' && statSync(sqlitePath, { throwIfNoEntry: false }) === undefined;
  if (missing && !mayCreate) throw new SetupError(`no database at ${sqlitePath}; run \`training-api migrate\` or set DATABASE_URL`);
  const database = openDatabase(config.databaseUrl, { poolSize: 2 });
  try {
    const { results = [] } = await reachingDatabase(config.databaseUrl, () => migrateToLatest(database.db));
    const applied = results.filter((result) => result.status === 'Success').map((result) => result.migrationName);
    return await work(database, { ...(missing ? { created: resolve(sqlitePath) } : {}), applied });
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

/** The organization a command works on, as most take it. */
const ORG: OptionUse = { value: '<orgId>', meaning: 'the organization, by its id, as orgs list prints it', required: true };

const COMMANDS: Command[] = [
  {
    name: 'serve',
    description: 'run the HTTPS API server (the default command)',
    settings: 'all',
    exits: { 0: 'stopped by SIGINT or SIGTERM, after the requests in flight' },
    run: async (context) => (await load(() => import('./commands/serve.js'))).serve(context),
  },
  {
    name: 'healthcheck',
    description: "ask the local server's /healthz (for a container's HEALTHCHECK); exit code 0 when it answers 200",
    settings: ['HOST', 'PORT', 'TRUST_PROXY'],
    exits: { 0: 'the server answered 200', 1: 'the server did not answer, or answered another status' },
    run: async (context) => (await load(() => import('./commands/healthcheck.js'))).healthcheck(context),
  },
  {
    name: 'migrate',
    description: 'create the database, or apply the migrations it lacks; says which it did',
    database: 'create',
    async run({ print, migrated: { created, applied } }) {
      const count = `${applied.length} migration${applied.length === 1 ? '' : 's'}`;
      const text = created
        ? `Created a new database at ${created}, with its ${count}`
        : applied.length > 0
          ? `Applied ${count}; the database is up to date`
          : 'Database is up to date';
      print({ migrated: true, ...(created ? { created } : {}), applied }, text);
      return 0;
    },
  },
  {
    name: 'orgs create',
    description: 'create an organization; prints its id',
    options: {
      name: { value: '<name>', meaning: "the organization's name", required: true },
      sandbox: { meaning: 'make it a sandbox: filled with sample people, userfields, offerings and registrations, which the operator can reset' },
    },
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
    description: 'give an organization a new name',
    args: { orgId: 'the organization, by its id' },
    options: { name: { value: '<name>', meaning: 'its new name', required: true } },
    database: 'existing',
    run: async (context) => (await orgs()).rename(context),
  },
  {
    name: 'orgs delete',
    description: 'delete an organization with all its users, tokens and data, for good',
    args: { orgId: 'the organization, by its id' },
    options: { yes: { meaning: 'confirms the deletion, which cannot be undone', required: true } },
    database: 'existing',
    run: async (context) => (await orgs()).remove(context),
  },
  {
    name: 'tokens create',
    description: 'create an access token; prints it (shown only this once)',
    options: {
      org: ORG,
      name: { value: '<label>', meaning: 'a name that tells the token apart in tokens list' },
      scopes: { value: 'read,write,scim', meaning: 'what the token may do: read, write (v5) and scim (/scim/v2); read,write unless given' },
      expires: { value: '<ISO date>', meaning: 'when the token stops working; never unless given' },
    },
    database: 'existing',
    run: async (context) => (await tokens()).create(context),
  },
  {
    name: 'tokens list',
    description: "list an organization's tokens (never the secrets)",
    options: { org: ORG },
    database: 'existing',
    run: async (context) => (await tokens()).list(context),
  },
  {
    name: 'tokens revoke',
    description: 'revoke a token; effective on its next request',
    args: { tokenId: 'the token, by its id (tokens list)' },
    database: 'existing',
    run: async (context) => (await tokens()).revoke(context),
  },
  {
    name: 'tokens rotate',
    description: 'replace a token by a new one with the same name, scopes and expiry; prints the new token',
    args: { tokenId: 'the token, by its id (tokens list)' },
    database: 'existing',
    run: async (context) => (await tokens()).rotate(context),
  },
  {
    name: 'clients create',
    description:
      'create an OAuth client: one that gets API tokens (client credentials), or one that signs people in (OpenID Connect: --redirect-uri); prints its id and secret (shown only this once)',
    options: {
      org: ORG,
      name: { value: '<label>', meaning: 'a name that tells the client apart in clients list' },
      scopes: {
        value: 'read,write',
        meaning: 'the scopes its access tokens may have; read,write unless given (not for a client that signs people in)',
      },
      'redirect-uri': {
        value: '<uri>',
        meaning:
          'a client that signs people in (OpenID Connect, authorization code with PKCE): where it may be sent back; repeatable. https, or http://127.0.0.1:<port>/... for a native app (RFC 8252)',
      },
      'post-logout-redirect-uri': { value: '<uri>', meaning: 'where it may send a person after signing them out; repeatable' },
      public: { meaning: 'with --redirect-uri: a native or browser app that keeps no secret (PKCE alone)' },
    },
    database: 'existing',
    run: async (context) => (await clients()).create(context),
  },
  {
    name: 'clients list',
    description: "list an organization's OAuth clients (never the secrets)",
    options: { org: ORG },
    database: 'existing',
    run: async (context) => (await clients()).list(context),
  },
  {
    name: 'clients revoke',
    description: 'revoke a client and every token issued to it, at once',
    args: { clientId: 'the client, by its id (clients list)' },
    database: 'existing',
    run: async (context) => (await clients()).revoke(context),
  },
  {
    name: 'seed',
    description: 'add realistic demo users, with userfield values and active registrations, with a progress bar',
    options: {
      org: ORG,
      users: { value: '<n>', meaning: 'how many users, 1 or more', required: true },
      'userfield-values': { value: '<k>', meaning: 'values of each user in k demo userfields, 0 to 10; 0 unless given' },
      registrations: { value: '<k>', meaning: 'active registrations of each user in k demo offerings, 0 to 100; 0 unless given' },
    },
    database: 'existing',
    run: async (context) => (await load(() => import('./commands/seed.js'))).seed(context),
  },
  {
    name: 'import users',
    description: 'create or update (matched by email) the users of a file, with their userfield values; every row is checked before any is written',
    args: { file: 'a CSV (any common encoding; .csv, .tsv or .txt), JSON Lines (.jsonl) or Excel (.xlsx) file' },
    options: {
      org: ORG,
      'dry-run': { meaning: 'check and compare only: say what would change, write nothing' },
      encoding: { value: '<name>', meaning: "the file's encoding (utf-8, utf-16le, windows-1252, ...); told by its bytes unless given" },
      sheet: { value: '<name>', meaning: "an Excel workbook's sheet, in any case; the first unless given" },
      'header-row': {
        value: '<n>',
        meaning: 'the row of the headings (title rows of Workday, ADP or SuccessFactors reports above it); the first non-empty row unless given',
      },
      locale: {
        value: '<tag>',
        meaning: 'how numbers and dates are written (de, fr: a decimal comma, day-first dates); read so from a semicolon file unless given',
      },
      map: { value: '"Heading=property,..."', meaning: 'what columns hold, where their headings are not the property names' },
      'ignore-columns': { value: 'a,b', meaning: 'columns left out' },
      'deactivate-missing': { meaning: "deactivate the organization's users missing from the file (the nightly sync)" },
      'only-imported': { meaning: 'with --deactivate-missing: only users an import brought' },
      'max-changes': {
        value: '<n|p%|p%,n>',
        meaning:
          'refuse the file when it would update and deactivate more users: a number, a share, or a share with a floor; 10%,5 with --deactivate-missing unless given',
      },
    },
    database: 'existing',
    settings: ['DATABASE_URL', 'DATA_DIR', 'PASSWORD_MIN_LENGTH'],
    exits: { 1: 'the file was refused (its problems, or more changes than --max-changes), or the environment failed' },
    run: async (context) => (await users()).importCommand(context),
  },
  {
    name: 'export users',
    description: "write the organization's users in the format import reads, to stdout unless --output",
    options: {
      org: ORG,
      format: { value: 'csv|jsonl|xlsx', meaning: 'the format; csv unless given (xlsx needs --output)' },
      excel: { meaning: 'CSV as Excel opens it: UTF-8 with a byte order mark, CRLF' },
      output: { value: '<file>', meaning: 'the file to write' },
    },
    database: 'existing',
    run: async (context) => (await users()).exportCommand(context),
  },
  {
    name: 'users reset-link',
    description: `print a one-time link that lets the person choose a new password (it works once, for ${RESET_LINK_MINUTES} minutes, and replaces earlier links): for when no mail can be sent`,
    options: { org: ORG, email: { value: '<email>', meaning: 'the email the person signs in with', required: true } },
    settings: ['DATABASE_URL', 'DATA_DIR', 'PUBLIC_URL'],
    exits: { 2: 'no user of the organization has the email, or it is deactivated' },
    database: 'existing',
    run: async (context) => (await load(() => import('./commands/people.js'))).resetLink(context),
  },
  {
    name: 'copy',
    description: "copy every organization's data into an empty database, all or nothing",
    options: {
      from: { value: '<url>', meaning: 'the database to copy: sqlite:<path> or postgres://...', required: true },
      to: { value: '<url>', meaning: 'the empty database to fill: sqlite:<path> or postgres://...', required: true },
    },
    exits: { 2: 'refused before it started (a database that is not empty, the same database twice), or a usage error' },
    async run({ values, io }) {
      const { copyCommand } = await load(() => import('./commands/copy.js'));
      return copyCommand({ from: required(values.from, '--from'), to: required(values.to, '--to'), json: values.json ?? false }, io);
    },
  },
  {
    name: 'backup',
    description: 'copy the SQLite database into a new file (mode 0600) while the server runs; for PostgreSQL, use pg_dump',
    options: { to: { value: '<file>', meaning: 'the new file; one that exists is refused', required: true } },
    settings: ['DATABASE_URL', 'DATA_DIR'],
    exits: { 2: 'refused: a PostgreSQL database, a file that exists, or a usage error' },
    async run({ config, values, io }) {
      const { backupCommand } = await load(() => import('./commands/backup.js'));
      return backupCommand(config.databaseUrl, required(values.to, '--to'), io);
    },
  },
  {
    name: 'scim attributes',
    description: 'list the SCIM attributes mapped onto userfields',
    options: { org: ORG },
    database: 'existing',
    run: async (context) => (await scim()).attributes(context),
  },
  {
    name: 'scim map',
    description: 'map a SCIM attribute (enterprise extension, ...) onto a userfield',
    options: {
      org: ORG,
      attribute: {
        value: '<SCIM attribute>',
        meaning: 'the attribute, as urn:...:User:department or phoneNumbers[type eq "work"].value',
        required: true,
      },
      userfield: { value: '<userfieldId>', meaning: 'the userfield its values go to', required: true },
    },
    database: 'existing',
    run: async (context) => (await scim()).map(context),
  },
  {
    name: 'scim unmap',
    description: 'remove a mapping',
    options: { org: ORG, attribute: { value: '<SCIM attribute>', meaning: 'the attribute whose mapping goes', required: true } },
    database: 'existing',
    run: async (context) => (await scim()).unmap(context),
  },
];

const COLUMN = 42;

/** An option as the usage line and the help write it: `--org <orgId>`, `--dry-run`. */
const optionSyntax = (name: string, use: OptionUse) => `--${name}${use.value ? ` ${use.value}` : ''}`;

/** `training-api tokens create --org <orgId> [--name <label>] ...`, from the command's arguments and options. */
function usageLine(command: Command): string {
  const args = Object.keys(command.args ?? {}).map((name) => `<${name}>`);
  const options = Object.entries(command.options ?? {}).map(([name, use]) =>
    use.required ? optionSyntax(name, use) : `[${optionSyntax(name, use)}]`,
  );
  return ['training-api', command.name, ...args, ...options].join(' ');
}

/** Lines of two columns: the second starts at COLUMN, or on the next line when the first is longer. */
function columns(first: string, second: string): string[] {
  return first.length < COLUMN ? [`${first.padEnd(COLUMN)}${second}`] : [first, `${' '.repeat(COLUMN)}${second}`];
}

/** A command's line in a list: its usage, then its description in the second column. */
function listing(command: Command): string {
  return columns(`  ${usageLine(command).slice('training-api '.length)}`, command.description).join('\n');
}

const COMMON_HELP = `Options of every command:
  --json                                  print JSON instead of bare values
  --<setting> <value>                     a setting, e.g. --database-url, --port (training-api serve --help lists them)
  -h, --help                              help; also after a command, as in training-api tokens --help
  --version                               the version of training-api`;

/** What every command's exit codes mean, unless it says otherwise (`exits`). */
const EXITS: Record<number, string> = {
  0: 'done',
  1: 'the environment failed: a database that cannot be reached or opened, a file or a port that cannot be used',
  2: 'a usage error: an option missing or invalid, an id that names nothing',
};

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

/** The settings a command reads, as the flag that sets each, its environment variable, its default and what it does. */
function settingsHelp(names: readonly SettingName[]): string {
  const lines = ['Settings, each an environment variable or its flag (the flag wins):'];
  for (const name of names) {
    const setting: SettingSpec = SETTINGS[name];
    const shown = setting.shownDefault ?? setting.default;
    lines.push(...columns(`  --${flagOf(name)} ${setting.value}`, `${name}${shown === undefined ? '' : `, default ${shown.replace(/`/g, '')}`}`));
    lines.push(...wrapped(setting.meaning, COLUMN + 2));
  }
  return lines.join('\n');
}

function settingsOfCommand(command: Command): readonly SettingName[] {
  if (command.settings === 'all') return SETTING_NAMES;
  return command.settings ?? (command.database ? ['DATABASE_URL', 'DATA_DIR'] : []);
}

/** A command's help, written from its entry in COMMANDS: usage, arguments, options, settings and exit codes. */
function commandHelp(command: Command): string {
  const sections = [`Usage: ${usageLine(command)}`, `${command.description[0]!.toUpperCase()}${command.description.slice(1)}.`];
  const args = Object.entries(command.args ?? {});
  if (args.length > 0) sections.push(['Arguments:', ...args.flatMap(([name, meaning]) => columns(`  <${name}>`, meaning))].join('\n'));
  const options = Object.entries(command.options ?? {}).map(([name, use]) => [
    `  ${optionSyntax(name, use)}`,
    use.required ? `${use.meaning}; required` : use.meaning,
  ]);
  options.push(['  --json', 'print JSON instead of bare values'], ['  -h, --help', 'this help']);
  sections.push(['Options:', ...options.flatMap(([syntax, meaning]) => columns(syntax!, meaning!))].join('\n'));
  const settings = settingsOfCommand(command);
  if (settings.length > 0) sections.push(settingsHelp(settings));
  const exits = Object.entries({ ...EXITS, ...command.exits });
  sections.push(['Exit codes:', ...exits.map(([code, meaning]) => `  ${code}  ${meaning}`)].join('\n'));
  return sections.join('\n\n');
}

function help(commands: Command[], group?: string): string {
  if (commands.length === 1 && commands[0]!.name === group) return commandHelp(commands[0]!);
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
  const expected = Object.keys(command.args ?? {});
  if (args.length > expected.length) throw new UsageError(`unexpected argument "${args[expected.length]}"; see training-api ${command.name} --help`);
  if (args.length < expected.length) throw new UsageError(`<${expected[args.length]}> is required; see training-api ${command.name} --help`);
  const allowed = new Set<string>([...Object.keys(COMMON_OPTIONS), ...SETTING_NAMES.map(flagOf), ...Object.keys(command.options ?? {})]);
  const stray = Object.keys(values).find((option) => !allowed.has(option));
  if (stray) throw new UsageError(`${command.name} takes no option --${stray}; see training-api ${command.name} --help`);

  const config = loadConfig(env, settingsOf(values));
  const print = (value: unknown, plain: string) => io.out(values.json ? JSON.stringify(value, null, 2) : plain);
  const context = { values, args, config, io, print };
  try {
    if (!command.database) return await command.run(withoutDatabase(command, context));
    return await withDatabase(config, command.database === 'create', ({ db }, migrated) => command.run({ ...context, db, migrated }));
  } catch (error) {
    const diagnosis = environmentDiagnosis(error, config);
    throw diagnosis ? new SetupError(diagnosis, { cause: error }) : error;
  }
}

/** The context of a command that declares no database: asking for one is a mistake of the command table. */
function withoutDatabase(command: Command, context: Omit<Context, 'db' | 'migrated'>): Context {
  const declaresNone = (): never => {
    throw new Error(`${command.name} declares no database`);
  };
  return Object.defineProperties({ ...context } as Context, { db: { get: declaresNone }, migrated: { get: declaresNone } });
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
  // With --json, a failure is told in JSON too, as everything else the command prints: `{"error":"..."}`.
  const fail = (message: string) => io.err(argv.includes('--json') ? JSON.stringify({ error: message }) : `training-api: ${message}`);
  try {
    return await run(argv, env, io);
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: string };
    if (error instanceof SetupError) {
      fail(error.message);
      return 1;
    }
    // A service's refusal (a mapping to a userfield that does not exist, ...) is the operator's to correct, as a usage error is.
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof DomainError ||
      (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))
    ) {
      fail(message!);
      return 2;
    }
    // The environment failed (a database that cannot be reached or opened, a port in use, a directory
    // that cannot be made): the system's message says what, and a stack trace would only bury it.
    if (typeof code === 'string') {
      fail(message || code);
      return 1;
    }
    fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return 1;
  }
}
