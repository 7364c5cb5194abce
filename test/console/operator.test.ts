import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { seed } from '../../src/tenancy/seed.js';
import { SANDBOX_SAMPLE } from '../../src/tenancy/sandbox.js';
import { signedInAs, textOf } from '../helpers/console-sign-in.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { startMailbox } from '../helpers/mailbox.js';
import { browserOf, formActionOf, titleOf, type PageBrowser } from '../helpers/pages.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

const OPERATOR_TOKEN = 'operator-token-of-the-tests-0123456789';
const PASSWORD = 'invited horse 1';
const SAMPLE_FIELDS = 10;

const mailbox = await startMailbox();
after(() => mailbox.close());

/** A browser signed in as the server's operator, through the sign-in form. */
async function operator(h: Harness): Promise<PageBrowser> {
  const browser = browserOf(h);
  assert.equal((await browser.get('/o/operator/sign-in')).status, 200);
  const signedIn = await browser.post('/o/operator/sign-in', { token: OPERATOR_TOKEN });
  assert.equal(signedIn.status, 303, signedIn.body.slice(0, 300));
  assert.equal(signedIn.location, '/o/operator');
  return browser;
}

/** How many rows of `table` the organization holds. */
async function count(h: Harness, table: 'users' | 'offerings' | 'registrations' | 'userfield_values' | 'userfields', orgId: string) {
  const row = await h.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** How many events of `type` the organization's feed holds. */
async function eventsOf(h: Harness, orgId: string, type: string) {
  return (await h.database.db.selectFrom('events').select('data').where('org_id', '=', orgId).where('type', '=', type).execute()).map(
    (row) => JSON.parse(row.data) as Record<string, unknown>,
  );
}

const organizationNamed = (h: Harness, name: string) =>
  h.database.db.selectFrom('organizations').selectAll().where('name', '=', name).executeTakeFirst();

let made = 0;
const unique = (what: string) => `${what} ${++made}`;

/** Creates an organization through the operator's form; the answer. */
async function createOrganization(browser: PageBrowser, fields: { name: string; email: string; sandbox?: boolean }) {
  await browser.get('/o/operator');
  return browser.post('/o/operator/organizations', { name: fields.name, email: fields.email, ...(fields.sandbox ? { sandbox: 'true' } : {}) });
}

/** The invited administrator chooses a password through `link`, signs in, accepts the standard agreement, and ends where that leads. */
async function acceptInvitation(h: Harness, link: string, orgId: string, email: string) {
  const invited = browserOf(h);
  const form = await invited.get(link);
  assert.equal(form.status, 200);
  const chosen = await invited.post(formActionOf(form.body)!, {
    password: PASSWORD,
    confirm: PASSWORD,
    next: /name="next" value="([^"]+)"/.exec(form.body)![1]!,
  });
  assert.equal(chosen.status, 303);
  const console = `/o/${orgId}/console`;
  assert.equal(chosen.location, `/o/${orgId}/sign-in?done=password&next=${encodeURIComponent(console)}`);
  const signInPage = await invited.get(chosen.location);
  const signedIn = await invited.post(formActionOf(signInPage.body)!, { email, password: PASSWORD, next: console });
  assert.equal(signedIn.status, 303);
  assert.equal(signedIn.location, `/o/${orgId}/continue?next=${encodeURIComponent(console)}`);
  const steps = await invited.get(signedIn.location);
  const accepted = await invited.post(formActionOf(steps.body)!, { next: console, agree: 'standard' });
  assert.equal(accepted.status, 303);
  assert.equal(accepted.location, console);
  const landed = await invited.get(console);
  assert.equal(landed.status, 200);
  assert.equal(titleOf(landed.body), 'Console');
  return invited;
}

