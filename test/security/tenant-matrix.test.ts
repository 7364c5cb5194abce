import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { TSchema } from '@sinclair/typebox';
import { loadConfig } from '../../src/config.js';
import { NOT_FOUND_MESSAGE } from '../../src/lib/domain-errors.js';
import { changedTables, fingerprinter } from '../helpers/fingerprint.js';
import { forEachEngine, type Response } from '../helpers/harness.js';
import { fillPath, isWrite, PUBLIC_ROUTES, routeTable, type ApiRoute, type RouteTable } from '../helpers/route-table.js';
import { SCIM_GROUP, SCIM_PATCH, seedOrganization, send, UNKNOWN_ID, VALID_BODIES, type SeededOrganization } from '../helpers/tenants.js';
import { browserOf, createPerson, type Form, type PageBrowser } from '../helpers/pages.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { clientsService } from '../../src/oauth/clients.service.js';

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

/** The kind of thing each id of a console route's path names, as the seeded ids are keyed (credentials are found apart). */
const CONSOLE_PARAM_KINDS: Record<string, string> = {
  fieldId: 'userfields',
  categoryId: 'userfieldcategories',
  offeringId: 'offerings',
  registrationId: 'registrations',
  offeringCategoryId: 'offeringcategories',
  tokenId: 'tokens',
  clientId: 'clients',
  webhookId: 'webhooks',
  deliveryId: 'deliveryId',
  userId: 'users',
};

/**
 * Ids inside the console's forms, each case naming another organization's thing in a form that is
 * otherwise valid; `path` fills the route's ids with the caller's own. Every form of the console that
 * takes an id (or an email naming a person) needs a case here.
 */
