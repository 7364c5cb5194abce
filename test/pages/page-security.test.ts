import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { routeTable } from '../helpers/route-table.js';
import { signedInAs } from '../helpers/console-sign-in.js';
import { forEachEngine } from '../helpers/harness.js';
import { browserOf, createPerson, freshAddress, injected, type PageBrowser, type PageReply } from '../helpers/pages.js';

const PASSWORD = 'security horse 1';
const HOSTILE_FIRST = '<script>alert(1)</script>';
const HOSTILE_LAST = '"><img src=x onerror=alert(2)>';

/** The routes of the pages (`GET /o/:orgId/...`), as the route table lists them; a new page is covered here without a test of its own. */
function pageRoutes(h: { app: Parameters<typeof routeTable>[0] }, method: 'GET' | 'POST'): string[] {
  return routeTable(h.app)
    .other.filter((route) => route.startsWith(`${method} /o/`))
    .map((route) => route.slice(method.length + 1));
}

/** A route's path with its parameters filled: the organization's id, and made-up values for the rest (a page of an unknown thing is a page too). */
const pathOf = (route: string, orgId: string) =>
  route.replace(/:(\w+)/g, (_, name: string) =>
    name === 'orgId' ? orgId : name === 'type' ? 'custom' : name === 'secret' ? 'tpr_unknownsecret' : '0123456789abcdef0123456789abcdef',
  );

function checkPolicy(where: string, reply: PageReply): string[] {
  const policy = String(reply.headers['content-security-policy'] ?? '');
  const problems: string[] = [];
  if (!policy) problems.push(`${where}: no Content-Security-Policy`);
  if (/unsafe-inline|unsafe-eval/.test(policy)) problems.push(`${where}: ${policy}`);
  if (!/(^|;\s*)frame-ancestors 'none'(;|$)/.test(policy)) problems.push(`${where}: no frame-ancestors 'none' in ${policy}`);
  if (!/(^|;\s*)default-src 'none'(;|$)/.test(policy)) problems.push(`${where}: no default-src 'none' in ${policy}`);
  return problems;
}