forEachEngine(
  'The operator’s pages',
  (h) => {
    it('sends anyone not signed in as the operator to the operator’s sign-in, on every route', async () => {
      const stranger = browserOf(h);
      await stranger.get('/o/operator/sign-in');
      const name = unique('Never made');
      for (const [method, url, form] of [
        ['GET', '/o/operator', undefined],
        ['GET', `/o/operator/organizations/${h.org.id}/reset`, undefined],
        ['POST', '/o/operator/organizations', { name, email: 'never@example.com' }],
        ['POST', `/o/operator/organizations/${h.org.id}/reset`, {}],
      ] as const) {
        const answer = method === 'GET' ? await stranger.get(url) : await stranger.post(url, form);
        assert.equal(answer.status, 303, `${method} ${url}`);
        assert.equal(answer.location, '/o/operator/sign-in', `${method} ${url}`);
      }
      assert.equal(await organizationNamed(h, name), undefined);
    });

    it('does not take an organization’s administrator for the operator', async () => {
      const { browser } = await signedInAs(h, 'organizationAdministrator');
      assert.equal((await browser.get(`/o/${h.org.id}/console`)).status, 200);
      assert.equal((await browser.get('/o/operator')).location, '/o/operator/sign-in');
      const name = unique('By an administrator');
      const posted = await browser.post('/o/operator/organizations', { name, email: 'admin-made@example.com' });
      assert.equal(posted.location, '/o/operator/sign-in');
      assert.equal(await organizationNamed(h, name), undefined);
      // Nor is an organization's session any use at the operator's sign-in.
      assert.equal((await browser.post('/o/operator/sign-in', { token: 'console horse 1' })).status, 401);
    });

    it('signs the operator in with OPERATOR_TOKEN alone, in a strict cookie, and out again', async () => {
      const browser = browserOf(h);
      const page = await browser.get('/o/operator/sign-in');
      assert.equal(page.status, 200);
      assert.doesNotMatch(String(page.headers['content-security-policy']), /unsafe-inline/);
      assert.match(page.body, /<input type="password" id="token" name="token"/);
      const refused = await browser.post('/o/operator/sign-in', { token: `${OPERATOR_TOKEN}x` });
      assert.equal(refused.status, 401);
      assert.match(textOf(refused), /The token is incorrect\./);
      assert.equal(browser.cookies.get('__Host-operator'), undefined);

      const signedIn = await browser.post('/o/operator/sign-in', { token: OPERATOR_TOKEN });
      assert.equal(signedIn.status, 303);
      const cookie = [signedIn.headers['set-cookie'] ?? []].flat().find((line) => line.startsWith('__Host-operator='))!;
      assert.match(cookie, /HttpOnly/i);
      assert.match(cookie, /Secure/i);
      assert.match(cookie, /SameSite=Strict/i);
      assert.match(cookie, /Max-Age=3600/i);
      assert.ok(!cookie.includes(OPERATOR_TOKEN), 'the cookie does not hold the token');
      const list = await browser.get('/o/operator');
      assert.equal(list.status, 200);
      assert.equal(titleOf(list.body), 'Organizations');
      assert.match(textOf(list), /Test organization Organization/);
      assert.doesNotMatch(String(list.headers['content-security-policy']), /unsafe-inline/);
      // Signed in, the sign-in page leads on to the list.
      assert.equal((await browser.get('/o/operator/sign-in')).location, '/o/operator');
      // A forged cookie (its end moved) is no session.
      const forged = browser.clone();
      forged.cookies.set(
        '__Host-operator',
        browser.cookies.get('__Host-operator')!.replace(/^\d/, (digit) => String((Number(digit) + 1) % 10)),
      );
      assert.equal((await forged.get('/o/operator')).location, '/o/operator/sign-in');

      const out = await browser.post(formActionOf(list.body, /sign-out/)!, {});
      assert.equal(out.status, 303);
      assert.equal(out.location, '/o/operator/sign-in?done=signed-out');
      assert.equal((await browser.get('/o/operator')).location, '/o/operator/sign-in');
    });

    it('refuses every form without this browser’s token (CSRF)', async () => {
      const browser = await operator(h);
      const name = unique('Forged');
      for (const url of ['/o/operator/sign-in', '/o/operator/organizations', `/o/operator/organizations/${h.org.id}/reset`, '/o/operator/sign-out']) {
        for (const token of [undefined, 'forged']) {
          const answer = await browser.post(url, { _csrf: token, token: OPERATOR_TOKEN, name, email: 'forged@example.com' });
          assert.equal(answer.status, 403, `${url} with ${token ?? 'no'} token`);
        }
      }
      assert.equal(await organizationNamed(h, name), undefined);
      assert.equal((await browser.get('/o/operator')).status, 200, 'still signed in');
    });

    it('creates an organization and invites its first administrator by mail; the link works once and leads to the console', async () => {
      const browser = await operator(h);
      const name = unique('Acme');
      const email = `first.admin.${made}.${h.engine}@example.com`;
      const created = await createOrganization(browser, { name, email });
      assert.equal(created.status, 303);
      assert.equal(created.location, '/o/operator?done=invited');
      const organization = (await organizationNamed(h, name))!;
      assert.ok(organization, 'the organization is made');
      assert.equal(Boolean(organization.sandbox), false);
      const admin = await h.database.db.selectFrom('users').selectAll().where('org_id', '=', organization.id).executeTakeFirstOrThrow();
      assert.equal(admin.email, email);
      assert.equal(admin.account_type, 'organizationAdministrator');
      assert.equal(admin.password_hash, null);
      // Made through the users service: its event is in the new organization's feed, as the API's would be.
      assert.deepEqual(
        (await eventsOf(h, organization.id, 'user.created')).map((user) => [user.id, user.email, user.accountType]),
        [[admin.id, email, 'organizationAdministrator']],
      );
      const listed = await browser.get(created.location);
      assert.match(textOf(listed), /first administrator invited/);
      assert.match(textOf(listed), new RegExp(name));
      assert.ok(!listed.body.includes('reset-password'), 'no link in the page when it is mailed');

      const mail = await mailbox.next(email);
      assert.equal(mail.subject, `You administer ${name}: choose your password`);
      const link = /https?:\/\/\S+\/reset-password\/\S+/.exec(mail.text)![0];
      assert.match(
        link,
        new RegExp(`/o/${organization.id}/reset-password/tpr_[\\w-]+\\?next=${encodeURIComponent(`/o/${organization.id}/console`)}$`),
      );
      await acceptInvitation(h, link, organization.id, email);
      assert.equal((await browserOf(h).get(link)).status, 410, 'the link works once');
    });

    it('keeps the form and says what is wrong when the name or the email is', async () => {
      const browser = await operator(h);
      const before = (await h.database.db.selectFrom('organizations').select('id').execute()).length;
      const noName = await createOrganization(browser, { name: '  ', email: 'kept@example.com' });
      assert.equal(noName.status, 400);
      assert.match(noName.body, /id="organization-name-error"/);
      assert.match(noName.body, /value="kept@example\.com"/);
      const badEmail = await createOrganization(browser, { name: 'Kept name', email: 'not an email', sandbox: true });
      assert.equal(badEmail.status, 400);
      assert.match(badEmail.body, /id="organization-email-error"/);
      assert.match(badEmail.body, /value="Kept name"/);
      assert.match(badEmail.body, /id="organization-sandbox"[^>]*checked/);
      assert.equal((await h.database.db.selectFrom('organizations').select('id').execute()).length, before, 'nothing made');
    });

    it('fills a sandbox with the sample, and resets it to the sample after asking', async () => {
      const browser = await operator(h);
      const name = unique('Sandbox');
      const email = `sandbox.admin.${made}.${h.engine}@example.com`;
      assert.equal((await createOrganization(browser, { name, email, sandbox: true })).status, 303);
      const sandbox = (await organizationNamed(h, name))!;
      assert.equal(Boolean(sandbox.sandbox), true);
      const sample = async () => ({
        users: await count(h, 'users', sandbox.id),
        offerings: await count(h, 'offerings', sandbox.id),
        registrations: await count(h, 'registrations', sandbox.id),
        values: await count(h, 'userfield_values', sandbox.id),
      });
      const filled = {
        users: SANDBOX_SAMPLE.users + 1,
        offerings: SANDBOX_SAMPLE.registrations,
        registrations: SANDBOX_SAMPLE.users * SANDBOX_SAMPLE.registrations,
        values: SANDBOX_SAMPLE.users * SAMPLE_FIELDS,
      };
      assert.deepEqual(await sample(), filled);
      assert.equal((await eventsOf(h, sandbox.id, 'user.created')).length, filled.users, 'the sample made through the services');
      assert.equal((await eventsOf(h, sandbox.id, 'registration.created')).length, filled.registrations);
      const fields = await count(h, 'userfields', sandbox.id);
      assert.match(textOf(await browser.get('/o/operator')), new RegExp(`${name} Sandbox`));

      await seed(h.database.db, sandbox.id, { users: 7, userfieldValues: 2, registrations: 4, passwordPolicy: DEFAULT_PASSWORD_POLICY });
      assert.deepEqual(await sample(), {
        users: filled.users + 7,
        offerings: 4,
        registrations: filled.registrations + 28,
        values: filled.values + 14,
      });

      const list = await browser.get('/o/operator');
      const confirm = await browser.get(`/o/operator/organizations/${sandbox.id}/reset`);
      assert.ok(list.body.includes(`href="/o/operator/organizations/${sandbox.id}/reset"`));
      assert.equal(confirm.status, 200);
      assert.equal(titleOf(confirm.body), `Reset ${name}?`);
      const reset = await browser.post(formActionOf(confirm.body)!, {});
      assert.equal(reset.status, 303);
      assert.equal(reset.location, '/o/operator?done=reset');
      assert.deepEqual(await sample(), filled);
      assert.equal(await count(h, 'userfields', sandbox.id), fields);
      const kept = await h.database.db
        .selectFrom('users')
        .select(['email', 'account_type'])
        .where('org_id', '=', sandbox.id)
        .where('email', '=', email)
        .executeTakeFirst();
      assert.deepEqual(kept, { email, account_type: 'organizationAdministrator' }, 'its administrator stays');
    });

    it('resets no organization that is not a sandbox, and knows no other id', async () => {
      const browser = await operator(h);
      const users = await count(h, 'users', h.org.id);
      const page = await browser.get(`/o/operator/organizations/${h.org.id}/reset`);
      assert.equal(page.status, 409);
      assert.match(textOf(page), /only a sandbox can be reset/);
      await browser.get('/o/operator');
      const posted = await browser.post(`/o/operator/organizations/${h.org.id}/reset`, {});
      assert.equal(posted.status, 409);
      assert.equal(await count(h, 'users', h.org.id), users);
      assert.doesNotMatch((await browser.get('/o/operator')).body, new RegExp(`organizations/${h.org.id}/reset`));
      for (const id of ['0'.repeat(32), 'not-an-id']) {
        assert.equal((await browser.get(`/o/operator/organizations/${id}/reset`)).status, 404);
        await browser.get('/o/operator');
        assert.equal((await browser.post(`/o/operator/organizations/${id}/reset`, {})).status, 404);
      }
    });
  },
  { people: loadConfig({ SMTP_URL: mailbox.url, MAIL_FROM: 'operator@example.com', OPERATOR_TOKEN }).people },
);

