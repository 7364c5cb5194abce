/**
 * What the platform allows, to give each target of the bench context. Each mode is a minimal
 * Fastify app over HTTPS with the API's schemas:
 *
 * `fastify` answers a fixed user to GET /users/{id}; `fastify-sqlite` reads it by one cached
 * better-sqlite3 prepared statement. Neither has authentication, hooks or logging.
 *
 * `fastify-sqlite` also answers the first page of GET /users?limit= and makes users with POST /users.
 *
 * `fastify-duties` adds, written by hand in the fewest lines, what every v5 request of ours must do
 * besides the query: the bearer token looked up by its hash (one more prepared statement), the user
 * read within the token's organization, a request id in X-Request-Id, the security headers, an ETag,
 * and one log line per request (pino, to /dev/null). It is the floor of a faithful server on this
 * stack, without the rest (405 with Allow, Accept, scopes per method, rate limits, idempotency...).
 * Its POST /users does the same work as the server's, straightforwardly: the user and its
 * user.created event inserted in one transaction.
 *
 * `fastify-postgres` does what `fastify-sqlite` does on PostgreSQL (named statements, a pool of 10);
 * `fastify-postgres-duties` is `fastify-duties` on PostgreSQL.
 *
 * argv: <mode> <cert file> <key file> <user JSON> [<SQLite file or PostgreSQL URL> <org id>].
 * Sends {port} once listening.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { hashSecret } from '../src/auth/secrets.js';
import { entityTagOf } from '../src/http/conditional-requests.js';
import { apiResponseHeaders } from '../src/plugins/security-headers.js';
import { DEFAULT_PASSWORD_POLICY } from '../src/lib/password-policy.js';
import { registerValidation } from '../src/plugins/validation.js';
import { Type, type Static } from '@sinclair/typebox';
import { Page } from '../src/lib/paging.js';
import { CreateUser, User } from '../src/resources/users/users.schemas.js';
import { newId } from '../src/lib/ids.js';
import { now } from '../src/lib/time.js';
import { tagsColumn, tagsOf } from '../src/lib/tags.js';

const [mode, certFile, keyFile, userJson, databaseFile, orgId] = process.argv.slice(2);
const https = { cert: readFileSync(certFile!), key: readFileSync(keyFile!) };
const schema = { response: { 200: User } };

type UserRow = Record<string, string | number | null>;

// Columns named as the API names them; empty ones are left out, as the users service does.
const USER_COLUMNS =
  'id, first_name as firstName, last_name as lastName, username, email, locale, tags, created_date as createdDate, ' +
  'last_login_date as lastLoginDate, active, updated_date as updatedDate';

function rendered(row: UserRow): Record<string, unknown> {
  const user: Record<string, unknown> = Object.fromEntries(Object.entries(row).filter(([, value]) => value));
  if (typeof row.tags === 'string') user.tags = tagsOf(row.tags);
  user.active = row.active === 1;
  return user;
}

/** A user, and the first page of the organization's users in creation order, each by one cached prepared statement. */
function userReads(database: BetterSqlite3.Database) {
  const find = database.prepare(`select ${USER_COLUMNS} from users where org_id = ? and id = ?`);
  const page = database.prepare(`select ${USER_COLUMNS} from users where org_id = ? order by created_date, id limit ?`);
  return {
    find(org: string, id: string): Record<string, unknown> | undefined {
      const row = find.get(org, id) as UserRow | undefined;
      return row && rendered(row);
    },
    firstPage(org: string, limit: number): Record<string, unknown>[] {
      return (page.all(org, limit) as UserRow[]).map(rendered);
    },
  };
}

function fixedUser(): FastifyInstance {
  const app = Fastify({ https, logger: false });
  const user = JSON.parse(userJson!) as unknown;
  app.get('/api/v5/users/:id', { schema }, async () => user);
  return app;
}

/**
 * A create as a straightforward server makes it: the body validated by the same schema, then one
 * INSERT committed on its own (SQLite's default autocommit) with the server's durability, `synchronous
 * = FULL` in WAL mode, so every 201 waits for its own fsync. No uniqueness message, no event row.
 */
