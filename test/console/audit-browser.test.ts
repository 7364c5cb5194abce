import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { tokensService } from '../../src/auth/tokens.service.js';
import { axeViolations, browserSkip, consoleScreenshot, launchBrowser } from '../helpers/browser.js';
import { forEachEngine } from '../helpers/harness.js';
import { createPerson, listenHttps, testCertificate } from '../helpers/pages.js';
import { ScimClient } from '../scim/scim-client.js';

const PASSWORD = 'console horse 1';

const certificate = await testCertificate();

/** The audit trail as an administrator reads it in Chromium over HTTPS: changes by a token and by SCIM, filtered, one opened. */
forEachEngine(
  'Console audit trail in a browser',
  (h) => {
    let browser: Browser;
    let server: Awaited<ReturnType<typeof listenHttps>>;

    before(async () => {
      if (browserSkip) return;
      server = await listenHttps(h.app, certificate);
      browser = await launchBrowser();
      await createPerson(h, { email: 'admin@example.com', password: PASSWORD, firstName: 'Ada', accountType: 'organizationAdministrator' });
      const { token } = await tokensService(h.database.db).create(h.org.id, { name: 'HR sync' });
      const grace = await h.create('users', { email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' }, { token });
      await h.put(`users/${grace}`, { lastName: 'Brewster Hopper', tags: ['navy'] }, { token });
      await h.create('offerings', { title: 'Compilers 101' }, { token });
      const scim = new ScimClient(h, (await tokensService(h.database.db).create(h.org.id, { name: 'Okta', scopes: ['scim'] })).token);
      await scim.post('/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'linus@example.com' });
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    const violations: Record<string, unknown> = {};
    const checked = async (page: Page, name: string) => {
      violations[name] = await axeViolations(page);
    };

    it('lists who changed what, filters by the kind of actor, and opens a change with the keyboard', { skip: browserSkip }, async () => {
      const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
      });

      await page.goto(`${server.origin}/o/${h.org.id}/console/audit`);
      await page.getByLabel('Email').fill('admin@example.com');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Audit trail' }).waitFor();
      await checked(page, 'trail');
      const trail = page.getByRole('list', { name: 'Changes of the organization, newest first' });
      const rows = trail.getByRole('listitem');
      // Newest first: the person's sign-in, then SCIM's user, the token's offering and its two changes of Grace.
      assert.match(await rows.nth(0).innerText(), /user\.updated[\s\S]*Person[\s\S]*admin@example\.com/);
      assert.match(await rows.nth(1).innerText(), /user\.created[\s\S]*SCIM[\s\S]*Okta/);
      assert.match(await rows.nth(2).innerText(), /offering\.created[\s\S]*API token[\s\S]*HR sync/);

      // The update of Grace, opened from the keyboard: its summary takes the focus, Enter opens it.
      const update = rows.filter({ hasText: 'API token' }).filter({ hasText: 'user.updated' });
      await update.locator('summary').focus();
      await page.keyboard.press('Enter');
      assert.match(await update.innerText(), /lastName\s+Hopper → Brewster Hopper/);
      assert.match(await update.innerText(), /tags\s+none → \["navy"\]/);
      await checked(page, 'opened');
      await page.screenshot({ path: consoleScreenshot('audit.png'), fullPage: true });

      await page.getByRole('combobox', { name: 'Made by' }).selectOption({ label: 'SCIM' });
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/actorType=scim/);
      assert.equal(await rows.count(), 1, "SCIM's one change");
      assert.match(await rows.nth(0).innerText(), /user\.created[\s\S]*SCIM[\s\S]*Okta/);
      await checked(page, 'filtered');

      assert.deepEqual(violations, { trail: [], opened: [], filtered: [] });
      assert.deepEqual(problems, []);
      await context.close();
    });
  },
  { https: certificate },
);
