import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import fc from 'fast-check';
import { ResponseContract } from '../helpers/contract.js';
import { changedTables, fingerprinter } from '../helpers/fingerprint.js';
import { IdPool, requestsFor, type FuzzRequest } from '../helpers/fuzz.js';
import { forEachEngine, type Response } from '../helpers/harness.js';
import { routeTable, type ApiRoute } from '../helpers/route-table.js';
import { seedOrganization, type SeededOrganization } from '../helpers/tenants.js';

/** Requests per engine; FUZZ_RUNS raises it for a longer hunt, FUZZ_SEED replays a run. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 20_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

/**
 * Requests the fuzzing once found answered wrongly, kept as they were found: `{kind}` stands for an
 * id of the caller's own.
 */
const REGRESSIONS: { key: string; url: string; payload?: string; was: string }[] = [
  {
    key: 'POST /scim/v2/Users',
    url: '/scim/v2/Users?excludedAttributes=constructor',
    payload: '{"userName":"scim264@example.com"}',
    was: '400 for the unknown attribute, after the user was created',
  },
  {
    key: 'PUT /scim/v2/Users/:id',
    url: '/scim/v2/Users/{Users}?excludedAttributes=%2500',
    payload: '{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"replaced@example.com"}',
    was: '400 for the unknown attribute, after the user was replaced',
  },
  {
    key: 'POST /scim/v2/Groups',
    url: '/scim/v2/Groups?attributes=%3Cscript%3Ealert%281%29%3C%2Fscript%3E',
    payload: '{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"Group 238"}',
    was: '400 for the unknown attribute, after the group was created',
  },
  {
    key: 'PUT /offerings/:id',
    url: '/api/v5/offerings/{offerings}',
    payload: '{"title":"Course 179","\\n":9223372036854776000}',
    was: '400 with "fieldErrors": {}, the name with a line break dropped',
  },
  { key: 'GET /offeringcategories', url: '/dc/api/v5/offeringcategories?X%24%0D=1', was: '400 with "fieldErrors": {}' },
  { key: 'GET /scim/v2/Users/:id', url: '/scim/v2/Users/%C0%AF', was: '400 in the v5 shape, not SCIM’s' },
  { key: 'DELETE /scim/v2/Groups/:id', url: '/scim/v2/Groups/%', was: '400 in the v5 shape, not SCIM’s' },
];

forEachEngine('Fuzzing every route from its schemas', (h) => {
  let routes: ApiRoute[];
  let caller: SeededOrganization;
  let ids: IdPool;
  let contract: ResponseContract;
  let fingerprint: () => Promise<string>;

  before(async () => {
    routes = routeTable(h.app).api;
    caller = await seedOrganization(h, 'alphaorg');
    const other = await seedOrganization(h, 'bravoorg');
    ids = new IdPool(caller.ids, other.ids);
    contract = new ResponseContract((await h.get('/api/v5/openapi.json', { token: null })).json());
    fingerprint = await fingerprinter(h.database.db, h.engine);
  });

  async function send(request: FuzzRequest): Promise<Response> {
    return await h.app.inject({
      method: request.route.method as never,
      url: request.url,
      headers: {
        authorization: `Bearer ${request.route.api === 'scim' ? caller.scimToken : caller.token}`,
        ...(request.payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(request.payload === undefined ? {} : { payload: request.payload }),
    });
  }

  /** What is wrong with the answer to `request`, if anything; `last` is the database's fingerprint before it. */
  function problemOf(request: FuzzRequest, response: Response, last: string, now: string): string | undefined {
    const changed = changedTables(last, now);
    const status = response.statusCode;
    return (
      contract.check(request.route, response) ??
      (status >= 400 && changed.length > 0 ? `refused with ${status} but changed ${changed.join(', ')}` : undefined) ??
      (request.route.method === 'GET' && changed.length > 0 ? `a read changed ${changed.join(', ')}` : undefined)
    );
  }

  it('answers the requests it once answered wrongly as documented, changing nothing', async () => {
    for (const regression of REGRESSIONS) {
      const route = routes.find((candidate) => candidate.key === regression.key)!;
      const url = regression.url.replace(/\{(\w+)\}/g, (_, kind: string) => caller.ids[kind]!);
      const request: FuzzRequest = { route, url, ...(regression.payload === undefined ? {} : { payload: regression.payload }) };
      const before = await fingerprint();
      const response = await send(request);
      assert.equal(problemOf(request, response, before, await fingerprint()), undefined, `${regression.url}: was ${regression.was}`);
      assert.equal(response.statusCode, 400, response.body);
    }
  });

  it(`answers ${RUNS} generated requests without a 5xx, as documented, and changes nothing when it refuses`, async (t) => {
    const statuses = new Map<number, number>();
    const problems: string[] = [];
    let last = await fingerprint();
    const started = Date.now();
    const cpu = process.cpuUsage();

    const property = fc.asyncProperty(fc.oneof(...routes.map((route) => requestsFor(route, ids))), async (request) => {
      const response = await send(request);
      const status = response.statusCode;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const now = await fingerprint();
      const problem = problemOf(request, response, last, now);
      last = now;
      if (problem) {
        problems.push(`${request.route.method} ${request.url.slice(0, 300)} ${request.payload?.slice(0, 300) ?? ''} → ${problem}`);
      }
      if (status === 201) ids.add(request.route.url.split('/').pop()!, String(response.headers.location).split('/').pop()!);
    });
    await fc.assert(property, { numRuns: RUNS, seed: SEED });

    const serverErrors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, count]) => sum + count, 0);
    const { user, system } = process.cpuUsage(cpu);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    t.diagnostic(`${RUNS} requests over ${routes.length} routes in ${seconds} s (${((user + system) / 1e6).toFixed(1)} s of CPU), seed ${SEED}`);
    t.diagnostic(
      `statuses: ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${status}×${count}`)
        .join(' ')}; 5xx: ${serverErrors}`,
    );
    if (contract.undocumented.size > 0) {
      t.diagnostic(`refusals the OpenAPI document does not list: ${[...contract.undocumented].map(([key, count]) => `${key}×${count}`).join(', ')}`);
    }
    assert.deepEqual(problems.slice(0, 30), [], `${problems.length} problems; seed ${SEED}`);
  });
});
