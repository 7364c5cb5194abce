import assert from 'node:assert/strict';
import { SANDBOX_SAMPLE } from '../../src/tenancy/sandbox.js';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import type { ApiInstance } from '../../src/http/api-instance.js';
import { main } from '../../src/cli/main.js';
import { createTestDatabase, ALL_ENGINES, engineSkip, type TestDatabase } from '../helpers/database.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ID = /^[0-9a-f]{32}$/;
const TOKEN = /^tpa_[A-Za-z0-9_-]{43}$/;
/** setpriv's arguments that take from root the power to read and search whatever the file modes say. */
const WITHOUT_FILE_MODE_BYPASS = ['--bounding-set', '-dac_override,-dac_read_search', '--inh-caps', '-dac_override,-dac_read_search'];

interface Run {
  code: number;
  out: string;
  err: string;
}

for (const engine of ALL_ENGINES) {
  describe(`command line [${engine}]`, { skip: engineSkip(engine) }, () => {
    let database: TestDatabase;
    let app: ApiInstance;

    /** Runs the command line in this process against the test database. */
    async function cli(...argv: string[]): Promise<Run> {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(argv, { DATABASE_URL: database.url }, { out: (line) => out.push(line), err: (line) => err.push(line) });
      return { code, out: out.join('\n'), err: err.join('\n') };
    }

    async function succeed(...argv: string[]): Promise<string> {
      const run = await cli(...argv);
      assert.equal(run.code, 0, `${argv.join(' ')} exited with ${run.code}: ${run.err}`);
      assert.equal(run.err, '');
      return run.out;
    }

    function getUsers(token: string) {
      return app.inject({ method: 'GET', url: '/api/v5/users', headers: { authorization: `Bearer ${token}` } });
    }

    before(async () => {
      database = await createTestDatabase(engine, { migrate: false });
      app = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: database.db });
    });
    after(async () => {
      await app.close();
      await database.drop();
    });

    it('migrates a new database, and says how many migrations it applied', async () => {
      assert.match(await succeed('migrate'), /^Applied \d+ migrations; the database is up to date$/);
      assert.equal(await succeed('migrate'), 'Database is up to date');
      assert.deepEqual(JSON.parse(await succeed('migrate', '--json')), { migrated: true, applied: [] });
      assert.deepEqual(await database.db.selectFrom('organizations').selectAll().execute(), []);
    });

    it('creates an organization and prints its bare id', async () => {
      assert.match(await succeed('orgs', 'create', '--name', 'Acme Training'), ID);
    });

    it('lists organizations as text and as JSON', async () => {
      const id = await succeed('orgs', 'create', '--name', 'Listed');
      const lines = (await succeed('orgs', 'list')).split('\n');
      const line = lines.find((l) => l.startsWith(id));
      assert.ok(line, lines.join('\n'));
      assert.equal(line.split('\t')[1], 'Listed');
      const listed = JSON.parse(await succeed('orgs', 'list', '--json'));
      assert.ok(Array.isArray(listed));
      const organization = listed.find((o: { id: string }) => o.id === id);
      assert.equal(organization.name, 'Listed');
      assert.match(organization.createdDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it('creates a sandbox filled with the sample, and lists it as one', async () => {
      const id = await succeed('orgs', 'create', '--name', 'Sandbox', '--sandbox');
      const listed = JSON.parse(await succeed('orgs', 'list', '--json'));
      assert.equal(listed.find((o: { id: string }) => o.id === id).sandbox, true);
      assert.equal(listed.find((o: { name: string }) => o.name === 'Listed')?.sandbox ?? false, false);
      const users = await database.db.selectFrom('users').select('id').where('org_id', '=', id).execute();
      assert.equal(users.length, SANDBOX_SAMPLE.users);
      // Gone again: the statistics test below counts every user of the database.
      await succeed('orgs', 'delete', id, '--yes');
    });

    it('creates a token that authenticates against the API', async () => {
      const orgId = await succeed('orgs', 'create', '--name', 'With token');
      const token = await succeed('tokens', 'create', '--org', orgId);
      assert.match(token, TOKEN);
      const response = await getUsers(token);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { results: [] });
    });

    it('lists tokens without their secrets', async () => {
      const orgId = await succeed('orgs', 'create', '--name', 'Token list');
      const token = await succeed('tokens', 'create', '--org', orgId, '--name', 'ci-pipeline');
      const hash = createHash('sha256').update(token).digest('hex');
      for (const listing of [await succeed('tokens', 'list', '--org', orgId), await succeed('tokens', 'list', '--org', orgId, '--json')]) {
        assert.ok(listing.includes('ci-pipeline'), listing);
        assert.equal(listing.includes(token), false);
        assert.equal(listing.includes(token.slice(4)), false);
        assert.equal(listing.includes(hash), false);
      }
      const [info] = JSON.parse(await succeed('tokens', 'list', '--org', orgId, '--json'));
      assert.match(info.id, ID);
      assert.deepEqual(info.scopes, ['read', 'write']);
    });

    it('revokes a token with immediate effect', async () => {
      const orgId = await succeed('orgs', 'create', '--name', 'Revocation');
      const token = await succeed('tokens', 'create', '--org', orgId);
      assert.equal((await getUsers(token)).statusCode, 200);
      const [info] = JSON.parse(await succeed('tokens', 'list', '--org', orgId, '--json'));
      assert.equal(await succeed('tokens', 'revoke', info.id), `Token ${info.id} revoked`);
      const response = await getUsers(token);
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().error, 'invalid_token');
      const [revoked] = JSON.parse(await succeed('tokens', 'list', '--org', orgId, '--json'));
      assert.match(revoked.revokedDate, /Z$/);
    });

    it('creates a read-only token that cannot write', async () => {
      const orgId = await succeed('orgs', 'create', '--name', 'Read only');
      const token = await succeed('tokens', 'create', '--org', orgId, '--scopes', 'read');
      assert.equal((await getUsers(token)).statusCode, 200);
      const response = await app.inject({
        method: 'POST',
        url: '/api/v5/users',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: { email: 'reader@example.com' },
      });
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().error, 'insufficient_scope');
    });

    it('seeds users with userfield values and active registrations, and leaves the statistics current', async () => {
      const orgId = await succeed('orgs', 'create', '--name', 'Seeded');
      const token = await succeed('tokens', 'create', '--org', orgId);
      const seeded = JSON.parse(
        await succeed('seed', '--org', orgId, '--users', '1200', '--userfield-values', '10', '--registrations', '3', '--json'),
      );
      assert.deepEqual({ ...seeded, password: undefined }, { users: 1200, userfieldValues: 12_000, registrations: 3600, password: undefined });
      const get = (url: string) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      const page = (await get('/api/v5/users?limit=100&offset=1150')).json();
      assert.equal(page.results.length, 50);
      assert.equal(page.next, undefined);
      const last = page.results.at(-1).id;
      const values = await get(`/api/v5/users/${last}/userfieldvalues`);
      assert.equal(values.statusCode, 200);
      assert.equal(Object.keys(values.json()).length, 10);
      const registrations = (await get(`/api/v5/registrations?userId=${last}`)).json().results;
      assert.deepEqual(
        registrations.map((r: { status: string }) => r.status),
        ['active', 'active', 'active'],
      );

      // Through the services, as the API's writes: each seeded user, its values and registrations are in the event feed.
      const events = await database.db
        .selectFrom('events')
        .select(['type', (eb) => eb.fn.countAll<number | string>().as('count')])
        .where('org_id', '=', orgId)
        .groupBy('type')
        .execute();
      const counts = Object.fromEntries(events.map((event) => [event.type, Number(event.count)]));
      assert.equal(counts['user.created'], 1200);
      assert.equal(counts['userfieldvalues.updated'], 1200);
      assert.equal(counts['registration.created'], 3600);

      // A second seed reuses the demo fields and offerings.
      await succeed('seed', '--org', orgId, '--users', '1', '--userfield-values', '10', '--registrations', '3');
      const fields = await database.db.selectFrom('userfields').select('id').where('org_id', '=', orgId).execute();
      assert.equal(fields.length, 8 + 10);
      const offerings = await database.db.selectFrom('offerings').select('id').where('org_id', '=', orgId).execute();
      assert.equal(offerings.length, 3);

      // The planner knows the table's size: ANALYZE ran after the bulk insert.
      if (engine === 'sqlite') {
        const stats = await sql<{ stat: string }>`select stat from sqlite_stat1 where tbl = 'users' and idx = 'users_created'`.execute(database.db);
        assert.match(stats.rows[0]!.stat, /^1201 /);
      } else {
        const stats = await sql<{ reltuples: number }>`select reltuples from pg_class where oid = 'users'::regclass`.execute(database.db);
        assert.equal(Number(stats.rows[0]!.reltuples), 1201);
      }
    });

    it('refuses seed counts out of range with exit code 2', async () => {
      const orgId = await succeed('orgs', 'create', '--name', 'Seed limits');
      for (const [flag, value, message] of [
        ['--users', '0', '--users must be a positive integer (got "0")'],
        ['--userfield-values', '11', '--userfield-values must be an integer from 0 to 10 (got "11")'],
        ['--registrations', 'many', '--registrations must be an integer from 0 to 100 (got "many")'],
        ['--registrations', '-3', '--registrations must be an integer from 0 to 100 (got "-3")'],
      ]) {
        const run = await cli('seed', '--org', orgId, '--users', '5', flag!, value!);
        assert.equal(run.code, 2);
        assert.equal(run.err, `training-api: ${message}`);
      }
      const negative = await cli('seed', '--org', orgId, '--users', '-3');
      assert.equal(negative.code, 2);
      assert.equal(negative.err, 'training-api: --users must be a positive integer (got "-3")');
    });

    it('refuses a token for an unknown organization with exit code 2', async () => {
      const run = await cli('tokens', 'create', '--org', '0190f5d2a1b27c3d8e4f5a6b7c8d9e0f');
      assert.equal(run.code, 2);
      assert.equal(run.out, '');
      assert.match(run.err, /No organization has the id 0190f5d2a1b27c3d8e4f5a6b7c8d9e0f/);
    });

    it('refuses to list the tokens of an unknown organization with exit code 2', async () => {
      const run = await cli('tokens', 'list', '--org', 'nonexistent');
      assert.equal(run.code, 2);
      assert.match(run.err, /No organization has the id nonexistent/);
    });

    it('refuses to revoke an unknown token with exit code 2', async () => {
      const run = await cli('tokens', 'revoke', '0190f5d2a1b27c3d8e4f5a6b7c8d9e0f');
      assert.equal(run.code, 2);
      assert.match(run.err, /No token has the id/);
    });

    it('names a missing or invalid option with exit code 2', async () => {
      const orgId = await succeed('orgs', 'create', '--name', 'Options');
      for (const [argv, message] of [
        [['orgs', 'create'], /--name is required/],
        [['tokens', 'create'], /--org is required/],
        [['tokens', 'create', '--org', orgId, '--scopes', 'admin'], /[Ss]copes/],
        [['tokens', 'create', '--org', orgId, '--expires', 'someday'], /--expires/],
        [['tokens', 'create', '--org', orgId, '--expires', '2000-01-01'], /--expires must be in the future/],
        [['tokens', 'create', '--org', orgId, '--scopes', ''], /[Ss]copes/],
        [['orgs', 'create', '--name', '   '], /--name is required/],
        [['orgs', 'list', '--bogus'], /bogus/],
      ] as const) {
        const run = await cli(...argv);
        assert.equal(run.code, 2, argv.join(' '));
        assert.equal(run.out, '');
        assert.match(run.err, message);
      }
    });

    it('refuses an unknown command, subcommand, argument or option in one line with exit code 2', async () => {
      const orgId = await succeed('orgs', 'create', '--name', 'Strict');
      for (const [argv, message] of [
        [['frobnicate'], 'unknown command "frobnicate"; see training-api --help'],
        [['orgs'], 'orgs needs a command: create, list, rename, delete; see training-api orgs --help'],
        [['orgs', 'frob'], 'orgs has no command "frob": create, list, rename, delete; see training-api orgs --help'],
        [['orgs', 'list', 'extra'], 'unexpected argument "extra"; see training-api orgs list --help'],
        [['orgs', 'list', '--users', '5'], 'orgs list takes no option --users; see training-api orgs list --help'],
        [['tokens', 'revoke'], '<tokenId> is required; see training-api tokens revoke --help'],
        [['tokens', 'list', '--org', orgId, '--bogus'], 'unknown option --bogus; see training-api --help'],
        [['migrate', '--json=yes'], "Option '--json' does not take an argument"],
      ] as const) {
        const run = await cli(...argv);
        assert.equal(run.code, 2, argv.join(' '));
        assert.equal(run.out, '');
        assert.equal(run.err, `training-api: ${message}`, argv.join(' '));
      }
    });

    it('prints the usage on --help, and the help of every command and group of commands', async () => {
      const usage = await succeed('--help');
      assert.match(usage, /^Usage: training-api/);
      const names = [...usage.matchAll(/^ {2}([a-z]+(?: [a-z][a-z-]*)?)(?= |$)/gm)].map((match) => match[1]!);
      for (const expected of ['serve', 'migrate', 'orgs rename', 'orgs delete', 'tokens rotate', 'copy', 'scim map', 'users reset-link']) {
        assert.ok(names.includes(expected), `${expected} in\n${usage}`);
      }
      for (const name of names) {
        const help = await succeed(...name.split(' '), '--help');
        assert.match(help, new RegExp(`^Usage: training-api ${name}( |\n)`), name);
        // Every option of its usage line, with the syntax of its value, has its line under Options.
        const usage = help.split('\n', 1)[0]!;
        const options = help.slice(help.indexOf('\nOptions:\n'), help.indexOf('\n\n', help.indexOf('\nOptions:\n') + 1));
        for (const [, option] of usage.matchAll(/\[?(--[a-z-]+(?: [^\s\]]+)?)\]?/g)) {
          assert.match(options, new RegExp(`^ {2}${option!.replace(/[|.*+?()[\]{}]/g, '\\$&')} +\\S`, 'm'), `${name}: ${option}`);
        }
        assert.match(options, /^ {2}--json +print JSON/m, name);
        assert.match(help, /\nExit codes:\n {2}0 {2}\S.*\n {2}1 {2}\S.*\n {2}2 {2}\S/, name);
      }
      assert.match(await succeed('healthcheck', '--help'), /^ {2}1 {2}the server did not answer/m);
      assert.match(await succeed('orgs', 'list', '--help'), /^ {2}--database-url <url> +DATABASE_URL/m);
      for (const group of new Set(names.filter((name) => name.includes(' ')).map((name) => name.split(' ')[0]!))) {
        const help = await succeed(group, '--help');
        assert.match(help, new RegExp(`^Usage: training-api ${group} <command>`), group);
        assert.ok(
          names.filter((name) => name.startsWith(`${group} `)).every((name) => help.includes(`  ${name}`)),
          help,
        );
      }
    });

    it('prints its version', async () => {
      const { version } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
      assert.equal(await succeed('--version'), version);
    });

    it('renames an organization and deletes one with all its data, only when confirmed', async () => {
      const orgId = await succeed('orgs', 'create', '--name', 'Before');
      const token = await succeed('tokens', 'create', '--org', orgId);
      assert.equal((await getUsers(token)).statusCode, 200);
      assert.equal(await succeed('orgs', 'rename', orgId, '--name', 'After'), `Organization ${orgId} renamed from "Before" to "After"`);
      assert.equal(JSON.parse(await succeed('orgs', 'list', '--json')).find((o: { id: string }) => o.id === orgId).name, 'After');

      const unconfirmed = await cli('orgs', 'delete', orgId);
      assert.equal(unconfirmed.code, 2);
      assert.equal(unconfirmed.err, 'training-api: deleting "After" removes all its data for good; add --yes to confirm');
      assert.equal((await getUsers(token)).statusCode, 200);

      assert.equal(await succeed('orgs', 'delete', orgId, '--yes'), `Organization ${orgId} ("After") deleted with all its data`);
      assert.ok(!(await succeed('orgs', 'list')).includes(orgId));
      assert.equal((await getUsers(token)).statusCode, 401);
      const tokens = await database.db.selectFrom('access_tokens').select('id').where('org_id', '=', orgId).execute();
      assert.deepEqual(tokens, []);
      for (const argv of [
        ['orgs', 'rename', orgId, '--name', 'Again'],
        ['orgs', 'delete', orgId, '--yes'],
      ]) {
        const run = await cli(...argv);
        assert.equal(run.code, 2);
        assert.equal(run.err, `training-api: No organization has the id ${orgId}`);
      }
    });

    it('rotates a token: the new one works with the same name and scopes, the old one no longer', async () => {
      const orgId = await succeed('orgs', 'create', '--name', 'Rotation');
      const old = JSON.parse(await succeed('tokens', 'create', '--org', orgId, '--name', 'HR sync', '--scopes', 'read', '--json'));
      const rotated = await cli('tokens', 'rotate', old.id);
      assert.equal(rotated.code, 0, rotated.err);
      assert.match(rotated.out, TOKEN);
      assert.match(rotated.err, new RegExp(`^Token ${old.id} revoked; its replacement [0-9a-f]{32} \\(shown only this once\\):$`));
      assert.equal((await getUsers(rotated.out)).statusCode, 200);
      assert.equal((await getUsers(old.token)).statusCode, 401);
      const listed = JSON.parse(await succeed('tokens', 'list', '--org', orgId, '--json')) as {
        id: string;
        name: string;
        scopes: string[];
        revokedDate?: string;
      }[];
      const replacement = listed.find((t) => t.id !== old.id)!;
      assert.deepEqual([replacement.name, replacement.scopes, replacement.revokedDate], ['HR sync', ['read'], undefined]);
      assert.ok(listed.find((t) => t.id === old.id)!.revokedDate);

      const again = await cli('tokens', 'rotate', old.id);
      assert.equal(again.code, 2);
      assert.equal(again.err, `training-api: token ${old.id} is revoked; create a new one with \`training-api tokens create\``);
    });

    it('says when a token was already revoked', async () => {
      const orgId = await succeed('orgs', 'create', '--name', 'Revocation');
      const { id } = JSON.parse(await succeed('tokens', 'create', '--org', orgId, '--json'));
      assert.equal(await succeed('tokens', 'revoke', id), `Token ${id} revoked`);
      const revokedDate = JSON.parse(await succeed('tokens', 'list', '--org', orgId, '--json'))[0].revokedDate;
      assert.equal(await succeed('tokens', 'revoke', id), `Token ${id} was already revoked on ${revokedDate}`);
    });

    it('works as a real process: bare id on stdout, exit codes', async () => {
      const run = promisify(execFile);
      const env = { PATH: process.env.PATH, DATABASE_URL: database.url };
      const created = await run(process.execPath, ['bin/training-api.js', 'orgs', 'create', '--name', 'From a shell'], { cwd: REPO_ROOT, env });
      assert.match(created.stdout, /^[0-9a-f]{32}\n$/);
      assert.equal(created.stderr, '');
      await assert.rejects(
        run(process.execPath, ['bin/training-api.js', 'frobnicate'], { cwd: REPO_ROOT, env }),
        (error: { code: number; stdout: string; stderr: string }) => {
          assert.equal(error.code, 2);
          assert.equal(error.stdout, '');
          assert.equal(error.stderr, 'training-api: unknown command "frobnicate"; see training-api --help\n');
          return true;
        },
      );
    });
  });
}

