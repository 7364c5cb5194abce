import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventProblems, eventsAfter, isUpdateType, latestEventId, PRESENT, type ExpectedEvent } from '../helpers/events.js';
import { forEachEngine, type Response } from '../helpers/harness.js';
import { fillPath, isWrite, routeTable, type ApiRoute } from '../helpers/route-table.js';
import { SCIM_GROUP, SCIM_PATCH, SCIM_USER, UNKNOWN_ID } from '../helpers/tenants.js';

/**
 * The change stream's contract (README, "Keeping another system in sync"), route by route, from the
 * route table: every write route under /api/v5 and /scim/v2 has a scenario in CHANGES naming the
 * events a real change emits, or is in WITHOUT_EVENTS with the reason it emits none. A new route
 * fails the matrix until it is one or the other. Each scenario runs in an organization of its own,
 * so the organization's feed holds only what the scenario did. For every scenario:
 *
 * - the change emits exactly the events named, each once, naming what changed, with previousAttributes;
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
}

const ADA = 'ada@example.com';
const GRACE = 'grace@example.com';
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
  const user = await s.scimCreate('Users', { userName: ADA, name: { givenName: 'Ada' }, title: 'Engineer' });
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
    setup: async (s) => ({ user: await s.create('users', { email: ADA, firstName: 'Ada' }) }),
    change: (m) => ({ params: { id: m.user }, body: { firstName: 'Grace' } }),
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
      return {};
    },
    change: () => ({ params: { type: 'custom' }, body: { title: 'House rules, revised' } }),
    emits: () => [{ type: 'agreement.updated', data: { type: 'custom', title: 'House rules, revised' }, previous: { title: 'House rules' } }],
    reads: () => ['agreements/custom'],
    refusals: () => [
      { why: 'a custom agreement not required', status: 400, params: { type: 'custom' }, body: { required: false } },
      { why: 'an unknown type', status: 404, params: { type: 'bylaws' }, body: { title: 'Bylaws', text: 'None' } },
    ],
  },
  'PUT /users/:id/agreements/:type': {
    setup: async (s) => ({ user: await s.create('users', { email: ADA }) }),
    change: (m) => ({ params: { id: m.user, type: 'standard' }, body: { agreed: true } }),
    emits: (m) => [{ type: 'useragreement.updated', data: { userId: m.user, type: 'standard', agreed: true }, previous: { agreed: false } }],
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
    // Only the mapped value changes: the user's own properties stay, so no user.updated.
    setup: scimUser,
    change: (m) => ({ params: { id: m.user }, body: { schemas: [SCIM_USER], userName: ADA, name: { givenName: 'Ada' }, title: 'Architect' } }),
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
      body: scimPatch({ op: 'replace', path: 'name.givenName', value: 'Grace' }, { op: 'replace', path: 'title', value: 'Architect' }),
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

  /** The bodies of a scenario's reads, by path. */
  async function read(run: Run): Promise<Map<string, unknown>> {
    const bodies = new Map<string, unknown>();
    for (const path of run.scenario.reads?.(run.made) ?? []) {
      const response = await h.get(path, { token: path.startsWith('/scim/') ? run.org.scimToken : run.org.token });
      if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}: ${response.body}`);
      bodies.set(path, response.json());
    }
    return bodies;
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
        const cursor = await latestEventId(h, org.token);
        const answer = await send(org, route, request, headers);
        if (answer.statusCode >= 300) throw new Error(`the change answered ${answer.statusCode}: ${answer.body}`);
        const created = createdId(route, answer);
        if (created) made.created = created;
        const events = await eventsAfter(h, cursor, org.token);
        runs.push({ key, route, scenario, emitsEvents, org, made, request, headers, answer, events, cursor: events.at(-1)?.id ?? cursor });
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
});