function userInsert(database: BetterSqlite3.Database): (values: ReturnType<typeof newUserValues>) => void {
  database.pragma('synchronous = FULL');
  const insert = database.prepare(
    'insert into users (org_id, id, first_name, last_name, email, email_key, tags, created_date, updated_date) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return (values) => insert.run(...values);
}

/** The columns of a new user, in the order both references insert them: org, id, names, email, its key, tags, dates. */
function newUserValues(org: string, input: Static<typeof CreateUser>) {
  const at = now();
  const tags = input.tags ? tagsColumn(input.tags) : null;
  return [org, newId(), input.firstName ?? null, input.lastName ?? null, input.email, input.email.toLowerCase(), tags, at, at] as const;
}

/** What the straightforward references read and write, synchronously (SQLite) or not (PostgreSQL). */
interface StraightforwardUsers {
  create(org: string, input: Static<typeof CreateUser>): string | Promise<string>;
  find(org: string, id: string): Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>;
  firstPage(org: string, limit: number): Record<string, unknown>[] | Promise<Record<string, unknown>[]>;
}

/** POST /users, GET /users/{id} and the first page of GET /users, each one statement and nothing else. */
function straightforwardApp(users: StraightforwardUsers): FastifyInstance {
  const app = Fastify({ https, logger: false });
  registerValidation(app, DEFAULT_PASSWORD_POLICY); // the server's validator: its schemas use keywords plain Ajv refuses
  app.post<{ Body: Static<typeof CreateUser> }>('/api/v5/users', { schema: { body: CreateUser } }, async (request, reply) => {
    const id = await users.create(orgId!, request.body);
    return reply.code(201).header('Location', `https://${request.host}/api/v5/users/${id}`).send();
  });
  app.get<{ Params: { id: string } }>(
    '/api/v5/users/:id',
    { schema },
    async (request, reply) => (await users.find(orgId!, request.params.id)) ?? reply.code(404).send(),
  );
  // The first page only (the list scenario asks for nothing else), with its next link as v5 gives it.
  app.get<{ Querystring: { limit: number } }>(
    '/api/v5/users',
    { schema: { querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100 }) }), response: { 200: Page(User) } } },
    async (request) => {
      const { limit } = request.query;
      return { results: await users.firstPage(orgId!, limit), next: `https://${request.host}/api/v5/users?limit=${limit}&offset=${limit}` };
    },
  );
  return app;
}

function sqliteUser(): FastifyInstance {
  const database = new BetterSqlite3(databaseFile);
  const insert = userInsert(database);
  return straightforwardApp({
    ...userReads(database),
    create(org, input) {
      const values = newUserValues(org, input);
      insert(values);
      return values[1];
    },
  });
}

interface TokenRow {
  org_id: string;
  scopes: string;
  revoked_date: string | null;
  expires_date: string | null;
}

/** What the duties reference reads and writes: the token by its hash, a user within an organization, a new user with its event. */
interface DutyReads {
  tokenOf(hash: string): TokenRow | undefined | Promise<TokenRow | undefined>;
  find(org: string, id: string): Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>;
  createWithEvent(org: string, input: Static<typeof CreateUser>): string | Promise<string>;
}

/** The user.created event's row for a user of `newUserValues`: org, id, type, date, the user as the API shows it. */
function createdEvent(values: ReturnType<typeof newUserValues>) {
  const [org, id, firstName, lastName, email, , tags, at] = values;
  const user = {
    id,
    ...(firstName && { firstName }),
    ...(lastName && { lastName }),
    email,
    ...(tags && { tags: tagsOf(tags) }),
    createdDate: at,
    updatedDate: at,
    active: true,
  };
  const event = { id: newId(), type: 'user.created', createdDate: at, organizationId: org, data: user };
  return [org, event.id, event.type, at, JSON.stringify(event.data)] as const;
}
const EVENT_INSERT = 'insert into events (org_id, id, type, created_date, data) values';

function userWithDuties(reads: DutyReads): FastifyInstance {
  const app = Fastify({
    https,
    logger: { level: 'info', file: '/dev/null' },
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
  });
  const headers = apiResponseHeaders();
  app.decorateRequest('orgId', '');
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(headers).header('X-Request-Id', request.id);
    const bearer = /^Bearer +(\S+)$/i.exec(request.headers.authorization ?? '');
    const token = bearer ? await reads.tokenOf(hashSecret(bearer[1]!)) : undefined;
    const usable = token && !token.revoked_date && !(token.expires_date && token.expires_date <= new Date().toISOString());
    if (!usable || !token.scopes.split(',').some((scope) => scope === 'read' || scope === 'write')) {
      return reply.code(401).send({ errors: ['The access token is invalid'] });
    }
    (request as unknown as { orgId: string }).orgId = token.org_id;
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime },
      'request completed',
    );
  });
  registerValidation(app, DEFAULT_PASSWORD_POLICY);
  app.post<{ Body: Static<typeof CreateUser> }>('/api/v5/users', { schema: { body: CreateUser } }, async (request, reply) => {
    const id = await reads.createWithEvent((request as unknown as { orgId: string }).orgId, request.body);
    return reply.code(201).header('Location', `https://${request.host}/api/v5/users/${id}`).send();
  });
  app.get<{ Params: { id: string } }>('/api/v5/users/:id', { schema }, async (request, reply) => {
    const user = await reads.find((request as unknown as { orgId: string }).orgId, request.params.id);
    if (!user) return reply.code(404).send({ errors: ['No resource exists with the given id.'] });
    return reply.header('ETag', entityTagOf(user)).send(user);
  });
  return app;
}

