import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { LONG_AGO } from '../helpers/collections.js';
import { eventProblems, eventsAfter, isUpdateType, latestEventId, PRESENT, type ExpectedEvent } from '../helpers/events.js';
import { forEachEngine, type Response } from '../helpers/harness.js';
import { fillPath, isWrite, routeTable, type ApiRoute } from '../helpers/route-table.js';
import { SCIM_GROUP, SCIM_PATCH, SCIM_USER, UNKNOWN_ID } from '../helpers/tenants.js';
import { browserOf, createPerson, type PageBrowser, type PageReply } from '../helpers/pages.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { clientsService } from '../../src/oauth/clients.service.js';

/**
 * The change stream's contract (docs/sync.md), route by route, from the
 * route table: every write route under /api/v5 and /scim/v2 has a scenario in CHANGES naming the
 * events a real change emits, or is in WITHOUT_EVENTS with the reason it emits none. A new route
 * fails the matrix until it is one or the other. Each scenario runs in an organization of its own,
 * so the organization's feed holds only what the scenario did. For every scenario:
 *
 * - the change emits exactly the events named, each once, naming what changed, with previousAttributes;
 * - a mirror that applies the events keeps each resource's updatedDate right: the last event of a
 *   resource carries its updatedDate after the change, every previousAttributes.updatedDate the one
 *   before the request (whatever else the request changed first);
 * - what the change changes with no event of its own is what docs/sync.md lists as derived;
 * - the identical request again emits nothing and leaves its reads (updatedDate included) as they were;
 * - refused requests (an unknown id, a bad body, a conflict) emit nothing;
 * - a POST of /api/v5 sent again with its Idempotency-Key replays the first answer and emits nothing.
 *
 * That events commit with their change or not at all is the unit of work's (test/events/events.test.ts).
 */

/** An organization of the matrix, with a token of each surface. */
interface MatrixOrg {
  id: string;
  token: string;
  scimToken: string;
}

/** What a scenario's setup made, by name; `created` is added: the id its POST made (Location, or the SCIM id). */
type Made = Record<string, string>;

/** A request of a route: its path parameters and body. */
interface RouteRequest {
  params?: Record<string, string | undefined>;
  body?: unknown;
  /** The body's type when it is not JSON (a file sent to POST /imports). */
  contentType?: string;
  query?: Record<string, string>;
}

/** A request the route refuses; its path parameters default to the change's. */
interface Refusal extends RouteRequest {
  why: string;
  status: number;
}

/** Requests of a scenario's setup, in its organization. */
interface Setup {
  org: MatrixOrg;
  /** POSTs under /api/v5 and returns the new id. */
  create(collection: string, body: unknown): Promise<string>;
  /** PUTs under /api/v5, expecting a 2xx. */
  put(path: string, body: unknown): Promise<void>;
  /** POSTs under /api/v5, expecting a 2xx, and returns the body. */
  post(path: string, body: unknown): Promise<any>;
  /** POSTs under /scim/v2 and returns the new id. */
  scimCreate(collection: 'Users' | 'Groups', body: Record<string, unknown>): Promise<string>;
  /** The database, for what the API does not make (an access token, an OAuth client). */
  db: Kysely<Database>;
}

interface Scenario {
  /** Makes what the request acts on; nothing when omitted. */
  setup?: (s: Setup) => Promise<Made>;
  /** The request that makes a real change. */
  change: (made: Made) => RouteRequest;
  /** Every event the change emits, each exactly once; update events with previous values. */
  emits: (made: Made) => ExpectedEvent[];
  /** What the identical request again must leave as it was, updatedDate included: paths under /api/v5, or /scim/v2/... */
  reads?: (made: Made) => string[];
  /** Refused requests, beyond the unknown id every route with an :id is given. */
  refusals?: (made: Made) => Refusal[];
  /** The status of the identical request again when it is not the first one's (a SCIM POST: 409). */
  repeatStatus?: number;
  /**
   * Reads the change also changes with no event of their own: a consumer derives each from the events
   * named, as docs/sync.md says in the words of `readme`. `shows`: properties the read
   * has after the change.
   */
  derived?: (made: Made) => { path: string; shows: Record<string, unknown>; readme: string }[];
}

const ADA = 'ada@example.com';
const GRACE = 'grace@example.com';
const PASSWORD = 'analytical1';
const TEXT_FIELD = (categoryId: string, name = 'Job title') => ({ type: 'text', name, categoryId });

/** A user holding a value of a text field; `value` names the value. */
async function userWithValue(s: Setup, value: string): Promise<Made> {
  const category = await s.create('userfieldcategories', { name: 'Profile', type: 'public' });
  const field = await s.create('userfields', TEXT_FIELD(category));
  const user = await s.create('users', { email: ADA });
  await s.put(`users/${user}/userfieldvalues`, { [field]: value });
  return { category, field, user };
}

/** A text field fed by the SCIM attribute `title`. */
async function mappedTitle(s: Setup): Promise<Made> {
  const category = await s.create('userfieldcategories', { name: 'Profile', type: 'public' });
  const field = await s.create('userfields', TEXT_FIELD(category));
  await s.put('scimattributes', { title: field });
  return { field };
}

async function scimUser(s: Setup): Promise<Made> {
  const { field } = await mappedTitle(s);
  const user = await s.scimCreate('Users', { userName: ADA, name: { givenName: 'Ada' }, title: 'Engineer', password: PASSWORD });
  return { field: field!, user };
}

async function groupOfAda(s: Setup): Promise<Made> {
  const ada = await s.create('users', { email: ADA });
  const grace = await s.create('users', { email: GRACE });
  const group = await s.scimCreate('Groups', { displayName: 'Sales', members: [{ value: ada }] });
  return { ada, grace, group };
}

async function webhook(s: Setup): Promise<Made> {
  return { webhook: await s.create('webhooks', { url: 'https://hooks.example.com/matrix', events: ['user.created'] }) };
}

const scimPatch = (...operations: unknown[]) => ({ schemas: [SCIM_PATCH], Operations: operations });

