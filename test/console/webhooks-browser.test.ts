import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkip, consoleScreenshot } from '../helpers/browser.js';
import { ConsoleInBrowser } from '../helpers/console-browser.js';
import { ALL_ENGINES, engineSkip } from '../helpers/database.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
/** Fast retries, http to loopback allowed: the real worker of the server, on a test's time scale. */
const WEBHOOK_SETTINGS = {
  WEBHOOKS_ALLOW_INSECURE_LOOPBACK: 'true',
  WEBHOOKS_RETRY_BASE: '100ms',
  WEBHOOKS_TIMEOUT: '2s',
  WEBHOOKS_POLL_INTERVAL: '50ms',
};

/**
 * The console's webhooks and SCIM in Chromium, on a real server over HTTPS with its delivery worker,
 * walked as an organization administrator would: an endpoint made, its deliveries failing against a
 * real receiver, disabled, enabled and recovered; a new signing secret; a SCIM token made and used, its
 * requests read. axe-core checks every page; each part is photographed for the docs.
 */
for (const engine of ALL_ENGINES) {
  describe(`The console's webhooks and SCIM in a real browser [${engine}]`, { skip: browserSkip || engineSkip(engine) }, () => {
    const session = new ConsoleInBrowser(engine);
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await WebhookReceiver.start();
      await session.start(WEBHOOK_SETTINGS);
      await session.signIn();
    });
    after(async () => {
      await session.stop();
      await receiver?.stop();
    });

    it('makes an endpoint, sees its failing deliveries, then recovers it', async () => {
      receiver.answer = () => 503;
      await session.nav('Webhooks');
      await session.page.waitForURL(/\/console\/webhooks$/);
      await session.checked('webhooks');
      await session.page.getByLabel('URL', { exact: true }).fill(receiver.url);
      await session.page.getByLabel('Description (optional)').fill('Sync to the HR system');
      await session.page.getByLabel('user.created').check();
      await session.page.getByLabel('user.updated').check();
      await session.page.getByRole('button', { name: 'Create the endpoint' }).click();
      assert.match(await session.text(), /The endpoint is made\..* Copy it now: it is shown this once/);
      assert.match(await session.page.locator('#secret').innerText(), /^whsec_/);
      await session.checked('endpoint, just made');
      // The page of the endpoint by its address, not this answer to the form (a reload would send the form again).
      await session.page.getByRole('link', { name: 'Back to the endpoints' }).click();
      await session.page.getByRole('link', { name: receiver.url }).click();
      const endpoint = session.page.url();

      await session.api('POST', 'users', { email: 'grace@example.com', firstName: 'Grace' });
      await receiver.until(() => receiver.received.filter((r) => r.status === 503).length >= 2, 'two refused attempts');
      await session.page.goto(endpoint);
      const failing = session.page.getByRole('row').filter({ hasText: 'user.created' });
      assert.match(await failing.innerText(), /pending\s+\d+\s+503\s+\d+ ms\s+not now/);
      await session.checked('endpoint, failing');

      await session.page.getByRole('button', { name: 'Disable the endpoint' }).click();
      assert.match(await session.text(), /The endpoint is disabled/);
      await session.api('POST', 'users', { email: 'alan@example.com', firstName: 'Alan' });
      receiver.answer = () => 204;
      await session.page.getByRole('button', { name: 'Enable the endpoint' }).click();
      assert.match(
        await session.text(),
        /enabled again.* \d+ events? of its types made while it was disabled, since .*, had no delivery queued: recover them below/,
      );
      await session.page.getByRole('button', { name: 'Recover', exact: true }).click();
      assert.match(await session.text(), /\d+ events? since \S+ (is|are) queued again/);
      await receiver.until(
        () =>
          ['grace@example.com', 'alan@example.com'].every((email) => receiver.received.some((r) => r.event.data.email === email && r.status === 204)),
        'both people delivered',
      );
      await session.page.goto(endpoint);
      assert.match(await session.text(), /Success \d+% of \d+ attempts/);
      assert.match(await session.page.getByRole('row').filter({ hasText: 'succeeded' }).first().innerText(), /204/);
      await session.checked('endpoint, recovered');
      await session.page.evaluate('window.scrollTo(0, 0)');
      await session.page.screenshot({ path: consoleScreenshot('webhooks.png'), fullPage: false });
    });

    it('gives the endpoint a new signing secret, shown once, after asking', async () => {
      await session.page.getByRole('button', { name: 'New signing secret' }).click();
      assert.match(session.questions.at(-1)!, /new signing secret/);
      assert.match(await session.text(), /The endpoint has a new signing secret/);
      assert.match(await session.page.locator('#secret').innerText(), /^whsec_/);
      await session.checked('endpoint, new secret');
      await session.page.getByRole('link', { name: 'Back to the endpoints' }).click();
      assert.match(await session.text(), /Sync to the HR system .* active/);
      await session.checked('webhooks, with an endpoint');
    });

    it('makes a SCIM token for the identity provider and shows the requests it made', async () => {
      await session.nav('SCIM');
      await session.checked('scim');
      await session.page.getByRole('button', { name: 'Create a SCIM token' }).click();
      const scimToken = await session.page.locator('#secret').innerText();
      assert.match(await session.text(), /The SCIM token SCIM is made/);
      const base = await session.page.locator('#scim-base').innerText();
      assert.equal(base, `${session.origin}/scim/v2`);
      const listed = await session.server.request('GET', '/scim/v2/Users', { token: scimToken, headers: { 'user-agent': 'Okta SCIM Client 1.0.0' } });
      assert.equal(listed.status, 200);
      await session.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'SCIM' }).click();
      assert.match(
        await session.page.getByRole('region', { name: 'Last SCIM requests' }).innerText(),
        /GET \/scim\/v2\/Users\s+200\s+\d+ ms\s+SCIM\s+Okta SCIM Client 1\.0\.0/,
      );
      await session.page.getByLabel('SCIM attribute').fill('shoeSize');
      await session.page.getByRole('button', { name: 'Save the mapping' }).click();
      assert.match(await session.text(), /"shoeSize" is not a mappable attribute/);
      session.problems.splice(
        session.problems.findIndex((problem) => problem.startsWith('400 ')),
        1,
      ); // the refusal, on purpose
      await session.checked('scim, a mapping refused');
      await session.page.getByRole('heading', { name: 'Connect an identity provider' }).evaluate((heading) => heading.scrollIntoView());
      await session.page.screenshot({ path: consoleScreenshot('scim.png') });
    });

    it('has no serious or critical violation of axe-core on any session.page, and no script error', () => {
      assert.deepEqual(session.violationsFound(), []);
      assert.ok(Object.keys(session.violations).length >= 8, Object.keys(session.violations).join(', '));
      assert.deepEqual(session.problems, []);
    });
  });
}