const CONSOLE_FORM_ID_CASES: { route: string; kind: string; form: (id: string, other: SeededOrganization) => Form }[] = [
  {
    route: 'POST /o/:orgId/console/userfields',
    kind: 'userfieldcategories',
    form: (id) => ({ type: 'text', name: 'Foreign', categoryId: id, size: 'medium' }),
  },
  {
    route: 'POST /o/:orgId/console/userfields/:fieldId',
    kind: 'userfieldcategories',
    form: (id) => ({ name: 'Foreign', categoryId: id, size: 'medium' }),
  },
  { route: 'POST /o/:orgId/console/offerings', kind: 'offeringcategories', form: (id) => ({ title: 'Foreign', category: id }) },
  { route: 'POST /o/:orgId/console/offerings/:offeringId', kind: 'offeringcategories', form: (id) => ({ title: 'Foreign', category: id }) },
  {
    route: 'POST /o/:orgId/console/offerings/:offeringId/registrations',
    kind: 'users',
    form: (id, other) => ({ email: id === UNKNOWN_ID ? 'nobody.at.all@example.com' : `${other.marker}@example.com` }),
  },
  { route: 'POST /o/:orgId/console/scim/mappings', kind: 'userfields', form: (id) => ({ attribute: 'title', userfieldId: id }) },
  { route: 'POST /o/:orgId/console/people/:userId/userfields', kind: 'userfields', form: (id) => ({ shown: id, [`field.${id}`]: 'Foreign' }) },
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

  it("gives an administrator of one organization, in the console, another organization's ids as unknown ones: a 404 page, nothing shown, nothing changed", async (t) => {
    const consoleRoutes = table.other.filter((route) => /^(GET|POST) \/o\/:orgId\/console(\/|$)/.test(route));
    // The SCIM page shows the caller's own last SCIM requests: those above named the other organization's ids in their paths.
    await h.database.db.deleteFrom('scim_requests').where('org_id', '=', caller.id).execute();
    const withIds = consoleRoutes.filter((route) => route.split('/').some((segment) => CONSOLE_PARAM_KINDS[segment.slice(1)]));
    assert.ok(withIds.length >= 15, withIds.join(', '));
    const email = `${caller.marker}.admin@example.com`;
    const admin = await createPerson(h, { email, password: 'tenant horse 1', accountType: 'organizationAdministrator' }, caller.token);
    await send(h, caller.token, 'PUT', `/api/v5/users/${admin}/agreements/custom`, { agreed: true });
    const browser: PageBrowser = browserOf(h);
    assert.equal((await browser.signIn(caller.id, email, 'tenant horse 1')).status, 303);
    // Credentials are no API resource: each organization's are found by their own services.
    const credentials = async (org: SeededOrganization) => ({
      tokens: (await tokensService(h.database.db).list(org.id))[0]!.id,
      clients: (await clientsService(h.database.db).create(org.id, { name: `${org.marker} client` })).info.id,
    });
    const idsOf = async (org: SeededOrganization): Promise<Record<string, string>> => ({ ...org.ids, ...(await credentials(org)) });
    const [own, foreign] = [await idsOf(caller), await idsOf(other)];
    const secrets = [other.marker, other.id, ...Object.values(foreign)];
    // A console page touches the session it is asked with (its last use), which is the caller's own.
    const watch = async (request: () => Promise<{ status: number; body: string }>) => {
      const before = await fingerprint();
      const answer = await request();
      return { answer, changed: changedTables(before, await fingerprint()).filter((table) => table !== 'sessions') };
    };
    const form = {
      name: 'Changed',
      title: 'Changed',
      direction: 'up',
      grade: '50',
      email: `${other.marker}@example.com`,
      categoryId: foreign.userfieldcategories!,
    };
    const problems: string[] = [];
    for (const route of withIds) {
      const [method, url] = route.split(' ') as [string, string];
      const params = url.split('/').flatMap((segment) => (CONSOLE_PARAM_KINDS[segment.slice(1)] ? [segment.slice(1)] : []));
      // Every id another organization's, and (where several) only the last one: a registration of another offering too.
      const fills = [
        params.map(() => 'foreign'),
        ...(params.length > 1 ? [params.map((_, index) => (index === params.length - 1 ? 'foreign' : 'own'))] : []),
      ];
      for (const fill of fills) {
        const path = (last?: string) =>
          url.replace(/:(\w+)/g, (_, param: string) => {
            if (param === 'orgId') return caller.id;
            const index = params.indexOf(param);
            const ids = fill[index] === 'own' ? own : foreign;
            return index === params.length - 1 && last ? last : ids[CONSOLE_PARAM_KINDS[param]!]!;
          });
        const sent = (target: string) => (method === 'GET' ? browser.get(target) : browser.post(target, form));
        const { answer, changed } = await watch(() => sent(path()));
        const unknown = await sent(path(UNKNOWN_ID));
        const where = `${route} (${fill.join(', ')})`;
        if (answer.status !== 404) problems.push(`${where}: ${answer.status}`);
        if (answer.status !== unknown.status || answer.body !== unknown.body) problems.push(`${where}: answered otherwise than for an unknown id`);
        const leaked = secrets.filter((secret) => answer.body.includes(secret));
        if (leaked.length > 0) problems.push(`${where} shows ${leaked.join(', ')}`);
        if (changed.length > 0) problems.push(`${where} changed ${changed.join(', ')}`);
      }
    }
    t.diagnostic(`${withIds.length} console routes with an id`);

    const listed = CONSOLE_FORM_ID_CASES.map((entry) => entry.route).filter((route) => !consoleRoutes.includes(route));
    assert.deepEqual(listed, [], 'cases naming no route of the console');
    for (const entry of CONSOLE_FORM_ID_CASES) {
      const path = entry.route.slice(5).replace(/:(\w+)/g, (_, param: string) => (param === 'orgId' ? caller.id : own[CONSOLE_PARAM_KINDS[param]!]!));
      const foreignId = foreign[entry.kind]!;
      const { answer, changed } = await watch(() => browser.post(path, entry.form(foreignId, other)));
      const unknown = await browser.post(path, entry.form(UNKNOWN_ID, other));
      const where = `${entry.route} with another organization's ${entry.kind}`;
      if (answer.status < 400 || answer.status >= 500 || answer.status !== unknown.status)
        problems.push(`${where}: ${answer.status}, for an unknown one ${unknown.status}`);
      const leaked = secrets.filter((secret) => answer.body.replaceAll(`${other.marker}@example.com`, '').includes(secret));
      if (leaked.length > 0) problems.push(`${where} shows ${leaked.join(', ')}`);
      if (changed.length > 0) problems.push(`${where} changed ${changed.join(', ')}`);
    }

    // The pages without an id list the organization's own things only.
    for (const route of consoleRoutes.filter((route) => route.startsWith('GET ') && !route.includes(':', route.indexOf(':orgId') + 1))) {
      const answer = await browser.get(route.slice(4).replace(':orgId', caller.id));
      if (answer.status !== 200) problems.push(`${route}: ${answer.status}`);
      const leaked = secrets.filter((secret) => answer.body.includes(secret));
      if (leaked.length > 0) problems.push(`${route} shows ${leaked.join(', ')}`);
    }
    assert.deepEqual(problems, []);
  });

  it("gives a person of one organization nothing at another's pages: every page and form answers as to a browser signed in nowhere, and changes nothing", async (t) => {
    const routes = table.other.filter((route) => /^(GET|POST) \/o\/:orgId(\/|$)/.test(route) && !/\/console(\/|$)/.test(route));
    t.diagnostic(`${routes.length} routes of the people's pages`);
    const email = `${caller.marker}.person@example.com`;
    await createPerson(h, { email, password: 'tenant horse 2' }, caller.token);
    const person: PageBrowser = browserOf(h);
    assert.equal((await person.signIn(caller.id, email, 'tenant horse 2')).status, 303);
    // The same browser without the person's session: the answer every route must give the person at the other organization.
    const nobody = person.clone();
    nobody.cookies.delete(`__Host-session-${caller.id}`);
    // The caller's own sign-in, typed at the other organization's address: refused as unknown.
    assert.equal((await person.clone().signIn(other.id, email, 'tenant horse 2')).status, 401);
    const form = {
      email,
      password: 'tenant horse 2',
      firstName: 'Changed',
      locale: 'fr',
      current: 'tenant horse 2',
      confirm: 'x',
      agree: 'standard',
    };
    const problems: string[] = [];
    for (const route of routes) {
      const [method, url] = route.split(' ') as [string, string];
      const path = url.replace(/:(\w+)/g, (_, name: string) => (name === 'orgId' ? other.id : name === 'secret' ? 'tpr_unknown' : UNKNOWN_ID));
      const ask = (browser: PageBrowser) => (method === 'GET' ? browser.get(path) : browser.post(path, form));
      const before = await fingerprint();
      const answer = await ask(person);
      // The server's keys are made at their first use, whoever asks.
      const changed = changedTables(before, await fingerprint()).filter((table) => table !== 'sessions' && table !== 'server_keys');
      const unsigned = await ask(nobody);
      if (answer.status !== unsigned.status || answer.body !== unsigned.body || answer.location !== unsigned.location)
        problems.push(`${route}: ${answer.status} ${String(answer.location)}, signed in nowhere ${unsigned.status} ${String(unsigned.location)}`);
      // The sign-in form keeps the email typed; nothing else of the person may show.
      if (answer.body.replaceAll(email, '').includes(caller.marker)) problems.push(`${route} names the person`);
      if (changed.length > 0) problems.push(`${route} changed ${changed.join(', ')}`);
    }
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

const OPERATOR_TOKEN = 'operator-token-of-the-tenant-matrix-0123';

forEachEngine(
  "Tenant matrix of the server operator's pages",
  (h) => {
    it("gives an organization's administrator nothing at the operator's pages: every page and form answers as to a browser signed in nowhere, and changes nothing", async (t) => {
      const routes = routeTable(h.app).other.filter((route) => /^(GET|POST) \/o\/operator(\/|$)/.test(route));
      t.diagnostic(`${routes.length} routes of the operator's pages`);
      assert.ok(routes.length >= 6, routes.join(', '));
      const [caller, other] = [await seedOrganization(h, 'alphaorg'), await seedOrganization(h, 'bravoorg')];
      const fingerprint = await fingerprinter(h.database.db, h.engine);
      const email = `${caller.marker}.operator@example.com`;
      const adminId = await createPerson(h, { email, password: 'tenant horse 3', accountType: 'organizationAdministrator' }, caller.token);
      await send(h, caller.token, 'PUT', `/api/v5/users/${adminId}/agreements/custom`, { agreed: true });
      const admin: PageBrowser = browserOf(h);
      assert.equal((await admin.signIn(caller.id, email, 'tenant horse 3')).status, 303);
      assert.equal((await admin.get(`/o/${caller.id}/console`)).status, 200);
      const nobody = admin.clone();
      nobody.cookies.delete(`__Host-session-${caller.id}`);
      // What a person could try in the operator's forms: their own password for the token, an organization, a sandbox.
      const form = { token: 'tenant horse 3', name: `${caller.marker} made`, email: `${caller.marker}.made@example.com`, sandbox: 'true' };
      const problems: string[] = [];
      for (const route of routes) {
        const [method, url] = route.split(' ') as [string, string];
        // A sandbox's reset, of the caller's own organization and of another.
        for (const orgId of url.includes(':orgId') ? [caller.id, other.id] : ['']) {
          const path = url.replace(':orgId', orgId);
          const ask = (browser: PageBrowser) => (method === 'GET' ? browser.get(path) : browser.post(path, form));
          const before = await fingerprint();
          const answer = await ask(admin);
          // The server's keys are made at their first use, whoever asks.
          const changed = changedTables(before, await fingerprint()).filter((table) => table !== 'sessions' && table !== 'server_keys');
          const unsigned = await ask(nobody);
          if (answer.status !== unsigned.status || answer.location !== unsigned.location)
            problems.push(
              `${method} ${path}: ${answer.status} ${String(answer.location)}, signed in nowhere ${unsigned.status} ${String(unsigned.location)}`,
            );
          if (method === 'POST' && answer.status < 300) problems.push(`${method} ${path}: accepted`);
          if (answer.body.includes(other.marker)) problems.push(`${method} ${path} shows another organization`);
          if (changed.length > 0) problems.push(`${method} ${path} changed ${changed.join(', ')}`);
        }
      }
      assert.deepEqual(problems, []);
    });
  },
  { people: loadConfig({ OPERATOR_TOKEN }).people },
);