/** Every write route that emits events, keyed as the route table keys routes, with a change that emits them (the contract's table). */
const CHANGES: Record<string, Scenario> = {
  'POST /users': {
    change: () => ({ body: { email: ADA, firstName: 'Ada' } }),
    emits: (m) => [{ type: 'user.created', data: { id: m.created, email: ADA, firstName: 'Ada' } }],
    reads: (m) => [`users/${m.created}`],
    refusals: () => [{ why: 'an email in use', status: 400, body: { email: ADA } }],
  },
  'PUT /users/:id': {
    // The password it holds already is no change, sent with a change or again alone.
    setup: async (s) => ({ user: await s.create('users', { email: ADA, firstName: 'Ada', password: PASSWORD }) }),
    change: (m) => ({ params: { id: m.user }, body: { firstName: 'Grace', password: PASSWORD } }),
    emits: (m) => [{ type: 'user.updated', data: { id: m.user, firstName: 'Grace' }, previous: { firstName: 'Ada' } }],
    reads: (m) => [`users/${m.user}`],
    refusals: () => [{ why: 'an invalid email', status: 400, body: { email: 'not an address' } }],
  },
  'DELETE /users/:id': {
    setup: async (s) => ({ user: await s.create('users', { email: ADA }) }),
    change: (m) => ({ params: { id: m.user } }),
    emits: (m) => [{ type: 'user.deleted', data: { id: m.user, email: ADA } }],
  },
  'PUT /users/:id/userfieldvalues': {
    setup: (s) => userWithValue(s, 'Engineer'),
    change: (m) => ({ params: { id: m.user }, body: { [m.field!]: 'Architect' } }),
    emits: (m) => [
      {
        type: 'userfieldvalues.updated',
        data: { userId: m.user, values: { [m.field!]: 'Architect' }, updatedDate: PRESENT },
        previous: { values: { [m.field!]: 'Engineer' }, updatedDate: PRESENT },
      },
    ],
    reads: (m) => [`users/${m.user}`, `users/${m.user}/userfieldvalues`],
    refusals: () => [{ why: 'an unknown userfield', status: 400, body: { [UNKNOWN_ID]: 'Architect' } }],
  },
  'POST /userfieldcategories': {
    change: () => ({ body: { name: 'Profile', type: 'public' } }),
    emits: (m) => [{ type: 'userfieldcategory.created', data: { id: m.created, name: 'Profile' } }],
    reads: (m) => [`userfieldcategories/${m.created}`],
    refusals: () => [{ why: 'a name in use', status: 400, body: { name: 'Profile', type: 'private' } }],
  },
  'PUT /userfieldcategories/:id': {
    setup: async (s) => {
      const category = await s.create('userfieldcategories', { name: 'Profile', type: 'public' });
      return { category, field: await s.create('userfields', TEXT_FIELD(category)) };
    },
    change: (m) => ({ params: { id: m.category }, body: { name: 'Career' } }),
    // Its fields show the category's name.
    emits: (m) => [
      { type: 'userfieldcategory.updated', data: { id: m.category, name: 'Career' }, previous: { name: 'Profile' } },
      { type: 'userfield.updated', data: { id: m.field, categoryName: 'Career' }, previous: { categoryName: 'Profile' } },
    ],
    reads: (m) => [`userfieldcategories/${m.category}`, `userfields/${m.field}`],
    refusals: () => [{ why: 'another type', status: 400, body: { type: 'private' } }],
  },
  'DELETE /userfieldcategories/:id': {
    setup: async (s) => {
      const full = await s.create('userfieldcategories', { name: 'Profile', type: 'public' });
      await s.create('userfields', TEXT_FIELD(full));
      return { full, category: await s.create('userfieldcategories', { name: 'Career', type: 'public' }) };
    },
    change: (m) => ({ params: { id: m.category } }),
    emits: (m) => [{ type: 'userfieldcategory.deleted', data: { id: m.category, name: 'Career' } }],
    refusals: (m) => [{ why: 'a category that holds fields', status: 400, params: { id: m.full } }],
  },
  'POST /userfields': {
    setup: async (s) => ({ category: await s.create('userfieldcategories', { name: 'Profile', type: 'public' }) }),
    change: (m) => ({ body: TEXT_FIELD(m.category!) }),
    emits: (m) => [{ type: 'userfield.created', data: { id: m.created, name: 'Job title', categoryId: m.category } }],
    reads: (m) => [`userfields/${m.created}`],
    refusals: () => [{ why: 'an unknown category', status: 400, body: TEXT_FIELD(UNKNOWN_ID, 'Team') }],
  },
  'PUT /userfields/:id': {
    // Removing an option a user chose clears the user's value: the user's values change too.
    setup: async (s) => {
      const category = await s.create('userfieldcategories', { name: 'Profile', type: 'public' });
      const field = await s.create('userfields', {
        type: 'dropdown',
        name: 'Colour',
        categoryId: category,
        options: [{ name: 'Red' }, { name: 'Blue' }],
      });
      const user = await s.create('users', { email: ADA });
      await s.put(`users/${user}/userfieldvalues`, { [field]: 'Red' });
      return { field, user };
    },
    change: (m) => ({ params: { id: m.field }, body: { options: [{ name: 'Blue' }] } }),
    emits: (m) => [
      {
        type: 'userfield.updated',
        data: { id: m.field, options: [{ name: 'Blue', selected: false }] },
        previous: {
          options: [
            { name: 'Red', selected: false },
            { name: 'Blue', selected: false },
          ],
        },
      },
      { type: 'userfieldvalues.updated', data: { userId: m.user, values: {} }, previous: { values: { [m.field!]: 'Red' } } },
    ],
    reads: (m) => [`userfields/${m.field}`, `users/${m.user}`, `users/${m.user}/userfieldvalues`],
    refusals: () => [{ why: 'an unknown category', status: 400, body: { categoryId: UNKNOWN_ID } }],
  },
  'DELETE /userfields/:id': {
    setup: (s) => userWithValue(s, 'Engineer'),
    change: (m) => ({ params: { id: m.field } }),
    emits: (m) => [
      { type: 'userfield.deleted', data: { id: m.field, name: 'Job title' } },
      { type: 'userfieldvalues.updated', data: { userId: m.user, values: {} }, previous: { values: { [m.field!]: 'Engineer' } } },
    ],
  },
  'POST /offeringcategories': {
    change: () => ({ body: { name: 'Languages' } }),
    emits: (m) => [{ type: 'offeringcategory.created', data: { id: m.created, name: 'Languages' } }],
    reads: (m) => [`offeringcategories/${m.created}`],
    refusals: () => [{ why: 'a name in use', status: 400, body: { name: 'Languages' } }],
  },
  'PUT /offeringcategories/:id': {
    setup: async (s) => ({ category: await s.create('offeringcategories', { name: 'Languages' }) }),
    change: (m) => ({ params: { id: m.category }, body: { name: 'Sciences' } }),
    emits: (m) => [{ type: 'offeringcategory.updated', data: { id: m.category, name: 'Sciences' }, previous: { name: 'Languages' } }],
    reads: (m) => [`offeringcategories/${m.category}`],
    refusals: () => [{ why: 'an invalid colour', status: 400, body: { color: 'red' } }],
  },
  'DELETE /offeringcategories/:id': {
    // The offerings in the category lose it.
    setup: async (s) => {
      const category = await s.create('offeringcategories', { name: 'Languages' });
      return { category, offering: await s.create('offerings', { title: 'French', offeringCategoryIds: [category] }) };
    },
    change: (m) => ({ params: { id: m.category } }),
    emits: (m) => [
      { type: 'offeringcategory.deleted', data: { id: m.category, name: 'Languages' } },
      { type: 'offering.updated', data: { id: m.offering }, previous: { offeringCategoryIds: [m.category] } },
    ],
  },
  'POST /offerings': {
    change: () => ({ body: { title: 'French' } }),
    emits: (m) => [{ type: 'offering.created', data: { id: m.created, title: 'French' } }],
    reads: (m) => [`offerings/${m.created}`],
    refusals: () => [{ why: 'an unknown category', status: 400, body: { title: 'German', offeringCategoryIds: [UNKNOWN_ID] } }],
  },
  'PUT /offerings/:id': {
    setup: async (s) => ({ offering: await s.create('offerings', { title: 'French' }) }),
    change: (m) => ({ params: { id: m.offering }, body: { title: 'German' } }),
    emits: (m) => [{ type: 'offering.updated', data: { id: m.offering, title: 'German' }, previous: { title: 'French' } }],
    reads: (m) => [`offerings/${m.offering}`],
    refusals: () => [{ why: 'an unknown category', status: 400, body: { offeringCategoryIds: [UNKNOWN_ID] } }],
  },
  'DELETE /offerings/:id': {
    setup: async (s) => {
      const busy = await s.create('offerings', { title: 'German' });
      await s.create('registrations', { userId: await s.create('users', { email: ADA }), offeringId: busy });
      return { busy, offering: await s.create('offerings', { title: 'French' }) };
    },
    change: (m) => ({ params: { id: m.offering } }),
    emits: (m) => [{ type: 'offering.deleted', data: { id: m.offering, title: 'French' } }],
    refusals: (m) => [{ why: 'an offering with a registration', status: 400, params: { id: m.busy } }],
  },
  'POST /registrations': {
    setup: async (s) => ({ user: await s.create('users', { email: ADA }), offering: await s.create('offerings', { title: 'French' }) }),
    change: (m) => ({ body: { userId: m.user, offeringId: m.offering } }),
    emits: (m) => [{ type: 'registration.created', data: { id: m.created, userId: m.user, offeringId: m.offering } }],
    reads: (m) => [`registrations/${m.created}`],
    // After the change, the user is registered already.
    refusals: (m) => [{ why: 'the user already registered', status: 400, body: { userId: m.user, offeringId: m.offering } }],
  },
  'PUT /registrations/:id': {
    setup: async (s) => {
      const [user, offering] = [await s.create('users', { email: ADA }), await s.create('offerings', { title: 'French' })];
      return { registration: await s.create('registrations', { userId: user, offeringId: offering }) };
    },
    change: (m) => ({ params: { id: m.registration }, body: { grade: 80 } }),
    emits: (m) => [{ type: 'registration.graded', data: { id: m.registration, grade: 80 }, previous: { status: 'active', grade: null } }],
    reads: (m) => [`registrations/${m.registration}`],
    refusals: () => [{ why: 'a status only grading sets', status: 400, body: { status: 'failed' } }],
  },
  'PUT /agreements/:type': {
    setup: async (s) => {
      await s.put('agreements/custom', { title: 'House rules', text: 'Be kind' });
      const [pending, agreed] = [await s.create('users', { email: ADA }), await s.create('users', { email: GRACE })];
      await s.put(`users/${agreed}/agreements/custom`, { agreed: true });
      return { pending, agreed };
    },
    change: () => ({ params: { type: 'custom' }, body: { title: 'House rules, revised' } }),
    emits: () => [{ type: 'agreement.updated', data: { type: 'custom', title: 'House rules, revised' }, previous: { title: 'House rules' } }],
    // A user who has not agreed sees the agreement as it reads now (docs/sync.md); one who agreed, what they agreed to.
    derived: (m) => [
      {
        path: `users/${m.pending}/agreements/custom`,
        shows: { agreed: false, title: 'House rules, revised' },
        readme:
          'Revising an agreement changes, with its `agreement.updated` alone, what `GET /users/{id}/agreements/{type}` shows each user who has not agreed to it',
      },
    ],
    reads: (m) => ['agreements/custom', `users/${m.pending}/agreements/custom`, `users/${m.agreed}/agreements/custom`, `users/${m.agreed}`],
    refusals: () => [
      { why: 'a custom agreement not required', status: 400, params: { type: 'custom' }, body: { required: false } },
      { why: 'an unknown type', status: 404, params: { type: 'bylaws' }, body: { title: 'Bylaws', text: 'None' } },
    ],
  },
  'PUT /users/:id/agreements/:type': {
    setup: async (s) => ({ user: await s.create('users', { email: ADA }) }),
    change: (m) => ({ params: { id: m.user, type: 'standard' }, body: { agreed: true } }),
    // What a user agreed to is part of the user: the event carries the user's updatedDate, as userfieldvalues.updated does.
    emits: (m) => [
      {
        type: 'useragreement.updated',
        data: { userId: m.user, type: 'standard', agreed: true, updatedDate: PRESENT },
        previous: { agreed: false, updatedDate: PRESENT },
      },
    ],
    reads: (m) => [`users/${m.user}`, `users/${m.user}/agreements/standard`],
    refusals: (m) => [{ why: 'an unknown type', status: 404, params: { id: m.user, type: 'bylaws' }, body: { agreed: true } }],
  },

  'POST /scim/v2/Users': {
    setup: mappedTitle,
    change: () => ({ body: { schemas: [SCIM_USER], userName: ADA, name: { givenName: 'Ada' }, title: 'Engineer' } }),
    emits: (m) => [
      { type: 'user.created', data: { id: m.created, email: ADA, firstName: 'Ada' } },
      { type: 'userfieldvalues.updated', data: { userId: m.created, values: { [m.field!]: 'Engineer' } }, previous: { values: {} } },
    ],
    reads: (m) => [`/scim/v2/Users/${m.created}`, `users/${m.created}`],
    repeatStatus: 409,
    refusals: () => [{ why: 'no userName', status: 400, body: { schemas: [SCIM_USER], name: { givenName: 'Grace' } } }],
  },
  'PUT /scim/v2/Users/:id': {
    // Only the mapped value changes: the user's own properties stay, its password too, so no user.updated.
    setup: scimUser,
    change: (m) => ({
      params: { id: m.user },
      body: { schemas: [SCIM_USER], userName: ADA, name: { givenName: 'Ada' }, title: 'Architect', password: PASSWORD },
    }),
    emits: (m) => [
      {
        type: 'userfieldvalues.updated',
        data: { userId: m.user, values: { [m.field!]: 'Architect' } },
        previous: { values: { [m.field!]: 'Engineer' } },
      },
    ],
    reads: (m) => [`/scim/v2/Users/${m.user}`, `users/${m.user}`],
    refusals: () => [{ why: 'no userName', status: 400, body: { schemas: [SCIM_USER], title: 'Architect' } }],
  },
  'PATCH /scim/v2/Users/:id': {
    setup: scimUser,
    change: (m) => ({
      params: { id: m.user },
      body: scimPatch(
        { op: 'replace', path: 'name.givenName', value: 'Grace' },
        { op: 'replace', path: 'title', value: 'Architect' },
        { op: 'replace', path: 'password', value: PASSWORD },
      ),
    }),
    emits: (m) => [
      { type: 'user.updated', data: { id: m.user, firstName: 'Grace' }, previous: { firstName: 'Ada' } },
      {
        type: 'userfieldvalues.updated',
        data: { userId: m.user, values: { [m.field!]: 'Architect' } },
        previous: { values: { [m.field!]: 'Engineer' } },
      },
    ],
    reads: (m) => [`/scim/v2/Users/${m.user}`, `users/${m.user}`],
    refusals: () => [{ why: 'a read-only attribute', status: 400, body: scimPatch({ op: 'replace', path: 'id', value: UNKNOWN_ID }) }],
  },
  'DELETE /scim/v2/Users/:id': {
    setup: scimUser,
    change: (m) => ({ params: { id: m.user } }),
    emits: (m) => [{ type: 'user.deleted', data: { id: m.user, email: ADA } }],
  },
  'POST /scim/v2/Groups': {
    setup: async (s) => ({ ada: await s.create('users', { email: ADA }) }),
    change: (m) => ({ body: { schemas: [SCIM_GROUP], displayName: 'Sales', members: [{ value: m.ada }] } }),
    emits: (m) => [{ type: 'user.updated', data: { id: m.ada, tags: ['Sales'] }, previous: { tags: null } }],
    reads: (m) => [`/scim/v2/Groups/${m.created}`, `users/${m.ada}`],
    repeatStatus: 409,
    refusals: (m) => [
      {
        why: 'an unknown member',
        status: 400,
        body: { schemas: [SCIM_GROUP], displayName: 'Support', members: [{ value: m.ada }, { value: UNKNOWN_ID }] },
      },
    ],
  },
  'PUT /scim/v2/Groups/:id': {
    // Grace replaces Ada: both change.
    setup: groupOfAda,
    change: (m) => ({ params: { id: m.group }, body: { schemas: [SCIM_GROUP], displayName: 'Sales', members: [{ value: m.grace }] } }),
    emits: (m) => [
      { type: 'user.updated', data: { id: m.ada }, previous: { tags: ['Sales'] } },
      { type: 'user.updated', data: { id: m.grace, tags: ['Sales'] }, previous: { tags: null } },
    ],
    reads: (m) => [`/scim/v2/Groups/${m.group}`, `users/${m.ada}`, `users/${m.grace}`],
    refusals: (m) => [
      {
        why: 'an unknown member',
        status: 400,
        params: { id: m.group },
        body: { schemas: [SCIM_GROUP], displayName: 'Sales', members: [{ value: UNKNOWN_ID }] },
      },
    ],
  },
  'PATCH /scim/v2/Groups/:id': {
    setup: groupOfAda,
    change: (m) => ({ params: { id: m.group }, body: scimPatch({ op: 'add', path: 'members', value: [{ value: m.grace }] }) }),
    emits: (m) => [{ type: 'user.updated', data: { id: m.grace, tags: ['Sales'] }, previous: { tags: null } }],
    reads: (m) => [`/scim/v2/Groups/${m.group}`, `users/${m.ada}`, `users/${m.grace}`],
    refusals: (m) => [
      {
        why: 'an unknown member',
        status: 400,
        params: { id: m.group },
        body: scimPatch({ op: 'add', path: 'members', value: [{ value: UNKNOWN_ID }] }),
      },
    ],
  },
  'DELETE /scim/v2/Groups/:id': {
    setup: groupOfAda,
    change: (m) => ({ params: { id: m.group } }),
    emits: (m) => [{ type: 'user.updated', data: { id: m.ada }, previous: { tags: ['Sales'] } }],
  },
};