describe('command line: settings that cannot work and an environment that fails', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'training-api-cli-'));
    await writeFile(join(dir, 'not-a-database'), 'plain text\n');
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function cli(env: Record<string, string>, ...argv: string[]): Promise<Run> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, env, { out: (line) => out.push(line), err: (line) => err.push(line) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('takes every setting of the table of docs/configuration.md as a flag, lists each in serve --help, and reads it as its variable', async () => {
    const page = await readFile(join(REPO_ROOT, 'docs/configuration.md'), 'utf8');
    const table = page.slice(page.indexOf('| Variable | Default | Meaning |'), page.indexOf('\n\n', page.indexOf('| Variable |')));
    const variables = table
      .split('\n')
      .slice(2)
      .flatMap((row) => [...row.split(' | ')[0]!.matchAll(/`([A-Z][A-Z_]+)`/g)].map((match) => match[1]!));
    assert.ok(variables.length >= 45, table);
    const help = await cli({}, 'serve', '--help');
    assert.equal(help.code, 0, help.err);
    for (const variable of variables) {
      const flag = `--${variable.toLowerCase().replaceAll('_', '-')}`;
      assert.match(help.out, new RegExp(`^ {2}${flag} \\S+ +${variable}\\b|^ {2}${flag} \\S+\\n +${variable}\\b`, 'm'), `${flag} in serve --help`);
      assert.equal((await cli({}, 'serve', flag, 'value', '--help')).code, 0, `serve ${flag}`);
    }
    const refused = await cli({ DATABASE_URL: `sqlite:${join(dir, 'flags.db')}` }, 'migrate', '--password-min-length', '5');
    assert.equal(refused.code, 2);
    assert.equal(refused.err, 'training-api: PASSWORD_MIN_LENGTH must be a whole number from 6 to 64 (got "5")');
  });

  it('refuses an unusable DATABASE_URL or LOG_LEVEL as a usage error (exit code 2), without a stack trace', async () => {
    for (const [env, message] of [
      [{ DATABASE_URL: 'mysql://localhost/training' }, /DATABASE_URL must start with sqlite: or postgres:\/\//],
      [{ DATABASE_URL: 'sqlite:' }, /DATABASE_URL/],
      [{ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
      [
        { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, DATABASE_STATEMENT_TIMEOUT: 'soon' },
        /DATABASE_STATEMENT_TIMEOUT must be a duration such as 30s/,
      ],
      [{ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, DATABASE_CONNECT_TIMEOUT: '0s' }, /DATABASE_CONNECT_TIMEOUT/],
      [{ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, SQLITE_SYNCHRONOUS: 'off' }, /SQLITE_SYNCHRONOUS must be full or normal/],
    ] as const) {
      const run = await cli(env, 'orgs', 'list');
      assert.equal(run.code, 2, JSON.stringify(env));
      assert.equal(run.out, '');
      assert.match(run.err, message);
      assert.equal(run.err.split('\n').length, 1, run.err);
    }
  });

  it('reports a database or listener that fails with one line and exit code 1', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = String((blocker.address() as AddressInfo).port);
    try {
      for (const [env, argv, message] of [
        [
          { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' },
          ['orgs', 'list'],
          /^training-api: nothing accepts connections at 127\.0\.0\.1:1: start PostgreSQL there, or set DATABASE_URL \(--database-url\)/,
        ],
        [{ DATABASE_URL: `sqlite:${join(dir, 'not-a-database')}` }, ['orgs', 'list'], /not a database/],
        [{ DATABASE_URL: `sqlite:${join(dir, 'not-a-database', 'inside.db')}` }, ['migrate'], /not-a-database/],
        [
          { DATABASE_URL: `sqlite:${join(dir, 'serve.db')}`, DATA_DIR: dir, PORT: port },
          ['serve'],
          new RegExp(`^training-api: 127\\.0\\.0\\.1:${port} is in use by another program: stop it, or set PORT \\(--port\\) to a free port$`),
        ],
      ] as const) {
        const run = await cli(env, ...argv);
        assert.equal(run.code, 1, argv.join(' '));
        assert.match(run.err, message);
        assert.doesNotMatch(run.err, /\n\s+at /, 'no stack trace');
      }
    } finally {
      blocker.close();
    }
  });

  it('says where migrate created a database, and that it did', async () => {
    const path = join(dir, 'created', 'training-api.db');
    const created = await cli({ DATABASE_URL: `sqlite:${path}` }, 'migrate');
    assert.equal(created.code, 0, created.err);
    assert.match(created.out, new RegExp(`^Created a new database at ${path.replaceAll('.', '\\.')}, with its \\d+ migrations$`));
    assert.deepEqual(JSON.parse((await cli({ DATABASE_URL: `sqlite:${path}` }, 'migrate', '--json')).out), { migrated: true, applied: [] });
    const other = join(dir, 'created', 'other.db');
    const json = JSON.parse((await cli({ DATABASE_URL: `sqlite:${other}` }, 'migrate', '--json')).out);
    assert.equal(json.created, other);
    assert.ok(json.applied.length > 10);
  });

  it('says that DATA_DIR names a file, not a directory', async () => {
    const file = join(dir, 'not-a-database');
    for (const dataDir of [file, join(file, 'below')]) {
      const run = await cli({ DATA_DIR: dataDir }, 'migrate');
      assert.equal(run.code, 1);
      assert.equal(run.err, `training-api: ${file} is a file, not a directory (DATA_DIR, --data-dir)`);
    }
  });

  it('says permission denied for a database it may not read, not that there is none', async () => {
    const locked = await mkdtemp(join(tmpdir(), 'training-api-locked-'));
    try {
      const path = join(locked, 'training-api.db');
      assert.equal((await cli({ DATABASE_URL: `sqlite:${path}` }, 'migrate')).code, 0);
      await chmod(locked, 0o000);
      // Root reads anything: as root the command runs without the capabilities that bypass file modes.
      // (Running it as another user instead fails earlier when node itself lives where that user cannot go.)
      const command = [process.execPath, join(REPO_ROOT, 'bin/training-api.js'), 'orgs', 'list'];
      const [file, ...args] = process.getuid?.() === 0 ? ['setpriv', ...WITHOUT_FILE_MODE_BYPASS, ...command] : command;
      const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = execFile(file!, args, { env: { PATH: process.env.PATH, DATABASE_URL: `sqlite:${path}` } }, (_error, _stdout, stderr) =>
          resolve({ code: child.exitCode, stderr }),
        );
      });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, new RegExp(`^training-api: permission denied on ${path.replaceAll('.', '\\.')} \\(DATABASE_URL\\): the user running`));
    } finally {
      await chmod(locked, 0o700);
      await rm(locked, { recursive: true, force: true });
    }
  });

  it(
    'names createdb for a PostgreSQL database that does not exist',
    { skip: process.env.TEST_POSTGRES_URL ? false : 'needs TEST_POSTGRES_URL' },
    async () => {
      const url = new URL(process.env.TEST_POSTGRES_URL!);
      url.pathname = '/training_api_nowhere';
      const run = await cli({ DATABASE_URL: url.href }, 'orgs', 'list');
      assert.equal(run.code, 1);
      assert.match(
        run.err,
        /^training-api: database "training_api_nowhere" does not exist: create it with `createdb (-h \S+ )?(-p \d+ )?(-U \S+ )?training_api_nowhere`/,
      );
    },
  );

  it('refuses to create a missing SQLite database except for serve and migrate', async () => {
    const path = join(dir, 'elsewhere', 'training-api.db');
    for (const argv of [
      ['orgs', 'list'],
      ['tokens', 'list', '--org', 'x'],
      ['seed', '--org', 'x', '--users', '1'],
    ]) {
      const run = await cli({ DATABASE_URL: `sqlite:${path}` }, ...argv);
      assert.equal(run.code, 1, argv.join(' '));
      assert.equal(run.err, `training-api: no database at ${path}; run \`training-api migrate\` or set DATABASE_URL`);
      assert.equal(existsSync(path), false);
    }
    assert.equal((await cli({ DATABASE_URL: `sqlite:${path}` }, 'migrate')).code, 0);
    assert.equal((await cli({ DATABASE_URL: `sqlite:${path}` }, 'orgs', 'list')).code, 0);
  });

  it('names a TLS file that holds no PEM certificate or key (exit code 2)', async () => {
    const env = {
      DATABASE_URL: `sqlite:${join(dir, 'tls.db')}`,
      DATA_DIR: dir,
      PORT: '0',
      TLS_CERT_FILE: join(dir, 'not-a-database'),
      TLS_KEY_FILE: join(dir, 'not-a-database'),
    };
    const run = await cli(env, 'serve');
    assert.equal(run.code, 2);
    assert.match(run.err, /TLS_CERT_FILE/);
    assert.equal(run.err.split('\n').length, 1, run.err);
  });
});
