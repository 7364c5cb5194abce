import type { InjectOptions } from 'fastify';
import { eventually } from './eventually.js';
import type { Harness, Organization, Response } from './harness.js';

export const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const SCIM_PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** An id of the right form that names nothing in any organization. */
export const UNKNOWN_ID = 'f'.repeat(32);

export interface SeededOrganization extends Organization {
  /** A word every text of the organization carries, so a leak of its rows shows in any response body. */
  marker: string;
  readToken: string;
  scimToken: string;
  /** One id of each kind, keyed by the path segment its routes name it after (`users`, `Groups`, ...). */
  ids: Record<string, string>;
}

/** A body sent as it is, with its own type: the file of POST /imports. */
export class RawBody {
  constructor(
    readonly contentType: string,
    readonly payload: string,
  ) {}
}

/** Any request with the organization's token: a path under /api/v5 or /scim/v2, bodies as JSON unless raw. */
export async function send(
  h: Harness,
  token: string | null,
  method: InjectOptions['method'],
  url: string,
  body?: unknown,
  query?: Record<string, string>,
): Promise<Response> {
  return await h.app.inject({
    method,
    url,
    ...(query ? { query } : {}),
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': body instanceof RawBody ? body.contentType : 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: body instanceof RawBody ? body.payload : JSON.stringify(body) }),
  });
}

async function created(response: Response, what: string): Promise<string> {
  if (response.statusCode !== 201) throw new Error(`Creating ${what} answered ${response.statusCode}: ${response.body}`);
  return String(response.headers.location).split('/').pop()!;
}

async function accepted(response: Response, what: string): Promise<string> {
  if (response.statusCode !== 202) throw new Error(`Starting ${what} answered ${response.statusCode}: ${response.body}`);
  return String(response.headers.location).split('/').pop()!;
}

async function written(response: Response, what: string): Promise<void> {
  if (response.statusCode >= 300) throw new Error(`Writing ${what} answered ${response.statusCode}: ${response.body}`);
}

/**
 * An organization holding one thing of every kind the API keeps, each named with `marker`:
 * userfield category, userfield, user with a value and agreements, offering category, offering,
 * registration, custom agreement, SCIM attribute mapping, SCIM user and group.
 */
export async function seedOrganization(h: Harness, marker: string): Promise<SeededOrganization> {
  const org = await h.createOrganization(`${marker} organization`);
  const scimToken = await h.token(org.id, { scopes: ['scim'] });
  const readToken = await h.token(org.id, { scopes: ['read'] });
  const v5 = (method: InjectOptions['method'], path: string, body?: unknown) => send(h, org.token, method, `/api/v5/${path}`, body);
  const scim = (method: InjectOptions['method'], path: string, body?: unknown) => send(h, scimToken, method, `/scim/v2/${path}`, body);

  const ids: Record<string, string> = {};
  ids.userfieldcategories = await created(await v5('POST', 'userfieldcategories', { name: `${marker} category`, type: 'public' }), 'category');
  ids.userfields = await created(
    await v5('POST', 'userfields', { type: 'text', name: `${marker} field`, categoryId: ids.userfieldcategories }),
    'userfield',
  );
  ids.offeringcategories = await created(await v5('POST', 'offeringcategories', { name: `${marker} offering category` }), 'offering category');
  ids.offerings = await created(
    await v5('POST', 'offerings', { title: `${marker} course`, offeringCategoryIds: [ids.offeringcategories], tags: [marker] }),
    'offering',
  );
  ids.users = await created(
    await v5('POST', 'users', { email: `${marker}@example.com`, username: marker, firstName: marker, lastName: marker, tags: [marker] }),
    'user',
  );
  await written(await v5('PUT', `users/${ids.users}/userfieldvalues`, { [ids.userfields]: `${marker} value` }), 'userfield values');
  ids.registrations = await created(await v5('POST', 'registrations', { userId: ids.users, offeringId: ids.offerings }), 'registration');
  await written(await v5('PUT', 'agreements/custom', { title: `${marker} agreement`, text: `${marker} terms` }), 'custom agreement');
  await written(await v5('PUT', `users/${ids.users}/agreements/custom`, { agreed: true }), 'user agreement');
  await written(await v5('PUT', 'scimattributes', { title: ids.userfields }), 'attribute mapping');
  ids.webhooks = await created(
    await v5('POST', 'webhooks', { url: `https://hooks.example.com/${marker}`, events: ['user.created'], description: marker }),
    'webhook',
  );
  await written(await v5('POST', `webhooks/${ids.webhooks}/test`), 'webhook ping');
  const deliveries = JSON.parse((await v5('GET', `webhooks/${ids.webhooks}/deliveries`)).body) as { results: { id: string }[] };
  ids.deliveryId = deliveries.results[0]?.id ?? '';

  // A dry run, finished before the matrices look: its job is all an import leaves.
  const importFile = new RawBody('text/csv', `email,firstName\n${marker}@example.com,${marker}\n`);
  ids.imports = await accepted(await send(h, org.token, 'POST', '/api/v5/imports', importFile, { dryRun: 'true' }), 'import');
  await eventually(async () => (JSON.parse((await v5('GET', `imports/${ids.imports}`)).body) as { state: string }).state !== 'running', {
    what: 'the import job to finish',
  });

  const scimUser = await scim('POST', 'Users', { schemas: [SCIM_USER], userName: `${marker}.scim@example.com`, externalId: marker });
  ids.Users = await created(scimUser, 'SCIM user');
  const group = await scim('POST', 'Groups', { schemas: [SCIM_GROUP], displayName: `${marker} group`, members: [{ value: ids.Users }] });
  ids.Groups = await created(group, 'SCIM group');
  return { ...org, marker, readToken, scimToken, ids };
}