const CONFIGURATION = 'configuration of the API itself, not synced data';

/**
 * Write routes that emit no event, by design (the contract's list), each with the reason. A POST
 * among them also has a scenario, for its Idempotency-Key replay; a scenario is run to show it emits nothing.
 */
const WITHOUT_EVENTS: Record<string, { reason: string; scenario?: Scenario }> = {
  'POST /scim/v2/Users/.search': { reason: 'a search sent as POST (RFC 7644 §3.4.3): it reads, it changes nothing' },
  'POST /scim/v2/Groups/.search': { reason: 'a search sent as POST (RFC 7644 §3.4.3): it reads, it changes nothing' },
  'POST /scim/v2/Bulk': { reason: 'bulk operations are not supported: 501, nothing done' },
  'POST /scim/v2/.search': { reason: 'a search of every resource type at once is not supported: 501, nothing done' },
  'PUT /scimattributes': { reason: `maps SCIM attributes onto userfields: ${CONFIGURATION}` },
  'POST /webhooks': {
    reason: `subscribes a receiver to events: ${CONFIGURATION}`,
    scenario: { change: () => ({ body: { url: 'https://hooks.example.com/matrix', events: ['user.created'] } }), emits: () => [] },
  },
  'PUT /webhooks/:id': { reason: `changes a subscription: ${CONFIGURATION}` },
  'DELETE /webhooks/:id': { reason: `ends a subscription: ${CONFIGURATION}` },
  'POST /webhooks/:id/test': {
    reason: 'queues a webhook.ping for one receiver, which is no change of any resource',
    scenario: { setup: webhook, change: (m) => ({ params: { id: m.webhook } }), emits: () => [] },
  },
  'POST /webhooks/:id/deliveries/:deliveryId/resend': {
    reason: 'sends a delivery again; its event was recorded once, with the change it reports',
    scenario: {
      setup: async (s) => {
        const { webhook: id } = await webhook(s);
        const delivery = (await s.post(`webhooks/${id}/test`, {})) as { id: string };
        return { webhook: id!, delivery: delivery.id };
      },
      change: (m) => ({ params: { id: m.webhook, deliveryId: m.delivery } }),
      emits: () => [],
    },
  },
  'POST /imports': {
    reason:
      'starts an import in the background: the users it creates, changes and deactivates emit their own user events as each batch ' +
      'commits (test/imports/); its dry run, the scenario here, writes nothing',
    scenario: {
      change: () => ({ body: 'email,firstName\nmatrix.import@example.com,Max\n', contentType: 'text/csv', query: { dryRun: 'true' } }),
      emits: () => [],
    },
  },
  'POST /webhooks/:id/recover': {
    reason: 'queues again, for one receiver, events that were each recorded once with their change',
    scenario: {
      setup: webhook,
      change: (m) => ({ params: { id: m.webhook }, body: { since: new Date(Date.now() - 60_000).toISOString().slice(0, 19) + 'Z' } }),
      emits: () => [],
    },
  },
};

/**
 * The forms of the administrators' console, outside the API but writing through its services with the
 * console's caller: each one emits exactly the events of the API's own change, keeps a mirror's
 * updatedDate right, and emits nothing when it refuses (or only shows, as a preview). Keyed as the
 * route table lists them (`POST /o/:orgId/console/userfields`). A new POST route of the console fails
 * the matrix until it is in CONSOLE_CHANGES or CONSOLE_WITHOUT_EVENTS (the people's forms: PAGE_CHANGES,
 * PAGE_WITHOUT_EVENTS).
 */
interface ConsoleScenario {
  /** Makes, through the API, what the form acts on. */
  setup?: (s: Setup) => Promise<Made>;
  /** The kind of administrator who sends the form (an organization administrator unless told). */
  kind?: 'courseAdministrator';
  /** Sends the form, as the administrator's browser, under `console` (`/o/<orgId>/console`). */
  send: (browser: PageBrowser, console: string, made: Made) => Promise<PageReply>;
  status: number;
  emits: (made: Made) => ExpectedEvent[];
  /** Forms that must emit nothing, sent after the change: refusals (a 4xx) and previews. */
  silent?: (made: Made) => { why: string; send: (browser: PageBrowser, console: string) => Promise<PageReply>; status: number }[];
}

/** A text field's form as the console's page sends it back, with `changes`. */
const FIELD_FORM = (categoryId: string, changes: Record<string, string> = {}) => ({ name: 'Job title', categoryId, size: 'medium', ...changes });

/** A person and one registration of theirs, for the People section's forms. */
async function personRegistered(s: Setup): Promise<Made> {
  const [user, offering] = [await s.create('users', { email: ADA }), await s.create('offerings', { title: 'French', passingGrade: 70 })];
  return { user, registration: await s.create('registrations', { userId: user, offeringId: offering }) };
}

/** The People section's forms (src/console/people): each writes through the users, userfield values or registrations service. */
const PEOPLE_CHANGES: Record<string, ConsoleScenario> = {
  'POST /o/:orgId/console/people': {
    setup: async (s) => ({ user: await s.create('users', { email: ADA }) }),
    send: (b, c) => b.post(`${c}/people`, { email: GRACE, firstName: 'Grace', tags: 'navy', accountType: 'courseAdministrator' }),
    status: 303,
    emits: () => [{ type: 'user.created', data: { email: GRACE, firstName: 'Grace', tags: ['navy'], accountType: 'courseAdministrator' } }],
    silent: () => [
      { why: 'an email in use', send: (b, c) => b.post(`${c}/people`, { email: 'ADA@example.com', accountType: 'learner' }), status: 400 },
      {
        why: 'a password too short',
        send: (b, c) => b.post(`${c}/people`, { email: 'new@example.com', accountType: 'learner', password: 'a1' }),
        status: 400,
      },
    ],
  },
  'POST /o/:orgId/console/people/:userId': {
    setup: async (s) => ({ user: await s.create('users', { email: ADA, firstName: 'Ada' }) }),
    send: (b, c, m) => b.post(`${c}/people/${m.user}`, { email: ADA, firstName: 'Augusta', accountType: 'learner' }),
    status: 303,
    emits: (m) => [{ type: 'user.updated', data: { id: m.user, firstName: 'Augusta' }, previous: { firstName: 'Ada' } }],
    silent: (m) => [
      {
        why: 'a name too long',
        send: (b, c) => b.post(`${c}/people/${m.user}`, { email: ADA, firstName: 'x'.repeat(256), accountType: 'learner' }),
        status: 400,
      },
    ],
  },
  'POST /o/:orgId/console/people/:userId/active': {
    setup: async (s) => ({ user: await s.create('users', { email: ADA }) }),
    send: (b, c, m) => b.post(`${c}/people/${m.user}/active`, { active: 'false' }),
    status: 303,
    emits: (m) => [{ type: 'user.updated', data: { id: m.user, active: false }, previous: { active: true } }],
    silent: (m) => [
      { why: 'neither true nor false', send: (b, c) => b.post(`${c}/people/${m.user}/active`, { active: 'maybe' }), status: 400 },
      { why: 'an unknown person', send: (b, c) => b.post(`${c}/people/${UNKNOWN_ID}/active`, { active: 'true' }), status: 404 },
    ],
  },
  'POST /o/:orgId/console/people/:userId/password': {
    setup: async (s) => ({ user: await s.create('users', { email: ADA }) }),
    send: (b, c, m) => b.post(`${c}/people/${m.user}/password`, { password: 'temporary horse 1', requirePasswordChange: 'true' }),
    status: 303,
    // A new password is no property the representation shows: the event names the updatedDate it moved.
    emits: (m) => [{ type: 'user.updated', data: { id: m.user } }],
    silent: (m) => [{ why: 'a password too short', send: (b, c) => b.post(`${c}/people/${m.user}/password`, { password: 'a1' }), status: 400 }],
  },
  'POST /o/:orgId/console/people/:userId/userfields': {
    setup: async (s) => {
      const category = await s.create('userfieldcategories', { name: 'Records', type: 'private' });
      return {
        field: await s.create('userfields', { type: 'number', name: 'Badge', categoryId: category }),
        user: await s.create('users', { email: ADA }),
      };
    },
    send: (b, c, m) => b.post(`${c}/people/${m.user}/userfields`, { shown: m.field!, [`field.${m.field}`]: '42' }),
    status: 303,
    emits: (m) => [{ type: 'userfieldvalues.updated', data: { userId: m.user, values: { [m.field!]: 42 } }, previous: { values: {} } }],
    silent: (m) => [
      {
        why: 'no number',
        send: (b, c) => b.post(`${c}/people/${m.user}/userfields`, { shown: m.field!, [`field.${m.field}`]: 'forty' }),
        status: 400,
      },
    ],
  },
  'POST /o/:orgId/console/people/:userId/registrations/:registrationId/eject': {
    setup: personRegistered,
    send: (b, c, m) => b.post(`${c}/people/${m.user}/registrations/${m.registration}/eject`, {}),
    status: 303,
    emits: (m) => [{ type: 'registration.ejected', data: { id: m.registration, status: 'ejected' }, previous: { status: 'active' } }],
    silent: (m) => [
      { why: 'ejected already', send: (b, c) => b.post(`${c}/people/${m.user}/registrations/${m.registration}/eject`, {}), status: 400 },
    ],
  },
  'POST /o/:orgId/console/people/:userId/registrations/:registrationId/grade': {
    setup: personRegistered,
    send: (b, c, m) => b.post(`${c}/people/${m.user}/registrations/${m.registration}/grade`, { grade: '80', graderComment: 'Good' }),
    status: 303,
    emits: (m) => [
      { type: 'registration.graded', data: { id: m.registration, grade: 80, graderComment: 'Good' }, previous: { status: 'active', grade: null } },
    ],
    silent: (m) => [
      {
        why: 'a grade above 100',
        send: (b, c) => b.post(`${c}/people/${m.user}/registrations/${m.registration}/grade`, { grade: '101' }),
        status: 400,
      },
    ],
  },
};

