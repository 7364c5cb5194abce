import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.js';
import type { Engine } from '../../src/db/database.js';
import type { ApiInstance } from '../../src/http/api-instance.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { generatedFiles } from '../../clients/typescript/scripts/generate.js';
import { createTestDatabase } from '../helpers/database.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

/**
 * The committed snapshots of the contract, which `npm run snapshots` writes and
 * test/snapshots/snapshots.test.ts compares with the code: the OpenAPI document (with the typed
 * client generated from it, in clients/typescript) and the SQL each engine issues for a fixed
 * series of requests (test/snapshots/sql/). A change to the API or to a query then shows in the
 * diff of the change that makes it.
 */

const REPOSITORY = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Files by path from the repository's root, with their content. */
export type Snapshots = Record<string, string>;

/** The OpenAPI document and the typed client's types, as clients/typescript holds them. */
export async function openApiSnapshots(): Promise<Snapshots> {
  const files = await generatedFiles();
  return Object.fromEntries(Object.entries(files).map(([path, content]) => [join('clients/typescript', path), content]));
}

export const sqlSnapshotPath = (engine: Engine): string => `test/snapshots/sql/${engine}.sql`;

export const absolute = (path: string): string => join(REPOSITORY, path);

const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const SCIM_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

interface Step {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path after the base path; `{name}` stands for the id a former step's `saves` kept. */
  path: string;
  body?: (ids: Record<string, string>) => unknown;
  status: number;
  /** Keeps the id of the created item (the last segment of its Location) under this name. */
  saves?: string;
}

/**
 * Requests a client typically sends, one or more per resource: creating, reading with filters,
 * updating and deleting. Each one's expected status is checked, so that the snapshot never records
 * the SQL of a refusal by mistake.
 */
const STEPS: Step[] = [
  { method: 'POST', path: '/api/v5/users', body: () => ({ email: 'ada@example.com', firstName: 'Ada', tags: ['math'] }), status: 201, saves: 'user' },
  { method: 'GET', path: '/api/v5/users?limit=2&tags=math&createdDate=2020/..', status: 200 },
  { method: 'GET', path: '/api/v5/users?email=ADA@example.com', status: 200 },
  { method: 'GET', path: '/api/v5/users?limit=50', status: 200 },
  { method: 'GET', path: '/api/v5/users/{user}', status: 200 },
  { method: 'PUT', path: '/api/v5/users/{user}', body: () => ({ lastName: 'Lovelace', tags: ['math', 'engines'] }), status: 204 },
  { method: 'POST', path: '/api/v5/userfieldcategories', body: () => ({ name: 'Profile', type: 'public' }), status: 201, saves: 'category' },
  { method: 'GET', path: '/api/v5/userfieldcategories', status: 200 },
  {
    method: 'POST',
    path: '/api/v5/userfields',
    body: ({ category }) => ({ type: 'dropdown', name: 'Colour', categoryId: category, options: [{ name: 'Red' }, { name: 'Blue' }] }),
    status: 201,
    saves: 'field',
  },
  { method: 'GET', path: '/api/v5/userfields?categoryType=public', status: 200 },
  { method: 'PUT', path: '/api/v5/userfields/{field}', body: () => ({ orderIndex: 0, required: true }), status: 204 },
  { method: 'PUT', path: '/api/v5/users/{user}/userfieldvalues', body: ({ field }) => ({ [field!]: 'Red' }), status: 204 },
  { method: 'GET', path: '/api/v5/users/{user}/userfieldvalues', status: 200 },
  { method: 'POST', path: '/api/v5/offeringcategories', body: () => ({ name: 'Engineering' }), status: 201, saves: 'offeringCategory' },
  {
    method: 'POST',
    path: '/api/v5/offerings',
    body: ({ offeringCategory }) => ({ title: 'Analytical engines', offeringCategoryIds: [offeringCategory], tags: ['math'] }),
    status: 201,
    saves: 'offering',
  },
  { method: 'GET', path: '/api/v5/offerings?userId={user}', status: 200 },
  {
    method: 'POST',
    path: '/api/v5/registrations',
    body: ({ user, offering }) => ({ userId: user, offeringId: offering }),
    status: 201,
    saves: 'registration',
  },
  { method: 'GET', path: '/api/v5/registrations?status=active&userId={user}', status: 200 },
  { method: 'PUT', path: '/api/v5/registrations/{registration}', body: () => ({ grade: 80 }), status: 204 },
  { method: 'GET', path: '/api/v5/agreements', status: 200 },
  { method: 'PUT', path: '/api/v5/users/{user}/agreements/standard', body: () => ({ agreed: true }), status: 204 },
  { method: 'GET', path: '/api/v5/users/{user}/agreements', status: 200 },
  { method: 'PUT', path: '/api/v5/scimattributes', body: ({ field }) => ({ title: field }), status: 204 },
  { method: 'POST', path: '/scim/v2/Users', body: () => ({ schemas: [SCIM_USER], userName: 'grace@example.com' }), status: 201 },
  { method: 'GET', path: '/scim/v2/Users?filter=userName%20eq%20%22grace%40example.com%22', status: 200 },
  {
    method: 'POST',
    path: '/api/v5/webhooks',
    body: () => ({ url: 'https://hooks.example.com/training', events: ['user.updated'] }),
    status: 201,
    saves: 'webhook',
  },
  { method: 'PUT', path: '/api/v5/users/{user}', body: () => ({ firstName: 'Queued' }), status: 204 },
  { method: 'PUT', path: '/api/v5/webhooks/{webhook}', body: () => ({ disabled: true }), status: 204 },
  { method: 'PUT', path: '/api/v5/webhooks/{webhook}', body: () => ({ disabled: false }), status: 200 },
  {
    method: 'POST',
    path: '/api/v5/webhooks/{webhook}/recover',
    body: () => ({ since: new Date(Date.now() - 3_600_000).toISOString().slice(0, 19) + 'Z' }),
    status: 202,
  },
  { method: 'GET', path: '/api/v5/events?limit=5', status: 200 },
  { method: 'POST', path: '/scim/v2/Groups', body: () => ({ schemas: [SCIM_GROUP], displayName: 'Engines' }), status: 201, saves: 'group' },
  {
    method: 'POST',
    path: '/scim/v2/Groups',
    body: ({ user }) => ({ schemas: [SCIM_GROUP], displayName: 'Looms', members: [{ value: user }] }),
    status: 201,
  },
  { method: 'GET', path: '/scim/v2/Groups?excludedAttributes=members', status: 200 },
  { method: 'GET', path: '/scim/v2/Groups/{group}', status: 200 },
  { method: 'DELETE', path: '/api/v5/userfields/{field}', status: 204 },
  { method: 'DELETE', path: '/api/v5/offerings/{offering}', status: 400 },
  // The stored hash is read to tell the password a user has already from a new one.
  { method: 'PUT', path: '/api/v5/users/{user}', body: () => ({ password: 'analytical1' }), status: 204 },
  { method: 'DELETE', path: '/api/v5/users/{user}', status: 204 },
];