forEachEngine(
  'The operator’s pages without mail',
  (h) => {
    it('shows the invitation link once in the page, never in an address', async () => {
      const browser = await operator(h);
      const name = unique('Unmailed');
      const email = `unmailed.${made}.${h.engine}@example.com`;
      const created = await createOrganization(browser, { name, email });
      assert.equal(created.status, 200);
      assert.equal(created.location, undefined);
      const link = /<code class="secret" id="secret">([^<]+)<\/code>/.exec(created.body)![1]!.replaceAll('&amp;', '&');
      const organization = (await organizationNamed(h, name))!;
      assert.match(link, new RegExp(`/o/${organization.id}/reset-password/tpr_`));
      assert.match(created.body, /data-copy="#secret"/);
      assert.ok(!(await browser.get('/o/operator')).body.includes('reset-password'), 'shown once');
      await acceptInvitation(h, link, organization.id, email);
    });
  },
  { people: loadConfig({ OPERATOR_TOKEN }).people },
);

forEachEngine('The operator’s pages without OPERATOR_TOKEN', (h) => {
  it('are not there at all', async () => {
    const browser = browserOf(h);
    for (const url of ['/o/operator', '/o/operator/sign-in', `/o/operator/organizations/${h.org.id}/reset`]) {
      assert.equal((await browser.get(url)).status, 404, url);
    }
    assert.equal((await browser.post('/o/operator/sign-in', { _csrf: 'x', token: '' })).status, 403, 'a forged form is refused first');
    await browser.get(`/o/${h.org.id}/sign-in`);
    assert.equal((await browser.post('/o/operator/sign-in', { token: '' })).status, 404);
  });
});
