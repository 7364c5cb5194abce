import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { axeViolations, browserSkip, consoleScreenshot, fileBrowser, watchPage, type AxeViolation } from '../helpers/browser.js';
import { ServerProcess } from '../helpers/server-process.js';
import { ALL_ENGINES, createTestDatabase, engineSkip, type TestDatabase } from '../helpers/database.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';

/** What the page's script reaches of the browser's clipboard. */
interface Navigator {
  clipboard: { readText(): Promise<string> };
}

const OPERATOR_TOKEN = 'operator-token-of-the-browser-test-0123456789';

/**
 * The server operator's pages in Chromium, on a real server over HTTPS without mail: the operator signs
 * in with the token, makes a sandbox whose first administrator's link is shown once with a copy button,
 * and resets it after confirming. axe-core checks every page; the list is photographed for the docs.
 */
for (const engine of ALL_ENGINES) {
  describe(`The operator's pages in a real browser [${engine}]`, { skip: browserSkip || engineSkip(engine) }, () => {
    let database: TestDatabase;
    let server: ServerProcess;
    let context: BrowserContext;
    let page: Page;
    let origin: string;
    const problems: string[] = [];
    const violations: Record<string, AxeViolation[]> = {};
    const checked = async (name: string) => {
      violations[name] = await axeViolations(page);
    };
    const text = async () => (await page.locator('main').innerText()).replace(/\s+/g, ' ');

    before(async () => {
      database = await createTestDatabase(engine);
      await organizationsRepository(database.db).create('Northwind Training');
      server = await ServerProcess.start({ DATABASE_URL: database.url, OPERATOR_TOKEN });
      origin = `https://localhost:${server.port}`;
      context = await (await fileBrowser()).newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      page = await context.newPage();
      watchPage(page, problems);
    });
    after(async () => {
      await context?.close();
      await server?.destroy();
      await database?.drop();
    });

    it('signs the operator in with the token', async () => {
      await page.goto(`${origin}/o/operator`);
      await page.waitForURL(`${origin}/o/operator/sign-in`);
      await checked('sign-in');
      await page.getByLabel('Operator token').fill(OPERATOR_TOKEN);
      await page.keyboard.press('Enter');
      await page.waitForURL(`${origin}/o/operator`);
      assert.match(await text(), /Northwind Training Organization/);
      await checked('organizations');
    });

    it('makes a sandbox and shows its administrator’s link once, with a copy button', async () => {
      await page.getByLabel('Name', { exact: true }).fill('Contoso Sandbox');
      await page.getByLabel('First administrator’s email').fill('first.admin@example.com');
      await page.getByLabel('A sandbox').check();
      await page.getByRole('button', { name: 'Create the organization' }).click();
      await page.waitForLoadState('load');
      const link = (await page.locator('#secret').innerText()).trim();
      assert.match(link, /\/o\/[0-9a-f]{32}\/reset-password\/tpr_[\w-]+\?next=/);
      assert.ok(!page.url().includes('tpr_'), 'the link is in no address');
      await page.getByRole('button', { name: 'Copy' }).click();
      assert.equal(await page.evaluate(() => (globalThis as unknown as { navigator: Navigator }).navigator.clipboard.readText()), link);
      assert.match(await text(), /Contoso Sandbox Sandbox/);
      await checked('organizations, a link shown');
      await page.screenshot({ path: consoleScreenshot('operator.png'), fullPage: true });
    });

    it('resets the sandbox after asking', async () => {
      await page.getByRole('link', { name: 'Reset… Contoso Sandbox' }).click();
      await page.waitForURL(/\/reset$/);
      assert.match(await text(), /Resetting Contoso Sandbox deletes its people/);
      await checked('reset, the question');
      await page.getByRole('button', { name: 'Reset the sandbox' }).click();
      await page.waitForURL(`${origin}/o/operator?done=reset`);
      assert.match(await text(), /The sandbox is reset/);
      await checked('organizations, after a reset');
    });

    it('has no serious or critical violation of axe-core on any page, and no script error', () => {
      assert.deepEqual(
        Object.entries(violations).filter(([, found]) => found.length > 0),
        [],
      );
      assert.equal(Object.keys(violations).length, 5, Object.keys(violations).join(', '));
      assert.deepEqual(problems, []);
    });
  });
}