const CONSOLE_CHANGES: Record<string, ConsoleScenario> = {
  'POST /o/:orgId/console/userfields': {
    setup: async (s) => ({ category: await s.create('userfieldcategories', { name: 'Profile', type: 'public' }) }),
    send: (b, c, m) => b.post(`${c}/userfields`, { type: 'dropdown', name: 'Team', categoryId: m.category!, newOptions: 'Red\nBlue' }),
    status: 303,
    emits: (m) => [
      {
        type: 'userfield.created',
        data: {
          name: 'Team',
          categoryId: m.category,
          options: [
            { name: 'Red', selected: false },
            { name: 'Blue', selected: false },
          ],
        },
      },
    ],
    silent: (m) => [
      {
        why: 'a minimum above the maximum',
        send: (b, c) => b.post(`${c}/userfields`, { type: 'text', name: 'Code', categoryId: m.category!, size: 'small', minimum: '9', maximum: '2' }),
        status: 400,
      },
    ],
  },
  'POST /o/:orgId/console/userfields/:fieldId': {
    // Private: made required, a public field would stop the administrator, who has no value, at the console's door.
    setup: async (s) => {
      const category = await s.create('userfieldcategories', { name: 'Profile', type: 'private' });
      return { category, field: await s.create('userfields', TEXT_FIELD(category)) };
    },
    send: (b, c, m) => b.post(`${c}/userfields/${m.field}`, FIELD_FORM(m.category!, { name: 'Role', required: 'true' })),
    status: 303,
    emits: (m) => [
      { type: 'userfield.updated', data: { id: m.field, name: 'Role', required: true }, previous: { name: 'Job title', required: false } },
    ],
    silent: (m) => [
      { why: 'a blank name', send: (b, c) => b.post(`${c}/userfields/${m.field}`, FIELD_FORM(m.category!, { name: ' ' })), status: 400 },
    ],
  },
  'POST /o/:orgId/console/userfields/:fieldId/move': {
    setup: async (s) => {
      const category = await s.create('userfieldcategories', { name: 'Profile', type: 'public' });
      return { first: await s.create('userfields', TEXT_FIELD(category)), second: await s.create('userfields', TEXT_FIELD(category, 'Team')) };
    },
    send: (b, c, m) => b.post(`${c}/userfields/${m.second}/move`, { direction: 'up' }),
    status: 303,
    emits: (m) => [
      { type: 'userfield.updated', data: { id: m.second, orderIndex: 0 }, previous: { orderIndex: 1 } },
      { type: 'userfield.updated', data: { id: m.first, orderIndex: 1 }, previous: { orderIndex: 0 } },
    ],
    silent: () => [{ why: 'an unknown field', send: (b, c) => b.post(`${c}/userfields/${UNKNOWN_ID}/move`, { direction: 'up' }), status: 404 }],
  },
  'POST /o/:orgId/console/userfields/:fieldId/delete': {
    setup: (s) => userWithValue(s, 'Engineer'),
    send: (b, c, m) => b.post(`${c}/userfields/${m.field}/delete`, {}),
    status: 303,
    emits: (m) => [
      { type: 'userfield.deleted', data: { id: m.field, name: 'Job title' } },
      { type: 'userfieldvalues.updated', data: { userId: m.user, values: {} }, previous: { values: { [m.field!]: 'Engineer' } } },
    ],
    silent: (m) => [{ why: 'deleted already', send: (b, c) => b.post(`${c}/userfields/${m.field}/delete`, {}), status: 404 }],
  },
  'POST /o/:orgId/console/userfields/categories': {
    send: (b, c) => b.post(`${c}/userfields/categories`, { name: 'Profile', type: 'private' }),
    status: 303,
    emits: () => [{ type: 'userfieldcategory.created', data: { name: 'Profile', type: 'private' } }],
    silent: () => [{ why: 'a name in use', send: (b, c) => b.post(`${c}/userfields/categories`, { name: 'PROFILE', type: 'public' }), status: 400 }],
  },
  'POST /o/:orgId/console/userfields/categories/:categoryId': {
    setup: async (s) => {
      const category = await s.create('userfieldcategories', { name: 'Profile', type: 'public' });
      await s.create('userfieldcategories', { name: 'Taken', type: 'private' });
      return { category, field: await s.create('userfields', TEXT_FIELD(category)) };
    },
    send: (b, c, m) => b.post(`${c}/userfields/categories/${m.category}`, { name: 'Career' }),
    status: 303,
    emits: (m) => [
      { type: 'userfieldcategory.updated', data: { id: m.category, name: 'Career' }, previous: { name: 'Profile' } },
      { type: 'userfield.updated', data: { id: m.field, categoryName: 'Career' }, previous: { categoryName: 'Profile' } },
    ],
    silent: (m) => [{ why: 'a name in use', send: (b, c) => b.post(`${c}/userfields/categories/${m.category}`, { name: 'taken' }), status: 400 }],
  },
  'POST /o/:orgId/console/userfields/categories/:categoryId/move': {
    setup: async (s) => ({
      first: await s.create('userfieldcategories', { name: 'Profile', type: 'public' }),
      second: await s.create('userfieldcategories', { name: 'Career', type: 'public' }),
    }),
    send: (b, c, m) => b.post(`${c}/userfields/categories/${m.second}/move`, { direction: 'up' }),
    status: 303,
    emits: (m) => [
      { type: 'userfieldcategory.updated', data: { id: m.second, orderIndex: 0 }, previous: { orderIndex: 1 } },
      { type: 'userfieldcategory.updated', data: { id: m.first, orderIndex: 1 }, previous: { orderIndex: 0 } },
    ],
    silent: () => [
      { why: 'an unknown category', send: (b, c) => b.post(`${c}/userfields/categories/${UNKNOWN_ID}/move`, { direction: 'up' }), status: 404 },
    ],
  },
  'POST /o/:orgId/console/userfields/categories/:categoryId/delete': {
    setup: async (s) => {
      const full = await s.create('userfieldcategories', { name: 'Profile', type: 'public' });
      await s.create('userfields', TEXT_FIELD(full));
      return { full, category: await s.create('userfieldcategories', { name: 'Career', type: 'public' }) };
    },
    send: (b, c, m) => b.post(`${c}/userfields/categories/${m.category}/delete`, {}),
    status: 303,
    emits: (m) => [{ type: 'userfieldcategory.deleted', data: { id: m.category, name: 'Career' } }],
    silent: (m) => [{ why: 'a category that holds fields', send: (b, c) => b.post(`${c}/userfields/categories/${m.full}/delete`, {}), status: 400 }],
  },
  'POST /o/:orgId/console/offerings': {
    kind: 'courseAdministrator',
    send: (b, c) => b.post(`${c}/offerings`, { title: 'French', price: '20', tags: 'language', passingGrade: '70' }),
    status: 303,
    emits: () => [{ type: 'offering.created', data: { title: 'French', price: 20, tags: ['language'] } }],
    silent: () => [
      {
        why: 'an end before the beginning',
        send: (b, c) => b.post(`${c}/offerings`, { title: 'German', beginDate: '2030-02-01T10:00', endDate: '2030-01-01T10:00' }),
        status: 400,
      },
    ],
  },
  'POST /o/:orgId/console/offerings/:offeringId': {
    kind: 'courseAdministrator',
    setup: async (s) => ({ offering: await s.create('offerings', { title: 'French' }) }),
    send: (b, c, m) => b.post(`${c}/offerings/${m.offering}`, { title: 'German', passingGrade: '70' }),
    status: 303,
    emits: (m) => [{ type: 'offering.updated', data: { id: m.offering, title: 'German' }, previous: { title: 'French' } }],
    silent: (m) => [
      { why: 'a price below 0', send: (b, c) => b.post(`${c}/offerings/${m.offering}`, { title: 'German', price: '-1' }), status: 400 },
    ],
  },
  'POST /o/:orgId/console/offerings/:offeringId/delete': {
    setup: async (s) => {
      const busy = await s.create('offerings', { title: 'German' });
      await s.create('registrations', { userId: await s.create('users', { email: ADA }), offeringId: busy });
      return { busy, offering: await s.create('offerings', { title: 'French' }) };
    },
    send: (b, c, m) => b.post(`${c}/offerings/${m.offering}/delete`, {}),
    status: 303,
    emits: (m) => [{ type: 'offering.deleted', data: { id: m.offering, title: 'French' } }],
    silent: (m) => [{ why: 'an offering with a registration', send: (b, c) => b.post(`${c}/offerings/${m.busy}/delete`, {}), status: 400 }],
  },
  'POST /o/:orgId/console/offerings/:offeringId/registrations': {
    kind: 'courseAdministrator',
    setup: async (s) => ({ user: await s.create('users', { email: ADA }), offering: await s.create('offerings', { title: 'French' }) }),
    send: (b, c, m) => b.post(`${c}/offerings/${m.offering}/registrations`, { email: ADA }),
    status: 303,
    emits: (m) => [{ type: 'registration.created', data: { userId: m.user, offeringId: m.offering, status: 'active' } }],
    silent: (m) => [
      { why: 'the person registered already', send: (b, c) => b.post(`${c}/offerings/${m.offering}/registrations`, { email: ADA }), status: 400 },
      { why: 'nobody of that email', send: (b, c) => b.post(`${c}/offerings/${m.offering}/registrations`, { email: GRACE }), status: 400 },
    ],
  },
  'POST /o/:orgId/console/offerings/:offeringId/registrations/:registrationId/eject': {
    kind: 'courseAdministrator',
    setup: async (s) => {
      const [user, offering] = [await s.create('users', { email: ADA }), await s.create('offerings', { title: 'French' })];
      return { offering, registration: await s.create('registrations', { userId: user, offeringId: offering }) };
    },
    send: (b, c, m) => b.post(`${c}/offerings/${m.offering}/registrations/${m.registration}/eject`, {}),
    status: 303,
    emits: (m) => [{ type: 'registration.ejected', data: { id: m.registration, status: 'ejected' }, previous: { status: 'active' } }],
    silent: (m) => [
      { why: 'ejected already', send: (b, c) => b.post(`${c}/offerings/${m.offering}/registrations/${m.registration}/eject`, {}), status: 400 },
    ],
  },
  'POST /o/:orgId/console/offerings/:offeringId/registrations/:registrationId/grade': {
    kind: 'courseAdministrator',
    setup: async (s) => {
      const [user, offering] = [await s.create('users', { email: ADA }), await s.create('offerings', { title: 'French' })];
      return { offering, registration: await s.create('registrations', { userId: user, offeringId: offering }) };
    },
    send: (b, c, m) => b.post(`${c}/offerings/${m.offering}/registrations/${m.registration}/grade`, { grade: '80', graderComment: 'Good' }),
    status: 303,
    emits: (m) => [
      { type: 'registration.graded', data: { id: m.registration, grade: 80, graderComment: 'Good' }, previous: { status: 'active', grade: null } },
    ],
    silent: (m) => [
      {
        why: 'a grade above 100',
        send: (b, c) => b.post(`${c}/offerings/${m.offering}/registrations/${m.registration}/grade`, { grade: '101' }),
        status: 400,
      },
    ],
  },
  'POST /o/:orgId/console/offerings/categories': {
    send: (b, c) => b.post(`${c}/offerings/categories`, { name: 'Languages', description: 'Spoken ones', color: '#0b5cad' }),
    status: 303,
    emits: () => [{ type: 'offeringcategory.created', data: { name: 'Languages', description: 'Spoken ones', color: '#0b5cad' } }],
    silent: () => [{ why: 'a name in use', send: (b, c) => b.post(`${c}/offerings/categories`, { name: 'languages' }), status: 400 }],
  },
  'POST /o/:orgId/console/offerings/categories/:offeringCategoryId': {
    setup: async (s) => ({ category: await s.create('offeringcategories', { name: 'Languages' }) }),
    send: (b, c, m) => b.post(`${c}/offerings/categories/${m.category}`, { name: 'Sciences', description: '', color: '' }),
    status: 303,
    emits: (m) => [{ type: 'offeringcategory.updated', data: { id: m.category, name: 'Sciences' }, previous: { name: 'Languages' } }],
    silent: (m) => [
      {
        why: 'an invalid colour',
        send: (b, c) => b.post(`${c}/offerings/categories/${m.category}`, { name: 'Sciences', color: 'red' }),
        status: 400,
      },
    ],
  },
  'POST /o/:orgId/console/offerings/categories/:offeringCategoryId/move': {
    setup: async (s) => ({
      first: await s.create('offeringcategories', { name: 'Languages' }),
      second: await s.create('offeringcategories', { name: 'Sciences' }),
    }),
    send: (b, c, m) => b.post(`${c}/offerings/categories/${m.second}/move`, { direction: 'up' }),
    status: 303,
    emits: (m) => [
      { type: 'offeringcategory.updated', data: { id: m.second, orderIndex: 0 }, previous: { orderIndex: 1 } },
      { type: 'offeringcategory.updated', data: { id: m.first, orderIndex: 1 }, previous: { orderIndex: 0 } },
    ],
    silent: () => [
      { why: 'an unknown category', send: (b, c) => b.post(`${c}/offerings/categories/${UNKNOWN_ID}/move`, { direction: 'up' }), status: 404 },
    ],
  },
  'POST /o/:orgId/console/offerings/categories/:offeringCategoryId/delete': {
    setup: async (s) => {
      const category = await s.create('offeringcategories', { name: 'Languages' });
      return { category, offering: await s.create('offerings', { title: 'French', offeringCategoryIds: [category] }) };
    },
    send: (b, c, m) => b.post(`${c}/offerings/categories/${m.category}/delete`, {}),
    status: 303,
    emits: (m) => [
      { type: 'offeringcategory.deleted', data: { id: m.category, name: 'Languages' } },
      { type: 'offering.updated', data: { id: m.offering }, previous: { offeringCategoryIds: [m.category] } },
    ],
    silent: (m) => [{ why: 'deleted already', send: (b, c) => b.post(`${c}/offerings/categories/${m.category}/delete`, {}), status: 404 }],
  },
  'POST /o/:orgId/console/agreements/:type': {
    setup: async (s) => {
      await s.put('agreements/custom', { title: 'House rules', text: 'Be kind' });
      return {};
    },
    send: (b, c) => b.post(`${c}/agreements/custom`, { title: 'House rules, revised', text: 'Be kind\r\nand on time' }),
    status: 303,
    emits: () => [
      {
        type: 'agreement.updated',
        data: { type: 'custom', title: 'House rules, revised', text: 'Be kind\nand on time' },
        previous: { title: 'House rules', text: 'Be kind' },
      },
    ],
    silent: () => [
      { why: 'a preview', send: (b, c) => b.post(`${c}/agreements/custom`, { title: 'Rules', text: 'Be quiet', preview: 'true' }), status: 200 },
      { why: 'a blank title', send: (b, c) => b.post(`${c}/agreements/custom`, { title: ' ', text: 'Be quiet' }), status: 400 },
      { why: 'an unknown type', send: (b, c) => b.post(`${c}/agreements/bylaws`, { title: 'Bylaws', text: 'None' }), status: 404 },
    ],
  },
  ...PEOPLE_CHANGES,
};