const TOKEN_COLUMNS = 'org_id, scopes, revoked_date, expires_date';

function sqliteUserWithDuties(): FastifyInstance {
  const database = new BetterSqlite3(databaseFile);
  const users = userReads(database);
  const tokenOf = database.prepare(`select ${TOKEN_COLUMNS} from access_tokens where token_hash = ?`);
  const insertUser = userInsert(database);
  const insertEvent = database.prepare(`${EVENT_INSERT} (?, ?, ?, ?, ?)`);
  const createWithEvent = database.transaction((org: string, input: Static<typeof CreateUser>) => {
    const values = newUserValues(org, input);
    insertUser(values);
    insertEvent.run(...createdEvent(values));
    return values[1];
  });
  return userWithDuties({
    tokenOf: (hash) => tokenOf.get(hash) as TokenRow | undefined,
    find: (org, id) => users.find(org, id),
    createWithEvent: (org, input) => createWithEvent(org, input),
  });
}

/** PostgreSQL's reads, each one named (server-side prepared) statement, from a pool as large as the server's default. */
function postgresReads(pool: pg.Pool) {
  const columns = USER_COLUMNS.replace(/ as (\w+)/g, ' as "$1"');
  const findText = `select ${columns} from users where org_id = $1 and id = $2`;
  const pageText = `select ${columns} from users where org_id = $1 order by created_date, id limit $2`;
  const toUser = (row: UserRow) => rendered({ ...row, active: row.active ? 1 : 0 });
  return {
    async find(org: string, id: string): Promise<Record<string, unknown> | undefined> {
      const { rows } = await pool.query<UserRow>({ name: 'find-user', text: findText, values: [org, id] });
      return rows[0] && toUser(rows[0]);
    },
    async firstPage(org: string, limit: number): Promise<Record<string, unknown>[]> {
      const { rows } = await pool.query<UserRow>({ name: 'first-page', text: pageText, values: [org, limit] });
      return rows.map(toUser);
    },
    async tokenOf(hash: string): Promise<TokenRow | undefined> {
      const text = `select ${TOKEN_COLUMNS} from access_tokens where token_hash = $1`;
      return (await pool.query<TokenRow>({ name: 'token-of', text, values: [hash] })).rows[0];
    },
  };
}

const POSTGRES_USER_INSERT =
  'insert into users (org_id, id, first_name, last_name, email, email_key, tags, created_date, updated_date, active) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, true)';

/**
 * PostgreSQL, the same way as `fastify-sqlite`: GET /users/{id}, the first page of GET /users?limit=
 * and POST /users (one INSERT, committed on its own with PostgreSQL's default durability).
 */
function postgresUser(): FastifyInstance {
  const pool = new pg.Pool({ connectionString: databaseFile, max: 10 });
  const app = straightforwardApp({
    ...postgresReads(pool),
    async create(org, input) {
      const values = newUserValues(org, input);
      await pool.query({ name: 'insert-user', text: POSTGRES_USER_INSERT, values: [...values] });
      return values[1];
    },
  });
  app.addHook('onClose', () => pool.end());
  return app;
}

/** `fastify-duties` on PostgreSQL: the token and the user each read by a named statement, a create in a transaction of named statements. */
function postgresUserWithDuties(): FastifyInstance {
  const pool = new pg.Pool({ connectionString: databaseFile, max: 10 });
  const eventText = `${EVENT_INSERT} ($1, $2, $3, $4, $5)`;
  const app = userWithDuties({
    ...postgresReads(pool),
    async createWithEvent(org, input) {
      const values = newUserValues(org, input);
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query({ name: 'insert-user', text: POSTGRES_USER_INSERT, values: [...values] });
        await client.query({ name: 'insert-event', text: eventText, values: [...createdEvent(values)] });
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      } finally {
        client.release();
      }
      return values[1];
    },
  });
  app.addHook('onClose', () => pool.end());
  return app;
}

const servers: Record<string, () => FastifyInstance> = {
  fastify: fixedUser,
  'fastify-sqlite': sqliteUser,
  'fastify-duties': sqliteUserWithDuties,
  'fastify-postgres': postgresUser,
  'fastify-postgres-duties': postgresUserWithDuties,
};
const make = servers[mode!];
if (!make) throw new Error(`Unknown reference server "${mode}"; known: ${Object.keys(servers).join(', ')}`);
const app = make();
await app.listen({ host: '127.0.0.1', port: 0 });
process.send!({ port: (app.server.address() as AddressInfo).port });
process.on('disconnect', () => process.exit(0));
// An exit, not a kill, so that a CPU profile (`--cpu-prof`) is written.
process.on('SIGTERM', () => process.exit(0));