forEachEngine('The pages against cross-site requests, framing and injected markup', (h) => {
  let admin: PageBrowser;
  let learner: PageBrowser;

  before(async () => {
    for (const [kind, email] of [
      ['organizationAdministrator', 'hostile.admin@example.com'],
      ['learner', 'hostile.learner@example.com'],
    ] as const) {
      await createPerson(h, {
        email,
        password: PASSWORD,
        firstName: HOSTILE_FIRST,
        lastName: HOSTILE_LAST,
        ...(kind === 'learner' ? {} : { accountType: kind }),
      });
    }
    admin = browserOf(h);
    assert.equal((await admin.signIn(h.org.id, 'hostile.admin@example.com', PASSWORD)).status, 303);
    learner = browserOf(h);
    assert.equal((await learner.signIn(h.org.id, 'hostile.learner@example.com', PASSWORD)).status, 303);
  });

  it('refuses every form POST of the pages without its token, or with another browser’s: 403, and nothing done', async (t) => {
    const routes = pageRoutes(h, 'POST');
    t.diagnostic(`${routes.length} POST routes of the pages`);
    assert.ok(routes.length >= 30, `${routes.length} routes`);
    const stranger = browserOf(h);
    await stranger.get(`/o/${h.org.id}/sign-in`);
    const problems: string[] = [];
    for (const route of routes) {
      const path = pathOf(route, h.org.id);
      // A form another site posts: the browser's cookies ride along, the token cannot.
      for (const [why, token] of [
        ['no token', undefined],
        ['an empty token', ''],
        ['another browser’s token', stranger.csrf],
        ['a made-up token', 'x'.repeat(43)],
      ] as const) {
        const answer = await admin.post(path, { _csrf: token, email: 'hostile.admin@example.com', password: PASSWORD });
        if (answer.status !== 403) problems.push(`${route} with ${why}: ${answer.status}`);
        else if (!/<h1>[^<]+<\/h1>/.test(answer.body)) problems.push(`${route} with ${why}: 403 without a page`);
      }
      // A browser without any cookie of the pages (no token secret at all).
      const bare = await browserOf(h).post(path, { _csrf: admin.csrf });
      if (bare.status !== 403) problems.push(`${route} from a browser without cookies: ${bare.status}`);
    }
    assert.deepEqual(problems, []);
    // Nothing of it signed the administrator out.
    assert.equal((await admin.get(`/o/${h.org.id}/account`)).status, 200);
  });

  it("sends a CSP without unsafe-inline and with frame-ancestors 'none' with every page, signed in or not, found or not", async (t) => {
    const routes = pageRoutes(h, 'GET');
    t.diagnostic(`${routes.length} GET routes of the pages`);
    const problems: string[] = [];
    const anonymous = browserOf(h);
    for (const route of routes) {
      const path = pathOf(route, h.org.id);
      for (const [who, browser] of [
        ['an administrator', admin],
        ['a learner', learner],
        ['nobody signed in', anonymous],
      ] as const) {
        problems.push(...checkPolicy(`GET ${path} as ${who}`, await browser.get(path)));
      }
    }
    problems.push(...checkPolicy('an unknown organization', await anonymous.get('/o/0123456789abcdef0123456789abcdef/sign-in')));
    problems.push(...checkPolicy('a refused form', await anonymous.post(`/o/${h.org.id}/sign-in`, { _csrf: undefined })));
    problems.push(...checkPolicy('a failed sign-in', await anonymous.signIn(h.org.id, 'nobody@example.com', 'wrong')));
    assert.deepEqual(problems, []);
  });

  it('shows a person named <script> as text on every page, never as markup', async () => {
    const problems: string[] = [];
    let shown = 0;
    for (const route of pageRoutes(h, 'GET')) {
      const path = pathOf(route, h.org.id);
      for (const [who, browser] of [
        ['an administrator', admin],
        ['a learner', learner],
      ] as const) {
        const reply = await browser.get(path);
        // A download (the console's export) is data, not a page: no browser reads markup in it.
        if (!String(reply.headers['content-type'] ?? 'text/html').startsWith('text/html')) continue;
        if (reply.body.includes(HOSTILE_FIRST) || reply.body.includes(HOSTILE_LAST) || /<img\b/i.test(reply.body)) {
          problems.push(`GET ${path} as ${who}: the name as markup`);
        }
        if (reply.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;')) shown += 1;
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(shown >= 4, `the name was shown (escaped) on ${shown} pages only`);
    // Escaped inside an attribute too: the account page's form keeps the name in its value.
    const account = await learner.get(`/o/${h.org.id}/account`);
    assert.match(account.body, /value="&quot;&gt;&lt;img src=x onerror=alert\(2\)&gt;"/);
  });

  it('keeps a learner out of every page and form of the console: 403', async (t) => {
    const routes = [...pageRoutes(h, 'GET').map((route) => `GET ${route}`), ...pageRoutes(h, 'POST').map((route) => `POST ${route}`)].filter(
      (route) => / \/o\/:orgId\/console(\/|$)/.test(route),
    );
    t.diagnostic(`${routes.length} routes of the console`);
    const problems: string[] = [];
    await learner.get(`/o/${h.org.id}/account`);
    for (const route of routes) {
      const [method, pattern] = route.split(' ') as [string, string];
      const path = pathOf(pattern, h.org.id);
      const answer = method === 'GET' ? await learner.get(path) : await learner.post(path, { name: 'Learner was here', title: 'x' });
      if (answer.status !== 403) problems.push(`${route}: ${answer.status}`);
    }
    assert.deepEqual(problems, []);
    // A learner's session never opens the API either: the pages' cookie is no bearer token.
    const api = await h.app.inject({
      method: 'GET',
      url: '/api/v5/users',
      headers: { cookie: [...learner.cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
    });
    assert.equal(api.statusCode, 401);
    // The same forms as an administrator do get through the guard (the 403 above is the learner's).
    const { browser } = await signedInAs(h, 'organizationAdministrator');
    assert.equal((await browser.get(`/o/${h.org.id}/console`)).status, 200);
  });

  it('answers a session of one organization at another’s pages as nobody signed in', async () => {
    const other = await h.createOrganization('Other organization');
    const reply = await admin.clone(injected(h.app, freshAddress())).get(`/o/${other.id}/account`);
    assert.equal(reply.status, 303);
    assert.equal(reply.location, `/o/${other.id}/sign-in?next=${encodeURIComponent(`/o/${other.id}/account`)}`);
    const console = await admin.get(`/o/${other.id}/console`);
    assert.notEqual(console.status, 200);
    // Nor does a person of one organization sign in at another's address.
    const signIn = await browserOf(h).signIn(other.id, 'hostile.admin@example.com', PASSWORD);
    assert.equal(signIn.status, 401);
  });
});