const CREDENTIALS = 'access tokens and OAuth clients, which are credentials of the API, not synced data';

/** The webhooks and SCIM sections: subscriptions, deliveries and SCIM's credentials and mappings, as the API's own routes for them emit nothing. */
const sinceAMinuteAgo = () => new Date(Date.now() - 60_000).toISOString().slice(0, 19);
const CONSOLE_WEBHOOKS_AND_SCIM: Record<string, { reason: string; scenario?: ConsoleScenario }> = {
  'POST /o/:orgId/console/webhooks': {
    reason: `subscribes a receiver to events, as POST /webhooks: ${CONFIGURATION}`,
    scenario: {
      send: (b, c) => b.post(`${c}/webhooks`, { url: 'https://hooks.example.com/console', events: ['user.created', 'user.deleted'] }),
      status: 201,
      emits: () => [],
    },
  },
  'POST /o/:orgId/console/webhooks/:webhookId': {
    reason: `changes a subscription, as PUT /webhooks/{id}: ${CONFIGURATION}`,
    scenario: {
      setup: webhook,
      send: (b, c, m) => b.post(`${c}/webhooks/${m.webhook}`, { url: 'https://hooks.example.com/matrix', events: ['user.updated'] }),
      status: 303,
      emits: () => [],
    },
  },
  'POST /o/:orgId/console/webhooks/:webhookId/state': {
    reason: `disables or enables a subscription, as PUT /webhooks/{id} with disabled: ${CONFIGURATION}`,
    scenario: { setup: webhook, send: (b, c, m) => b.post(`${c}/webhooks/${m.webhook}/state`, { disabled: 'true' }), status: 303, emits: () => [] },
  },
  'POST /o/:orgId/console/webhooks/:webhookId/delete': {
    reason: `ends a subscription, as DELETE /webhooks/{id}: ${CONFIGURATION}`,
    scenario: { setup: webhook, send: (b, c, m) => b.post(`${c}/webhooks/${m.webhook}/delete`, {}), status: 303, emits: () => [] },
  },
  'POST /o/:orgId/console/webhooks/:webhookId/rotate': {
    reason: `gives a subscription a new signing secret, a credential of its receiver: ${CONFIGURATION}`,
    scenario: { setup: webhook, send: (b, c, m) => b.post(`${c}/webhooks/${m.webhook}/rotate`, {}), status: 200, emits: () => [] },
  },
  'POST /o/:orgId/console/webhooks/:webhookId/test': {
    reason: 'queues a webhook.ping for one receiver, as POST /webhooks/{id}/test: no change of any resource',
    scenario: { setup: webhook, send: (b, c, m) => b.post(`${c}/webhooks/${m.webhook}/test`, {}), status: 303, emits: () => [] },
  },
  'POST /o/:orgId/console/webhooks/:webhookId/recover': {
    reason: 'queues again, for one receiver, events that were each recorded once with their change, as POST /webhooks/{id}/recover',
    scenario: {
      setup: webhook,
      send: (b, c, m) => b.post(`${c}/webhooks/${m.webhook}/recover`, { since: sinceAMinuteAgo() }),
      status: 303,
      emits: () => [],
    },
  },
  'POST /o/:orgId/console/webhooks/:webhookId/deliveries/:deliveryId/resend': {
    reason: 'sends a delivery again, as POST /webhooks/{id}/deliveries/{deliveryId}/resend; its event was recorded once, with its change',
    scenario: {
      setup: async (s) => {
        const { webhook: id } = await webhook(s);
        const delivery = (await s.post(`webhooks/${id}/test`, {})) as { id: string };
        return { webhook: id!, delivery: delivery.id };
      },
      send: (b, c, m) => b.post(`${c}/webhooks/${m.webhook}/deliveries/${m.delivery}/resend`, {}),
      status: 303,
      emits: () => [],
    },
  },
  'POST /o/:orgId/console/scim/tokens': {
    reason: `makes an access token with the scim scope: ${CREDENTIALS}`,
    scenario: { send: (b, c) => b.post(`${c}/scim/tokens`, { name: 'Okta' }), status: 201, emits: () => [] },
  },
  'POST /o/:orgId/console/scim/tokens/:tokenId/rotate': {
    reason: `replaces an access token with the scim scope: ${CREDENTIALS}`,
    scenario: {
      setup: async (s) => ({ token: (await tokensService(s.db).create(s.org.id, { name: 'Okta', scopes: ['scim'] })).info.id }),
      send: (b, c, m) => b.post(`${c}/scim/tokens/${m.token}/rotate`, {}),
      status: 200,
      emits: () => [],
    },
  },
  'POST /o/:orgId/console/scim/mappings': {
    reason: `maps a SCIM attribute onto a userfield, as PUT /scimattributes: ${CONFIGURATION}`,
    scenario: {
      setup: async (s) => ({
        field: await s.create('userfields', TEXT_FIELD(await s.create('userfieldcategories', { name: 'Work', type: 'private' }))),
      }),
      send: (b, c, m) => b.post(`${c}/scim/mappings`, { attribute: 'title', userfieldId: m.field! }),
      status: 303,
      emits: () => [],
    },
  },
};