let counter = 0;
const fresh = (what: string) => `${what} ${++counter}`;

/**
 * A body each write route accepts, naming the caller's own things (`own`), keyed as the route table
 * keys routes. A new write route needs one line here; the matrices say so when it is missing.
 */
export const VALID_BODIES: Record<string, (own: Record<string, string>) => unknown> = {
  'POST /users': () => ({ email: `${fresh('user').replace(' ', '')}@example.com` }),
  'PUT /users/:id': () => ({ firstName: fresh('First') }),
  'POST /userfieldcategories': () => ({ name: fresh('Category'), type: 'public' }),
  'PUT /userfieldcategories/:id': () => ({ name: fresh('Category') }),
  'POST /userfields': (own) => ({ type: 'text', name: fresh('Field'), categoryId: own.userfieldcategories }),
  'PUT /userfields/:id': () => ({ name: fresh('Field') }),
  'PUT /users/:id/userfieldvalues': (own) => ({ [own.userfields!]: fresh('value') }),
  'POST /offeringcategories': () => ({ name: fresh('Offering category') }),
  'PUT /offeringcategories/:id': () => ({ name: fresh('Offering category') }),
  'POST /offerings': (own) => ({ title: fresh('Course'), offeringCategoryIds: [own.offeringcategories] }),
  'PUT /offerings/:id': () => ({ title: fresh('Course') }),
  'POST /registrations': (own) => ({ userId: own.users, offeringId: own.offerings }),
  'PUT /registrations/:id': () => ({ grade: 80 }),
  'PUT /agreements/:type': () => ({ title: fresh('Agreement'), text: 'Terms' }),
  'PUT /users/:id/agreements/:type': () => ({ agreed: true }),
  'PUT /scimattributes': (own) => ({ title: own.userfields }),
  'POST /webhooks': () => ({ url: `https://hooks.example.com/${fresh('hook').replace(' ', '-')}`, events: ['user.updated'] }),
  'PUT /webhooks/:id': () => ({ description: fresh('Webhook') }),
  'POST /webhooks/:id/test': () => ({}),
  'POST /webhooks/:id/deliveries/:deliveryId/resend': () => ({}),
  'POST /imports': () => new RawBody('text/csv', `email\n${fresh('imported').replace(' ', '')}@example.com\n`),
  'POST /webhooks/:id/recover': () => ({ since: new Date(Date.now() - 3_600_000).toISOString().slice(0, 19) + 'Z' }),
  'POST /scim/v2/Users': () => ({ schemas: [SCIM_USER], userName: `${fresh('scim').replace(' ', '')}@example.com` }),
  'PUT /scim/v2/Users/:id': () => ({ schemas: [SCIM_USER], userName: `${fresh('scim').replace(' ', '')}@example.com` }),
  'PATCH /scim/v2/Users/:id': () => ({ schemas: [SCIM_PATCH], Operations: [{ op: 'replace', path: 'active', value: true }] }),
  'POST /scim/v2/Groups': (own) => ({ schemas: [SCIM_GROUP], displayName: fresh('Group'), members: [{ value: own.Users }] }),
  'PUT /scim/v2/Groups/:id': (own) => ({ schemas: [SCIM_GROUP], displayName: fresh('Group'), members: [{ value: own.Users }] }),
  'PATCH /scim/v2/Groups/:id': () => ({ schemas: [SCIM_PATCH], Operations: [{ op: 'replace', path: 'displayName', value: fresh('Group') }] }),
  'POST /scim/v2/Users/.search': () => ({ filter: 'active eq true', count: 5 }),
  'POST /scim/v2/Groups/.search': () => ({ count: 5 }),
  'POST /scim/v2/Bulk': () => ({ schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'], Operations: [] }),
  'POST /scim/v2/.search': () => ({ schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'], count: 5 }),
};
