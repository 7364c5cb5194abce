import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { TSchema } from '@sinclair/typebox';
import { NOT_FOUND_MESSAGE } from '../../src/lib/domain-errors.js';
import { changedTables, fingerprinter } from '../helpers/fingerprint.js';
import { forEachEngine, type Response } from '../helpers/harness.js';
import { fillPath, isWrite, PUBLIC_ROUTES, routeTable, type ApiRoute, type RouteTable } from '../helpers/route-table.js';
import { SCIM_GROUP, SCIM_PATCH, seedOrganization, send, UNKNOWN_ID, VALID_BODIES, type SeededOrganization } from '../helpers/tenants.js';

/** Path parameters that are not ids: the value every organization has. */
const PARAM_VALUES: Record<string, string> = { type: 'custom' };
/** Ids the server defines, the same in every organization (SCIM discovery). */
const SHARED_IDS: Record<string, string> = { Schemas: 'urn:ietf:params:scim:schemas:core:2.0:User', ResourceTypes: 'User' };

/**
 * Ids inside request bodies, each case naming another organization's thing in an otherwise valid
 * body. Every write route whose body schema has an `...Id`/`...Ids` property needs a case here.
 */
const BODY_ID_CASES: { key: string; kind: string; body: (own: Record<string, string>, id: string) => unknown }[] = [
  { key: 'POST /registrations', kind: 'users', body: (own, id) => ({ userId: id, offeringId: own.offerings }) },
  { key: 'POST /registrations', kind: 'offerings', body: (own, id) => ({ userId: own.users, offeringId: id }) },
  { key: 'POST /userfields', kind: 'userfieldcategories', body: (_, id) => ({ type: 'text', name: 'Foreign category', categoryId: id }) },
  { key: 'PUT /userfields/:id', kind: 'userfieldcategories', body: (_, id) => ({ categoryId: id }) },
  { key: 'POST /offerings', kind: 'offeringcategories', body: (_, id) => ({ title: 'Foreign category', offeringCategoryIds: [id] }) },
  { key: 'PUT /offerings/:id', kind: 'offeringcategories', body: (_, id) => ({ offeringCategoryIds: [id] }) },
  { key: 'PUT /users/:id/userfieldvalues', kind: 'userfields', body: (_, id) => ({ [id]: 'Foreign field' }) },
  { key: 'PUT /scimattributes', kind: 'userfields', body: (_, id) => ({ title: id }) },
  {
    key: 'POST /scim/v2/Groups',
    kind: 'Users',
    body: (_, id) => ({ schemas: [SCIM_GROUP], displayName: 'Foreign members', members: [{ value: id }] }),
  },
  { key: 'PUT /scim/v2/Groups/:id', kind: 'Users', body: (_, id) => ({ schemas: [SCIM_GROUP], displayName: 'Foreign', members: [{ value: id }] }) },
  {
    key: 'PATCH /scim/v2/Groups/:id',
    kind: 'Users',
    body: (_, id) => ({ schemas: [SCIM_PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: id }] }] }),
  },
];

/** The names of a body schema's properties that hold ids (read-only ones are ignored on input). */
function idProperties(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
  return Object.entries(properties).flatMap(([name, property]) => (/Ids?$/.test(name) && !property.readOnly ? [name] : []));
}

function tokenFor(route: ApiRoute, org: SeededOrganization): string {
  return route.api === 'scim' ? org.scimToken : org.token;
}

function bodyFor(route: ApiRoute, own: Record<string, string>): unknown {
  if (route.method === 'GET' || route.method === 'DELETE') return undefined;
  const body = VALID_BODIES[route.key];
  if (!body) throw new Error(`No valid body for ${route.key}: add one to VALID_BODIES in test/helpers/tenants.ts`);
  return body(own);
}

/** The route's URL with the ids of `owner`; `id` replaces the owner's ids when given. */
function pathFor(route: ApiRoute, owner: SeededOrganization, id?: string): string {
  return fillPath(route, (param, kind) => {
    if (param !== 'id') {
      const value = owner.ids[param] ?? PARAM_VALUES[param];
      if (value === undefined) throw new Error(`No value for the path parameter ${param} of ${route.key}: add one to PARAM_VALUES`);
      return value;
    }
    if (SHARED_IDS[kind]) return SHARED_IDS[kind];
    const own = owner.ids[kind];
    if (!own) throw new Error(`No seeded ${kind} id for ${route.key}: seed one in test/helpers/tenants.ts`);
    return id ?? own;
  });
}

/** Names a tenant id of a route: its path has an `:id` of a kind organizations own. */
const hasTenantId = (route: ApiRoute) =>
  route.url.split('/').some((segment, index, segments) => segment === ':id' && !SHARED_IDS[segments[index - 1]!]);