/** POST routes of the console that change no resource of the change stream, each with the reason; a scenario shows it emits nothing. */
const CONSOLE_WITHOUT_EVENTS: Record<string, { reason: string; scenario?: ConsoleScenario }> = {
  ...CONSOLE_WEBHOOKS_AND_SCIM,
  'POST /o/:orgId/console/api/tokens': {
    reason: `makes an access token: ${CREDENTIALS}`,
    scenario: { send: (b, c) => b.post(`${c}/api/tokens`, { name: 'Reports', scopes: 'read' }), status: 201, emits: () => [] },
  },
  'POST /o/:orgId/console/api/tokens/:tokenId/revoke': {
    reason: `revokes an access token: ${CREDENTIALS}`,
    scenario: {
      setup: async (s) => ({ token: (await tokensService(s.db).create(s.org.id, { name: 'Old' })).info.id }),
      send: (b, c, m) => b.post(`${c}/api/tokens/${m.token}/revoke`, {}),
      status: 303,
      emits: () => [],
    },
  },
  'POST /o/:orgId/console/api/clients': {
    reason: `makes an OAuth client: ${CREDENTIALS}`,
    scenario: { send: (b, c) => b.post(`${c}/api/clients`, { name: 'Sync job', scopes: 'read' }), status: 201, emits: () => [] },
  },
  'POST /o/:orgId/console/api/clients/:clientId/rotate': {
    reason: `gives an OAuth client a new secret: ${CREDENTIALS}`,
    scenario: {
      setup: async (s) => ({ client: (await clientsService(s.db).create(s.org.id, { name: 'Sync job' })).info.id }),
      send: (b, c, m) => b.post(`${c}/api/clients/${m.client}/rotate`, {}),
      status: 200,
      emits: () => [],
    },
  },
  'POST /o/:orgId/console/imports/uploads': {
    reason: 'keeps an uploaded file for its preview: no resource changes until the import runs',
  },
  'POST /o/:orgId/console/imports/uploads/:uploadId/preview': {
    reason: 'a dry run: says who would be added, updated, deactivated and refused, and writes nothing (test/console/imports.test.ts)',
  },
  'POST /o/:orgId/console/imports/uploads/:uploadId/run': {
    reason:
      "starts a job of POST /imports, which writes later through the import's own unit of work: its user.created and userfieldvalues.updated are checked in test/console/imports.test.ts",
  },
  'POST /o/:orgId/console/people/:userId/reset-link': {
    reason: 'makes a one-time link to choose a new password (shown, or mailed): the person changes only once it is used, through the profile service',
    scenario: {
      setup: async (s) => ({ user: await s.create('users', { email: ADA }) }),
      send: (b, c, m) => b.post(`${c}/people/${m.user}/reset-link`, {}),
      status: 200,
      emits: () => [],
    },
  },
  'POST /o/:orgId/console/api/clients/:clientId/revoke': {
    reason: `revokes an OAuth client with its tokens: ${CREDENTIALS}`,
    scenario: {
      setup: async (s) => ({ client: (await clientsService(s.db).create(s.org.id, { name: 'Sync job' })).info.id }),
      send: (b, c, m) => b.post(`${c}/api/clients/${m.client}/revoke`, {}),
      status: 303,
      emits: () => [],
    },
  },
};

/** The organization's own pages (`/o/<orgId>`) from the console's address, for the people's forms. */
const pagesOf = (console: string) => console.replace(/\/console$/, '');

/** A person of the organization, with a password and the standard agreement, who can sign in. */
async function personToSignIn(s: Setup): Promise<Made> {
  const person = await s.create('users', { email: 'matrix.person@example.com', password: PASSWORD, firstName: 'Max' });
  await s.put(`users/${person}/agreements/standard`, { agreed: true });
  return { person };
}

/**
 * The people's forms (sign-in, account, required steps, forgotten passwords), in the console's
 * matrix: the same services, so the same events as the API. They act as the administrator who sends
 * them (`self` in what the setup made) unless they sign someone in.
 */
const PAGE_CHANGES: Record<string, ConsoleScenario> = {
  'POST /o/:orgId/sign-in': {
    setup: personToSignIn,
    // Another browser of the same machine: the administrator's cookies, a new session for the person.
    send: (b, c) => b.clone().signIn(pagesOf(c).split('/')[2]!, 'matrix.person@example.com', PASSWORD),
    status: 303,
    emits: (m) => [{ type: 'user.updated', data: { id: m.person, lastLoginDate: PRESENT }, previous: { lastLoginDate: null } }],
    silent: () => [
      {
        why: 'a wrong password',
        send: (b, c) => b.clone().signIn(pagesOf(c).split('/')[2]!, 'matrix.person@example.com', 'not the password'),
        status: 401,
      },
    ],
  },
  'POST /o/:orgId/account/profile': {
    send: (b, c) => b.post(`${pagesOf(c)}/account/profile`, { firstName: 'Maxine', lastName: 'Matrix', locale: 'fr' }),
    status: 200,
    emits: (m) => [{ type: 'user.updated', data: { id: m.self, firstName: 'Maxine', lastName: 'Matrix', locale: 'fr' } }],
    silent: () => [
      { why: 'a locale that is none', send: (b, c) => b.post(`${pagesOf(c)}/account/profile`, { firstName: 'X', locale: 'no such!' }), status: 400 },
    ],
  },
  'POST /o/:orgId/account/details': {
    setup: async (s) => {
      const category = await s.create('userfieldcategories', { name: 'About you', type: 'public' });
      return { field: await s.create('userfields', { type: 'number', name: 'Desk', categoryId: category }) };
    },
    send: (b, c, m) => b.post(`${pagesOf(c)}/account/details`, { shown: m.field!, [`field.${m.field}`]: '42' }),
    status: 200,
    emits: (m) => [{ type: 'userfieldvalues.updated', data: { userId: m.self, values: { [m.field!]: 42 } } }],
    silent: (m) => [
      {
        why: 'a number that is none',
        send: (b, c) => b.post(`${pagesOf(c)}/account/details`, { shown: m.field!, [`field.${m.field}`]: 'many' }),
        status: 400,
      },
    ],
  },
  'POST /o/:orgId/account/password': {
    send: (b, c) => b.post(`${pagesOf(c)}/account/password`, { current: PASSWORD, password: 'matrix horse 2', confirm: 'matrix horse 2' }),
    status: 200,
    // A new password is a change the representation does not show: the event names the updatedDate it moved.
    emits: (m) => [{ type: 'user.updated', data: { id: m.self }, previous: { updatedDate: LONG_AGO } }],
    silent: () => [
      {
        why: 'a wrong current password',
        send: (b, c) => b.post(`${pagesOf(c)}/account/password`, { current: 'not it', password: 'matrix horse 3', confirm: 'matrix horse 3' }),
        status: 400,
      },
    ],
  },
  'POST /o/:orgId/continue': {
    // A field made required: the administrator is asked for it first.
    setup: async (s) => {
      const category = await s.create('userfieldcategories', { name: 'Required of all', type: 'public' });
      return { field: await s.create('userfields', { type: 'text', name: 'Team', categoryId: category, required: true }) };
    },
    send: (b, c, m) => b.post(`${pagesOf(c)}/continue`, { shown: m.field!, [`field.${m.field}`]: 'Blue' }),
    status: 303,
    emits: (m) => [{ type: 'userfieldvalues.updated', data: { userId: m.self, values: { [m.field!]: 'Blue' } } }],
    silent: (m) => [
      { why: 'nothing left to do', send: (b, c) => b.post(`${pagesOf(c)}/continue`, { shown: m.field!, [`field.${m.field}`]: 'Red' }), status: 303 },
    ],
  },
};

const PAGE_WITHOUT_EVENTS: Record<string, { reason: string; scenario?: ConsoleScenario }> = {
  'POST /o/:orgId/sign-out': {
    reason: "ends this browser's session, which is no resource of the change stream",
    scenario: { send: (b, c) => b.post(`${pagesOf(c)}/sign-out`, {}), status: 303, emits: () => [] },
  },
  'POST /o/:orgId/sign-out-everywhere': {
    reason: "ends the person's sessions and sign-in tokens (sessions_valid_after), which the v5 user does not show",
    scenario: { send: (b, c) => b.post(`${pagesOf(c)}/sign-out-everywhere`, {}), status: 303, emits: () => [] },
  },
  'POST /o/:orgId/forgot-password': {
    reason: 'makes a link to choose a password and mails it; the password it sets is the next route',
    scenario: {
      send: (b, c) => b.post(`${pagesOf(c)}/forgot-password`, { email: 'console.organizationadministrator@example.com' }),
      status: 200,
      emits: () => [],
    },
  },
  'POST /o/:orgId/reset-password/:secret': {
    reason:
      "sets the link's holder's password through the users service, as PUT /users/{id} does (its user.updated); its link is mailed, " +
      'so test/accounts/password-reset.test.ts drives it; an unknown link (the scenario) writes nothing',
    scenario: {
      send: (b, c) => b.post(`${pagesOf(c)}/reset-password/tpr_unknown`, { password: 'matrix horse 4', confirm: 'matrix horse 4' }),
      status: 410,
      emits: () => [],
    },
  },
  'POST /o/:orgId/interaction/:uid': {
    reason: "an application's sign-in: the same sign-in as POST /o/:orgId/sign-in (its user.updated), inside an OpenID Connect interaction",
  },
  'POST /o/:orgId/interaction/:uid/consent': {
    reason: "records the provider's grant of an application, which is no resource of the change stream",
  },
  'POST /o/:orgId/interaction/:uid/abort': {
    reason: "ends an application's sign-in unfinished; nothing is written but the provider's interaction",
  },
};

/**
 * The server operator's forms (/o/operator): no organization's person sends them, so they have no scenario
 * here; test/console/operator.test.ts signs in as the operator and checks what they write.
 */
const OPERATOR_WITHOUT_EVENTS: Record<string, { reason: string; scenario?: ConsoleScenario }> = {
  'POST /o/operator/sign-in': { reason: "starts the operator's session, a signed cookie: nothing is written" },
  'POST /o/operator/sign-out': { reason: "ends the operator's session (its cookie): nothing is written" },
  'POST /o/operator/organizations': {
    reason:
      'makes an organization, outside any stream, and in it its first administrator through the users service (its user.created) and, ' +
      "for a sandbox, the sample through the seed's services (their events): test/console/operator.test.ts reads them in the new organization's feed",
  },
  'POST /o/operator/organizations/:orgId/reset': {
    reason:
      "deletes a sandbox's data as deleting an organization does, with no event, then makes the sample again through the services " +
      '(their events, as on creation): test/console/operator.test.ts',
  },
};

const FORM_CHANGES = { ...CONSOLE_CHANGES, ...PAGE_CHANGES };
const FORMS_WITHOUT_EVENTS = { ...CONSOLE_WITHOUT_EVENTS, ...PAGE_WITHOUT_EVENTS, ...OPERATOR_WITHOUT_EVENTS };

/** A scenario as it ran: its organization, what its setup made, the change's request, answer and events. */
interface Run {
  key: string;
  route: ApiRoute;
  scenario: Scenario;
  emitsEvents: boolean;
  org: MatrixOrg;
  made: Made;
  request: RouteRequest;
  headers: Record<string, string>;
  answer: Response;
  events: any[];
  /** The organization's newest event: where the feed is read from after the next request. */
  cursor: string | undefined;
  /** The updatedDate of each resource the change's events are about, by path, as GET answered it after the change. */
  updatedDates: Map<string, string | undefined>;
  /** The scenario's derived reads before and after the change, by path. */
  derivedBefore: Map<string, unknown>;
  derivedAfter: Map<string, unknown>;
}

/** The tables of resources that carry updatedDate; every row of a scenario's organization is set to LONG_AGO before its change. */
const DATED_TABLES = ['users', 'userfields', 'userfield_categories', 'offerings', 'offering_categories', 'registrations', 'agreements'] as const;

const COLLECTION_OF: Record<string, string> = {
  user: 'users',
  userfield: 'userfields',
  userfieldcategory: 'userfieldcategories',
  offering: 'offerings',
  offeringcategory: 'offeringcategories',
  registration: 'registrations',
  agreement: 'agreements',
};

