/**
 * What each benchmark scenario sends. A scenario turns the sampled dataset into a request plan: plain
 * data, so the load generator (another process) can follow it.
 */

/** Ids and keys drawn from the dataset a server runs on. */
export interface Sample {
  users: number;
  userIds: string[];
  emails: string[];
  /** Active registrations, each ejected once at most. */
  activeRegistrationIds: string[];
  /** A body of ten userfield values as GET returned them for a seeded user. */
  userfieldValues: Record<string, unknown>;
}

/** Requests for the load generator: `paths` in turn; `{n}` in the body becomes a number unique to the run. */
export interface RequestPlan {
  method: 'GET' | 'POST' | 'PUT';
  paths: string[];
  /** Each path is used once, across every round (the ejected registration cannot be ejected again). */
  consume?: boolean;
  body?: string;
  /** Bodies in turn instead of `body` (a sign-in's form of each person). */
  bodies?: string[];
  /** More request headers (a form's Content-Type, a cookie). */
  headers?: Record<string, string>;
  /** A status that counts as an answer, besides 2xx (a sign-in answers 303). */
  expect?: number;
  /** Bearer tokens in turn with the paths, instead of the job's (each path read with its organization's token). */
  tokens?: string[];
}

export interface Scenario {
  id: string;
  title: string;
  /** Also measured on the large dataset, to compare latencies (issue targets: within 1.3x). */
  scale?: boolean;
  /** Connections for this scenario instead of the run's: a page too slow for 50 at once is measured one at a time. */
  connections?: number;
  /** The floor is the raw hash rate rather than a bare server. */
  hashFloor?: boolean;
  plan(sample: Sample, runTag: string): RequestPlan;
}

const API = '/api/v5';
/** The page asked of the deep-offset scenario: the last hundred users seeded. */
const DEEP_PAGE = 100;

export const SCENARIOS: readonly Scenario[] = [
  {
    id: 'get-user',
    title: 'GET /users/{id}',
    scale: true,
    plan: (s) => ({ method: 'GET', paths: s.userIds.map((id) => `${API}/users/${id}`) }),
  },
  {
    id: 'find-by-email',
    title: 'GET /users?email=',
    scale: true,
    plan: (s) => ({ method: 'GET', paths: s.emails.map((email) => `${API}/users?email=${encodeURIComponent(email)}`) }),
  },
  { id: 'list-100', title: 'GET /users?limit=100', plan: () => ({ method: 'GET', paths: [`${API}/users?limit=100`] }) },
  {
    id: 'deep-offset',
    title: 'GET /users?offset=<deep> (1 connection)',
    scale: true,
    connections: 1,
    plan: (s) => ({ method: 'GET', paths: [`${API}/users?limit=${DEEP_PAGE}&offset=${Math.max(0, s.users - DEEP_PAGE)}`] }),
  },
  {
    id: 'get-userfield-values',
    title: 'GET /users/{id}/userfieldvalues',
    plan: (s) => ({ method: 'GET', paths: s.userIds.map((id) => `${API}/users/${id}/userfieldvalues`) }),
  },
  {
    id: 'registrations-of-user',
    title: 'GET /registrations?userId=',
    plan: (s) => ({ method: 'GET', paths: s.userIds.map((id) => `${API}/registrations?userId=${id}`) }),
  },
  {
    id: 'put-userfield-values',
    title: 'PUT /users/{id}/userfieldvalues (10)',
    plan: (s) => ({ method: 'PUT', paths: s.userIds.map((id) => `${API}/users/${id}/userfieldvalues`), body: JSON.stringify(s.userfieldValues) }),
  },
  {
    id: 'eject-registration',
    title: 'PUT /registrations/{id} (eject)',
    plan: (s) => ({
      method: 'PUT',
      paths: s.activeRegistrationIds.map((id) => `${API}/registrations/${id}`),
      consume: true,
      body: JSON.stringify({ status: 'ejected' }),
    }),
  },
  {
    id: 'create-user',
    title: 'POST /users',
    plan: (_s, runTag) => ({
      method: 'POST',
      paths: [`${API}/users`],
      body: JSON.stringify({ email: `bench.${runTag}.{n}@example.com`, firstName: 'Bench', lastName: 'Mark', tags: ['bench'] }),
    }),
  },
  {
    id: 'create-user-password',
    title: 'POST /users with a password',
    hashFloor: true,
    plan: (_s, runTag) => ({
      method: 'POST',
      paths: [`${API}/users`],
      body: JSON.stringify({ email: `bench.pw.${runTag}.{n}@example.com`, firstName: 'Bench', password: 'benchmark1' }),
    }),
  },
];

/** The scenarios named in `ids` (all when empty), in the order above; unknown names are an error. */
export function selectScenarios(ids: readonly string[]): Scenario[] {
  const unknown = ids.filter((id) => !SCENARIOS.some((scenario) => scenario.id === id));
  if (unknown.length > 0) throw new Error(`Unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.id).join(', ')}`);
  return SCENARIOS.filter((scenario) => ids.length === 0 || ids.includes(scenario.id));
}

/** The n-th request of a plan: its path, body and token (when the plan gives each its own). */
export function requestOf(plan: RequestPlan, n: number, unique: number | string): { path: string; body?: string; token?: string } {
  const path = plan.paths[n % plan.paths.length]!;
  const body = plan.bodies ? plan.bodies[n % plan.bodies.length] : plan.body;
  const token = plan.tokens?.[n % plan.tokens.length];
  return { path, ...(body === undefined ? {} : { body: body.replaceAll('{n}', String(unique)) }), ...(token === undefined ? {} : { token }) };
}