function isErrorShape(route: ApiRoute, response: Response): boolean {
  const body = response.json();
  if (route.api === 'scim') return Array.isArray(body.schemas) && body.status === String(response.statusCode) && typeof body.detail === 'string';
  const strings = (values: unknown[]) => values.length > 0 && values.every((value) => typeof value === 'string');
  if (response.statusCode === 400 && body.fieldErrors) return strings(Object.values(body.fieldErrors));
  return Array.isArray(body.errors) && strings(body.errors);
}

forEachEngine('Tenant matrices from the route table', (h) => {
  let table: RouteTable;
  let caller: SeededOrganization;
  let other: SeededOrganization;
  let control: SeededOrganization;
  let fingerprint: () => Promise<string>;

  before(async () => {
    table = routeTable(h.app);
    caller = await seedOrganization(h, 'alphaorg');
    other = await seedOrganization(h, 'bravoorg');
    control = await seedOrganization(h, 'charlieorg');
    fingerprint = await fingerprinter(h.database.db, h.engine);
  });

  /** Sends and tells what changed in the database meanwhile. */
  async function sendWatching(token: string, route: ApiRoute, path: string, body?: unknown, query?: Record<string, string>) {
    const before = await fingerprint();
    const response = await send(h, token, route.method, path, body, query);
    return { response, changed: changedTables(before, await fingerprint()) };
  }

  it('covers the API: every route outside /api/v5 and /scim/v2 is a listed exception, and every exception exists', () => {
    assert.ok(table.api.filter((route) => route.api === 'v5').length >= 40, `v5 routes: ${table.api.length}`);
    assert.ok(table.api.some((route) => route.api === 'scim'));
    const unlisted = table.other.filter((route) => !PUBLIC_ROUTES.some((entry) => `${entry.method} ` === route.slice(0, entry.method.length + 1)));
    assert.deepEqual(unlisted, []);
    const stale = PUBLIC_ROUTES.filter(
      (entry) => !table.other.some((route) => route.startsWith(`${entry.method} `) && entry.url.test(route.split(' ')[1]!)),
    );
    assert.deepEqual(stale, []);
  });

  it('refuses every API route without a token: 401 in the API’s error shape', async () => {
    const problems: string[] = [];
    for (const route of table.api) {
      const response = await send(h, null, route.method, pathFor(route, caller), bodyFor(route, caller.ids));
      if (response.statusCode !== 401 || !isErrorShape(route, response))
        problems.push(`${route.method} ${route.url}: ${response.statusCode} ${response.body}`);
    }
    assert.deepEqual(problems, []);
  });

  it("answers another organization's id in a path exactly as an unknown id (v5: its 404 body) and changes nothing", async (t) => {
    const problems: string[] = [];
    const routes = table.api.filter(hasTenantId);
    t.diagnostic(`${routes.length} routes with an id`);
    assert.ok(routes.length >= 30, `routes with an id: ${routes.length}`);
    for (const route of routes) {
      const body = bodyFor(route, caller.ids);
      const foreignPath = pathFor(route, other);
      const { response, changed } = await sendWatching(tokenFor(route, caller), route, foreignPath, body);
      const unknown = await send(h, tokenFor(route, caller), route.method, pathFor(route, other, UNKNOWN_ID), body);
      const where = `${route.method} ${route.url}`;
      if (response.statusCode !== 404) problems.push(`${where}: ${response.statusCode} ${response.body}`);
      if (route.api === 'v5' && response.body !== JSON.stringify({ errors: [NOT_FOUND_MESSAGE] })) problems.push(`${where}: body ${response.body}`);
      const foreignId = foreignPath.split('/').find((segment) => Object.values(other.ids).includes(segment))!;
      if (response.body.replaceAll(foreignId, UNKNOWN_ID) !== unknown.body || response.statusCode !== unknown.statusCode) {
        problems.push(`${where}: ${response.statusCode} ${response.body} but for an unknown id ${unknown.statusCode} ${unknown.body}`);
      }
      if (changed.length > 0) problems.push(`${where} changed ${changed.join(', ')}`);
    }
    assert.deepEqual(problems, []);
  });

  it("never shows another organization's rows: every GET route, with and without filters naming them", async (t) => {
    let requests = 0;
    const secrets = [other.marker, other.id, ...Object.values(other.ids)];
    const problems: string[] = [];
    const check = async (route: ApiRoute, query?: Record<string, string>) => {
      const response = await send(h, tokenFor(route, caller), 'GET', pathFor(route, caller), undefined, query);
      requests += 1;
      const where = `GET ${route.url} ${JSON.stringify(query ?? {})}`;
      if (response.statusCode >= 500 || (query === undefined && response.statusCode !== 200))
        problems.push(`${where}: ${response.statusCode} ${response.body}`);
      const leaked = secrets.filter((secret) => response.body.includes(secret));
      if (leaked.length > 0) problems.push(`${where} shows ${leaked.join(', ')}`);
    };
    const reads = table.api.filter((route) => route.method === 'GET');
    for (const route of reads) {
      await check(route);
      if (route.api === 'scim') continue;
      // Every text filter of a list, given the other organization's ids and names.
      const filters = (route.schema.querystring as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
      for (const [name, filter] of Object.entries(filters)) {
        if (filter.type !== 'string' || filter.enum) continue;
        const kind = Object.keys(other.ids).find((kind) => name.toLowerCase().startsWith(kind.replace(/s$/, '').toLowerCase()));
        const value = name.endsWith('Id') ? other.ids[kind ?? 'users']! : name === 'email' ? `${other.marker}@example.com` : other.marker;
        await check(route, { [name]: value });
      }
    }
    for (const filter of [
      `userName eq "${other.marker}.scim@example.com"`,
      `externalId eq "${other.marker}"`,
      `displayName co "${other.marker}"`,
      `id eq "${other.ids.Users}"`,
    ]) {
      for (const route of reads.filter((route) => route.api === 'scim' && route.params.length === 0)) await check(route, { filter });
    }
    t.diagnostic(`${requests} reads of ${reads.length} GET routes`);
    assert.deepEqual(problems, []);
  });

  it("refuses another organization's ids inside bodies exactly as unknown ids, and changes nothing", async (t) => {
    const writes = table.api.filter(isWrite);
    const uncovered = writes
      .filter((route) => idProperties(route.schema.body).length > 0 && !BODY_ID_CASES.some((entry) => entry.key === route.key))
      .map((route) => `${route.key} (${idProperties(route.schema.body).join(', ')})`);
    assert.deepEqual(uncovered, [], 'write routes with ids in their bodies need a case in BODY_ID_CASES');

    const problems: string[] = [];
    t.diagnostic(`${BODY_ID_CASES.length} cases`);
    for (const entry of BODY_ID_CASES) {
      const routes = writes.filter((route) => route.key === entry.key);
      assert.ok(routes.length > 0, `no route ${entry.key}`);
      for (const route of routes) {
        const token = tokenFor(route, caller);
        const where = `${route.method} ${route.url} with another organization's ${entry.kind}`;
        const foreignId = other.ids[entry.kind]!;
        const { response, changed } = await sendWatching(token, route, pathFor(route, caller), entry.body(caller.ids, foreignId));
        const unknown = await send(h, token, route.method, pathFor(route, caller), entry.body(caller.ids, UNKNOWN_ID));
        // Control: the same body with an id of the caller's own is not refused the way an unknown id is.
        const own = await send(h, tokenFor(route, control), route.method, pathFor(route, control), entry.body(control.ids, control.ids[entry.kind]!));
        if (response.statusCode < 400 || response.statusCode >= 500 || !isErrorShape(route, response)) {
          problems.push(`${where}: ${response.statusCode} ${response.body}`);
        }
        if (response.statusCode !== unknown.statusCode || response.body.replaceAll(foreignId, UNKNOWN_ID) !== unknown.body) {
          problems.push(`${where}: ${response.statusCode} ${response.body} but for an unknown id ${unknown.statusCode} ${unknown.body}`);
        }
        if (own.statusCode === unknown.statusCode && own.body.replaceAll(control.ids[entry.kind]!, UNKNOWN_ID) === unknown.body) {
          problems.push(`${where}: the control with an own id was refused as unknown: ${own.body}`);
        }
        if (changed.length > 0) problems.push(`${where} changed ${changed.join(', ')}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('refuses every write with a read token, every SCIM route without the scim scope and every v5 route with only it: 403, nothing changed', async (t) => {
    const problems: string[] = [];
    let requests = 0;
    const refuse = async (route: ApiRoute, token: string, why: string) => {
      const { response, changed } = await sendWatching(token, route, pathFor(route, caller), bodyFor(route, caller.ids));
      requests += 1;
      const where = `${route.method} ${route.url} ${why}`;
      if (response.statusCode !== 403 || !isErrorShape(route, response)) problems.push(`${where}: ${response.statusCode} ${response.body}`);
      if (changed.length > 0) problems.push(`${where} changed ${changed.join(', ')}`);
    };
    for (const route of table.api) {
      if (route.api === 'v5') {
        if (isWrite(route)) await refuse(route, caller.readToken, 'with a read token');
        await refuse(route, caller.scimToken, 'with a scim token');
      } else {
        await refuse(route, caller.token, 'with a read and write token');
        await refuse(route, caller.readToken, 'with a read token');
      }
    }
    t.diagnostic(`${requests} refusals`);
    assert.deepEqual(problems, []);
  });

  // Last: it deletes the control organization's things.
  it('finds its own things on every route with an id (so the 404s above are about the organization, not the id)', async () => {
    const problems: string[] = [];
    const byKey = new Map(table.api.filter((route) => route.params.length > 0).map((route) => [route.key, route]));
    const routes = [...byKey.values()].sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
    for (const route of routes) {
      const response = await send(h, tokenFor(route, control), route.method, pathFor(route, control), bodyFor(route, control.ids));
      if (response.statusCode === 404 || response.statusCode >= 500) problems.push(`${route.key}: ${response.statusCode} ${response.body}`);
    }
    assert.deepEqual(problems, []);
  });
});