/** The path of the resource whose updatedDate an event carries: a user's values and agreements are the user's. */
function resourcePath(event: { type: string; data: any }): string {
  const prefix = event.type.slice(0, event.type.indexOf('.'));
  if (prefix === 'userfieldvalues' || prefix === 'useragreement') return `users/${event.data.userId}`;
  return `${COLLECTION_OF[prefix]}/${event.data.id ?? event.data.type}`;
}

/** The write routes by key, each at /api/v5 or /scim/v2 (/dc/api/v5 is an alias of /api/v5). */
function writeRoutes(routes: readonly ApiRoute[]): Map<string, ApiRoute> {
  const writes = new Map<string, ApiRoute>();
  for (const route of routes.filter(isWrite)) if (!route.url.startsWith('/dc/')) writes.set(route.key, route);
  return writes;
}

/** The POSTs of /api/v5 (SCIM follows RFC 7644, which has no Idempotency-Key). */
const takesIdempotencyKey = (route: ApiRoute) => route.api === 'v5' && route.method === 'POST';

/** What a POST made: the id its Location names (v5) or its SCIM id. */
function createdId(route: ApiRoute, answer: Response): string | undefined {
  if (route.method !== 'POST' || answer.statusCode !== 201) return undefined;
  return route.api === 'scim' ? answer.json().id : String(answer.headers.location).split('/').pop();
}

/** What changed between two answers, one line per property (nested ones by their dotted path). */
function differences(before: unknown, after: unknown, path = ''): string[] {
  if (isDeepStrictEqual(before, after)) return [];
  const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
  if (isObject(before) && isObject(after)) {
    return [...new Set([...Object.keys(before), ...Object.keys(after)])].flatMap((key) =>
      differences(before[key], after[key], path ? `${path}.${key}` : key),
    );
  }
  return [`${path || 'the body'} ${JSON.stringify(before)} → ${JSON.stringify(after)}`];
}

/** Resumes once the clock is past the second of `ms`: a timestamp (to the second) that moves after this is seen to move. */
async function pastTheSecondOf(ms: number): Promise<void> {
  const wait = Math.floor(ms / 1000) * 1000 + 1001 - Date.now();
  if (wait > 0) await sleep(wait);
}