/**
 * A token's last use is written after its first request, then at most once a minute, gathered with
 * others' in the background (tokens.service.ts): which request's turn writes it depends on the
 * clock, so it is left out.
 */
const LAST_USE = /^update "?access_tokens"? (as "?t"? )?set "?last_used_date"?/;

const HEADER = (engine: Engine) =>
  `-- The SQL training-api issues on ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} for each request, in order, without parameters.\n` +
  '-- Written by `npm run snapshots` (test/snapshots/contract-snapshots.ts); test/snapshots/snapshots.test.ts fails when it drifts.\n' +
  (engine === 'sqlite'
    ? '-- A write transaction does not show: it is a savepoint of one that commits a whole event-loop turn (src/db/sqlite-dialect.ts).\n'
    : '');

/** Runs the requests on a new database of `engine` and returns the SQL each one issued, as committed. */
export async function sqlSnapshot(engine: Engine): Promise<string> {
  let statements: string[] | undefined;
  const database = await createTestDatabase(engine, { onStatement: (sql) => statements?.push(sql) });
  let app: ApiInstance | undefined;
  try {
    app = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: database.db });
    await app.ready();
    const organization = await organizationsRepository(database.db).create('Snapshot');
    const v5Token = (await tokensService(database.db).create(organization.id)).token;
    const scimToken = (await tokensService(database.db).create(organization.id, { scopes: ['scim'] })).token;

    const ids: Record<string, string> = {};
    const sections = [HEADER(engine)];
    for (const step of STEPS) {
      statements = [];
      const token = step.path.startsWith('/scim/') ? scimToken : v5Token;
      const response = await app.inject({
        method: step.method,
        url: step.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? `{${name}}`),
        headers: {
          authorization: `Bearer ${token}`,
          ...(step.body ? { 'content-type': 'application/json' } : {}),
        },
        ...(step.body ? { payload: JSON.stringify(step.body(ids)) } : {}),
      });
      if (response.statusCode !== step.status) {
        throw new Error(`${step.method} ${step.path} answered ${response.statusCode} instead of ${step.status}: ${response.body}`);
      }
      if (step.saves) ids[step.saves] = String(response.headers.location).split('/').at(-1)!;
      const issued = statements.filter((sql) => !LAST_USE.test(sql.trim()));
      sections.push(`-- ${step.method} ${step.path} → ${step.status}\n${issued.map((sql) => `${sql.trim()};\n`).join('')}`);
    }
    return sections.join('\n');
  } finally {
    statements = undefined;
    await app?.close();
    await database.drop();
  }
}
