import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, browserSkip, launchBrowser } from '../helpers/browser.js';
import { ServerProcess } from '../helpers/server-process.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Where the screenshot goes: dist/ unless told (`DOCS_SCREENSHOT=docs/docs-page.png` refreshes the README's). */
const SCREENSHOT = resolve(ROOT, process.env.DOCS_SCREENSHOT ?? 'dist/screenshots/docs-page.png');

/** The operation of `method` and `path` on the page. */
const operation = (page: Page, method: string, path: string) =>
  page.locator(`.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });

describe('/docs in a real browser', { skip: browserSkip }, () => {
  let server: ServerProcess;
  let browser: Browser;

  before(async () => {
    server = await ServerProcess.start();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.destroy();
  });

  it('loads without a console error, authorizes, tries GET /users and is photographed', async () => {
    const token = await server.bootstrapToken();
    const created = await server.request('POST', 'users', { token, body: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' } });
    assert.equal(created.status, 201);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));

    await page.goto(`https://localhost:${server.port}/docs/`);
    await page.locator('.swagger-ui .information-container .title').waitFor();

    await page.locator('button.btn.authorize').first().click();
    const bearer = page.locator('.auth-container').filter({ hasText: 'bearer' }).first();
    await bearer.locator('input').fill(token);
    await bearer.locator('button.authorize').click();
    await page.locator('.dialog-ux button.btn-done').first().click();

    const list = operation(page, 'get', '/users');
    await list.locator('.opblock-summary').click();
    await list.locator('button.try-out__btn').click();
    await list.locator('button.execute').click();
    const status = list.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    assert.equal((await status.innerText()).trim(), '200');
    assert.match(await list.locator('.live-responses-table .response .response-col_description').first().innerText(), /"ada@example\.com"/);

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    assert.ok(existsSync(SCREENSHOT));
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('has the title of the project, and no serious or critical violation of axe-core: opened, authorizing, trying operations', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`https://localhost:${server.port}/docs/`);
    await page.locator('.swagger-ui .information-container .title').waitFor();
    assert.equal(await page.title(), 'Training Platform REST API: reference');
    const violations: Record<string, unknown> = { opened: await axeViolations(page) };

    await page.locator('button.btn.authorize').first().click();
    await page.locator('.dialog-ux .auth-container').first().waitFor();
    violations.authorizing = await axeViolations(page);
    await page.locator('.dialog-ux button.close-modal').click();

    const list = operation(page, 'get', '/users');
    await list.locator('.opblock-summary').click();
    await list.locator('button.try-out__btn').click();
    await list.locator('button.execute').click();
    await list.locator('.live-responses-table .response').first().waitFor();
    const create = operation(page, 'post', '/users');
    await create.locator('.opblock-summary').click();
    await create.locator('button.try-out__btn').click();
    await create.locator('textarea.body-param__text').waitFor();
    violations.trying = await axeViolations(page);

    assert.deepEqual(violations, { opened: [], authorizing: [], trying: [] });
    await context.close();
  });
});