forEachEngine('Change stream matrix from the route table', (h) => {
  let writes: Map<string, ApiRoute>;
  const runs: Run[] = [];
  /** Why a scenario could not make its change, by route key. */
  const failures = new Map<string, string>();
  let changedAt = 0;

  async function newOrganization(key: string): Promise<MatrixOrg> {
    const org = await h.createOrganization(`Matrix ${key}`);
    return { ...org, scimToken: await h.token(org.id, { scopes: ['scim'] }) };
  }

  function setupIn(org: MatrixOrg): Setup {
    const succeeded = (what: string, response: Response) => {
      if (response.statusCode >= 300) throw new Error(`setup: ${what} answered ${response.statusCode}: ${response.body}`);
      return response;
    };
    const v5 = { token: org.token };
    return {
      org,
      db: h.database.db,
      async create(collection, body) {
        const response = succeeded(`POST ${collection}`, await h.post(collection, body, v5));
        return String(response.headers.location).split('/').pop()!;
      },
      async put(path, body) {
        succeeded(`PUT ${path}`, await h.put(path, body, v5));
      },
      async post(path, body) {
        return succeeded(`POST ${path}`, await h.post(path, body, v5)).json();
      },
      async scimCreate(collection, body) {
        const document = { schemas: [collection === 'Users' ? SCIM_USER : SCIM_GROUP], ...body };
        return succeeded(`POST /scim/v2/${collection}`, await h.request('POST', `/scim/v2/${collection}`, document, { token: org.scimToken })).json()
          .id;
      },
    };
  }

  function send(org: MatrixOrg, route: ApiRoute, request: RouteRequest, headers: Record<string, string> = {}): Promise<Response> {
    const path = fillPath(route, (param) => {
      const value = request.params?.[param];
      if (value === undefined) throw new Error(`no value for the path parameter ${param}`);
      return value;
    });
    const token = route.api === 'scim' ? org.scimToken : org.token;
    return h.request(route.method, path, request.body, {
      token,
      headers: request.contentType ? { 'content-type': request.contentType, ...headers } : headers,
      ...(request.query ? { query: request.query } : {}),
    });
  }

  /** The bodies of `paths` (under /api/v5, or /scim/v2/...) read as `org`, by path. */
  async function readPaths(org: MatrixOrg, paths: readonly string[]): Promise<Map<string, unknown>> {
    const bodies = new Map<string, unknown>();
    for (const path of paths) {
      const response = await h.get(path, { token: path.startsWith('/scim/') ? org.scimToken : org.token });
      if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}: ${response.body}`);
      bodies.set(path, response.json());
    }
    return bodies;
  }

  /** The bodies of a scenario's reads, by path. */
  function read(run: Run): Promise<Map<string, unknown>> {
    return readPaths(run.org, run.scenario.reads?.(run.made) ?? []);
  }

  /** The updatedDate of each resource `events` are about, as GET answers it now (none for a resource gone). */
  async function updatedDatesOf(org: MatrixOrg, events: readonly any[]): Promise<Map<string, string | undefined>> {
    const dates = new Map<string, string | undefined>();
    for (const path of new Set(events.map(resourcePath))) {
      const response = await h.get(path, { token: org.token });
      if (response.statusCode === 200) dates.set(path, response.json().updatedDate);
    }
    return dates;
  }

  /** Every updatedDate of the organization set to LONG_AGO: what the change moves shows, and so does the date before it. */
  async function setBack(org: MatrixOrg): Promise<void> {
    for (const table of DATED_TABLES) {
      await sql`update ${sql.table(table)} set updated_date = ${LONG_AGO} where org_id = ${org.id}`.execute(h.database.db);
    }
  }

  /** What a request changed of the scenario's reads, one line per property. */
  async function changedSince(run: Run, before: Map<string, unknown>): Promise<string[]> {
    const after = await read(run);
    return [...before].flatMap(([path, body]) => differences(body, after.get(path)).map((line) => `GET ${path}: ${line}`));
  }

  /** Sends `request` as the scenario's organization: the answer, and a line for each event it emitted. */
  async function sendWatching(run: Run, request: RouteRequest, headers?: Record<string, string>) {
    const response = await send(run.org, run.route, request, headers);
    const events = await eventsAfter(h, run.cursor, run.org.token);
    run.cursor = events.at(-1)?.id ?? run.cursor;
    return { response, emitted: events.map((event) => `emitted ${event.type} ${JSON.stringify(event.data)}`.slice(0, 300)) };
  }

  /** Runs `check` on each run, a throw being one more problem of its route. */
  async function eachRun(selected: readonly Run[], check: (run: Run, problems: string[]) => Promise<void>): Promise<string[]> {
    const problems: string[] = [];
    for (const run of selected) {
      const found: string[] = [];
      try {
        await check(run, found);
      } catch (error) {
        found.push((error as Error).message);
      }
      problems.push(...found.map((problem) => `${run.key}: ${problem}`));
    }
    return problems;
  }

  before(async () => {
    writes = writeRoutes(routeTable(h.app).api);
    const scenarios: [string, Scenario, boolean][] = [
      ...Object.entries(CHANGES).map(([key, scenario]): [string, Scenario, boolean] => [key, scenario, true]),
      ...Object.entries(WITHOUT_EVENTS).flatMap(([key, { scenario }]): [string, Scenario, boolean][] => (scenario ? [[key, scenario, false]] : [])),
    ];
    for (const [key, scenario, emitsEvents] of scenarios) {
      const route = writes.get(key);
      if (!route) continue; // the coverage test names it
      try {
        const org = await newOrganization(key);
        const made = (await scenario.setup?.(setupIn(org))) ?? {};
        const request = scenario.change(made);
        const headers: Record<string, string> = takesIdempotencyKey(route) ? { 'idempotency-key': `change matrix ${key}` } : {};
        await setBack(org);
        const derivedPaths = scenario.derived?.(made).map((read) => read.path) ?? [];
        const derivedBefore = await readPaths(org, derivedPaths);
        const cursor = await latestEventId(h, org.token);
        const answer = await send(org, route, request, headers);
        if (answer.statusCode >= 300) throw new Error(`the change answered ${answer.statusCode}: ${answer.body}`);
        const created = createdId(route, answer);
        if (created) made.created = created;
        const events = await eventsAfter(h, cursor, org.token);
        const [updatedDates, derivedAfter] = [await updatedDatesOf(org, events), await readPaths(org, derivedPaths)];
        runs.push({
          key,
          route,
          scenario,
          emitsEvents,
          org,
          made,
          request,
          headers,
          answer,
          events,
          cursor: events.at(-1)?.id ?? cursor,
          updatedDates,
          derivedBefore,
          derivedAfter,
        });
      } catch (error) {
        failures.set(key, (error as Error).message);
      }
    }
    changedAt = Date.now();
  });

  it('covers every write route: each emits its events here, or none by design (with the reason); no entry names a route that is gone', (t) => {
    const keys = [...writes.keys()];
    const listed = [...Object.keys(CHANGES), ...Object.keys(WITHOUT_EVENTS)];
    t.diagnostic(
      `the matrix covers ${keys.filter((key) => listed.includes(key)).length} of ${keys.length} write routes: ` +
        `${Object.keys(CHANGES).length} with events, ${Object.keys(WITHOUT_EVENTS).length} without by design`,
    );
    assert.deepEqual(
      keys.filter((key) => !listed.includes(key)),
      [],
      'write routes the matrix does not know: give each a scenario in CHANGES with the events of the contract, or its reason in WITHOUT_EVENTS',
    );
    assert.deepEqual(
      listed.filter((key) => !writes.has(key)),
      [],
      'entries naming no route of the app',
    );
    assert.deepEqual(
      Object.keys(CHANGES).filter((key) => key in WITHOUT_EVENTS),
      [],
      'routes both with and without events',
    );
    assert.deepEqual(
      Object.entries(WITHOUT_EVENTS).flatMap(([key, entry]) =>
        writes.get(key) && takesIdempotencyKey(writes.get(key)!) && !entry.scenario ? [key] : [],
      ),
      [],
      'POST routes without events need a scenario, for their Idempotency-Key replay',
    );
  });

  it('emits on a real change exactly the documented events, each once, naming what changed, with the previous values of an update', () => {
    const problems = [...failures].map(([key, why]) => `${key}: ${why}`);
    for (const run of runs) {
      const expected = run.scenario.emits(run.made);
      for (const event of expected) {
        if (isUpdateType(event.type) && !event.previous) problems.push(`${run.key}: the matrix names no previous values for ${event.type}`);
      }
      problems.push(...eventProblems(run.events, expected, run.org.id).map((problem) => `${run.key}: ${problem}`));
    }
    assert.deepEqual(problems, []);
  });

  it("keeps a mirror's updatedDate right: a resource's last event carries it after the change, each previousAttributes the one before", () => {
    const problems: string[] = [];
    for (const run of runs) {
      // A resource the change created had no updatedDate before it.
      const created = new Set(run.events.filter((event) => event.type.endsWith('.created')).map(resourcePath));
      const last = new Map<string, any>();
      for (const event of run.events) {
        const path = resourcePath(event);
        last.set(path, event);
        const before = created.has(path) ? null : LONG_AGO;
        const previous = event.previousAttributes?.updatedDate;
        const moved = event.data.updatedDate !== undefined && event.data.updatedDate !== before;
        if (isUpdateType(event.type) && (previous !== undefined || moved) && previous !== before) {
          problems.push(
            `${run.key}: ${event.type} of ${path}: previousAttributes.updatedDate ${previous}, not ${before}, the date before the request`,
          );
        }
      }
      for (const [path, event] of last) {
        if (event.type.endsWith('.deleted')) continue;
        if (!run.updatedDates.has(path)) problems.push(`${run.key}: ${event.type} of ${path}, which GET does not find`);
        else if (event.data.updatedDate !== run.updatedDates.get(path)) {
          problems.push(
            `${run.key}: ${event.type}: data.updatedDate ${event.data.updatedDate}, not ${run.updatedDates.get(path)} as GET ${path} answers`,
          );
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it('changes, with no event of its own, what docs/sync.md lists as derived from the events, as it says', async () => {
    const sync = (await readFile(new URL('../../../docs/sync.md', import.meta.url), 'utf8')).replace(/\s+/g, ' ');
    const problems: string[] = [];
    for (const run of runs) {
      for (const { path, shows, readme: words } of run.scenario.derived?.(run.made) ?? []) {
        if (!sync.includes(words)) problems.push(`${run.key}: docs/sync.md does not say "${words}"`);
        const [before, after] = [run.derivedBefore.get(path), run.derivedAfter.get(path) as Record<string, unknown>];
        if (isDeepStrictEqual(before, after)) problems.push(`${run.key}: GET ${path} did not change`);
        for (const [property, value] of Object.entries(shows)) {
          if (!isDeepStrictEqual(after[property], value))
            problems.push(`${run.key}: GET ${path}: ${property} ${JSON.stringify(after[property])}, not ${JSON.stringify(value)}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it('emits nothing and changes nothing, updatedDate included, for the identical request again', async () => {
    await pastTheSecondOf(changedAt);
    // A POST of /api/v5 sent again carries its Idempotency-Key: that is the replay, tested below.
    const repeated = runs.filter((run) => run.emitsEvents && !takesIdempotencyKey(run.route));
    const problems = await eachRun(repeated, async (run, found) => {
      const before = await read(run);
      const { response, emitted } = await sendWatching(run, run.request, run.headers);
      const status = run.scenario.repeatStatus ?? (run.route.method === 'DELETE' ? 404 : run.answer.statusCode);
      if (response.statusCode !== status) found.push(`again: ${response.statusCode} ${response.body}, not ${status}`);
      found.push(...emitted, ...(await changedSince(run, before)).map((change) => `again changed ${change}`));
    });
    assert.deepEqual(problems, []);
  });

  it('emits nothing for a refused request (an invalid body, an unknown id, a conflict)', async () => {
    const problems = await eachRun(
      runs.filter((run) => run.emitsEvents),
      async (run, found) => {
        const unknownId: Refusal[] = run.route.params.includes('id')
          ? [{ why: 'an unknown id', status: 404, params: { ...run.request.params, id: UNKNOWN_ID }, body: run.request.body }]
          : [];
        const refusals = [...unknownId, ...(run.scenario.refusals?.(run.made) ?? [])];
        if (refusals.length === 0) found.push('the matrix names no refused request');
        for (const refusal of refusals) {
          const { response, emitted } = await sendWatching(run, { ...refusal, params: { ...run.request.params, ...refusal.params } });
          if (response.statusCode !== refusal.status) found.push(`${refusal.why}: ${response.statusCode} ${response.body}, not ${refusal.status}`);
          found.push(...emitted.map((line) => `${refusal.why}: ${line}`));
        }
      },
    );
    assert.deepEqual(problems, []);
  });

  it('replays every POST with its Idempotency-Key: the same status and body, Idempotent-Replayed: true, no second event', async (t) => {
    await pastTheSecondOf(changedAt);
    const replayed = runs.filter((run) => takesIdempotencyKey(run.route));
    t.diagnostic(`${replayed.length} POST routes replayed`);
    const problems = [...writes.values()]
      .filter((route) => takesIdempotencyKey(route) && !replayed.some((run) => run.route === route) && !failures.has(route.key))
      .map((route) => `${route.key}: no scenario to replay`);
    problems.push(
      ...(await eachRun(replayed, async (run, found) => {
        const before = await read(run);
        const { response, emitted } = await sendWatching(run, run.request, run.headers);
        const first = run.answer;
        // A webhook's signing secret is shown once: its replay is the first answer without it.
        const replayOf = (body: string) => (run.key === 'POST /webhooks' ? JSON.stringify({ ...JSON.parse(body), secret: undefined }) : body);
        if (
          response.statusCode !== first.statusCode ||
          response.body !== replayOf(first.body) ||
          response.headers.location !== first.headers.location
        ) {
          found.push(
            `replay: ${response.statusCode} ${String(response.headers.location)} ${response.body}, first ${first.statusCode} ${String(first.headers.location)} ${first.body}`,
          );
        }
        if (response.headers['idempotent-replayed'] !== 'true')
          found.push(`replay: Idempotent-Replayed ${String(response.headers['idempotent-replayed'])}`);
        found.push(...emitted, ...(await changedSince(run, before)).map((change) => `the replay changed ${change}`));
      })),
    );
    assert.deepEqual(problems, []);
  });
  /** The console's scenarios as they ran: the form's answer and events. */
  const consoleRuns: {
    key: string;
    scenario: ConsoleScenario;
    org: MatrixOrg;
    made: Made;
    browser: PageBrowser;
    events: any[];
    readmit: () => Promise<void>;
  }[] = [];
  const consoleFailures = new Map<string, string>();
  let consoleWrites: string[] = [];

  before(async () => {
    consoleWrites = routeTable(h.app).other.filter((route) => route.startsWith('POST /o/'));
    const scenarios = [
      ...Object.entries(FORM_CHANGES),
      ...Object.entries(FORMS_WITHOUT_EVENTS).flatMap(([key, { scenario }]): [string, ConsoleScenario][] => (scenario ? [[key, scenario]] : [])),
    ];
    for (const [key, scenario] of scenarios) {
      try {
        const org = await newOrganization(key);
        const setUp = (await scenario.setup?.(setupIn(org))) ?? {};
        const email = `console.${scenario.kind ?? 'organizationAdministrator'}@example.com`.toLowerCase();
        const admin = await createPerson(h, { email, password: PASSWORD, accountType: scenario.kind ?? 'organizationAdministrator' }, org.token);
        // The people's forms act on the person who sends them.
        const made: Made = { ...setUp, self: admin };
        // The administrator agrees to every agreement as it reads (again, after a revision), or the console asks them to first.
        const readmit = async () => {
          for (const type of ['standard', 'custom']) await h.put(`users/${admin}/agreements/${type}`, { agreed: true }, { token: org.token });
        };
        await readmit();
        const browser = browserOf(h);
        const signedIn = await browser.signIn(org.id, email, PASSWORD);
        if (signedIn.status !== 303) throw new Error(`setup: the sign-in answered ${signedIn.status}`);
        await setBack(org);
        const cursor = await latestEventId(h, org.token);
        const answer = await scenario.send(browser, `/o/${org.id}/console`, made);
        if (answer.status !== scenario.status)
          throw new Error(`the form answered ${answer.status}, not ${scenario.status}: ${answer.body.slice(0, 500)}`);
        consoleRuns.push({ key, scenario, org, made, browser, events: await eventsAfter(h, cursor, org.token), readmit });
      } catch (error) {
        consoleFailures.set(key, (error as Error).message);
      }
    }
  });

  it('covers every POST route of the pages and the console: each form emits its events here, or none by design (with the reason)', (t) => {
    const listed = [...Object.keys(FORM_CHANGES), ...Object.keys(FORMS_WITHOUT_EVENTS)];
    t.diagnostic(
      `${consoleWrites.length} POST routes of the pages and the console: ${Object.keys(FORM_CHANGES).length} with events, ${Object.keys(FORMS_WITHOUT_EVENTS).length} without`,
    );
    assert.deepEqual(
      consoleWrites.filter((key) => !listed.includes(key)),
      [],
      'POST routes of the pages the matrix does not know: give each a scenario in CONSOLE_CHANGES or PAGE_CHANGES, or its reason in CONSOLE_WITHOUT_EVENTS or PAGE_WITHOUT_EVENTS',
    );
    assert.deepEqual(
      listed.filter((key) => !consoleWrites.includes(key)),
      [],
      'entries naming no route of the app',
    );
    assert.equal(new Set(listed).size, listed.length, 'a route in both lists');
  });

  it("emits for each form of the console exactly the events of the API's own change, and keeps a mirror's updatedDate right", async () => {
    const problems = [...consoleFailures].map(([key, why]) => `${key}: ${why}`);
    for (const run of consoleRuns) {
      problems.push(...eventProblems(run.events, run.scenario.emits(run.made), run.org.id).map((problem) => `${run.key}: ${problem}`));
      const created = new Set(run.events.filter((event) => event.type.endsWith('.created')).map(resourcePath));
      const updatedDates = await updatedDatesOf(run.org, run.events);
      const last = new Map(run.events.map((event) => [resourcePath(event), event]));
      for (const event of run.events) {
        const previous = event.previousAttributes?.updatedDate;
        const before = created.has(resourcePath(event)) ? null : LONG_AGO;
        if (isUpdateType(event.type) && previous !== undefined && previous !== before) {
          problems.push(`${run.key}: ${event.type}: previousAttributes.updatedDate ${previous}, not ${before}`);
        }
      }
      for (const [path, event] of last) {
        if (!event.type.endsWith('.deleted') && event.data.updatedDate !== updatedDates.get(path)) {
          problems.push(
            `${run.key}: ${event.type}: data.updatedDate ${event.data.updatedDate}, not ${updatedDates.get(path)} as GET ${path} answers`,
          );
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it('emits nothing for a form of the console refused, or only previewed', async () => {
    const problems: string[] = [];
    for (const run of consoleRuns) {
      const silent = run.scenario.silent?.(run.made) ?? [];
      if (silent.length === 0 && run.key in FORM_CHANGES) problems.push(`${run.key}: the matrix names no refused form`);
      for (const form of silent) {
        await run.readmit();
        const cursor = await latestEventId(h, run.org.token);
        const answer = await form.send(run.browser, `/o/${run.org.id}/console`);
        if (answer.status !== form.status) problems.push(`${run.key}, ${form.why}: ${answer.status}, not ${form.status}`);
        const emitted = await eventsAfter(h, cursor, run.org.token);
        problems.push(...emitted.map((event) => `${run.key}, ${form.why}: emitted ${event.type} ${JSON.stringify(event.data)}`.slice(0, 300)));
      }
    }
    assert.deepEqual(problems, []);
  });
});
