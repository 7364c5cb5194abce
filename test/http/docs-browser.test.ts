import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { ServerProcess } from '../helpers/server-process.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Where the screenshot goes: dist/ unless told (`DOCS_SCREENSHOT=docs/docs-page.png` refreshes the README's). */
const SCREENSHOT = resolve(ROOT, process.env.DOCS_SCREENSHOT ?? 'dist/screenshots/docs-page.png');
/** Chromium as a quiet, headless test browser: no sandbox (containers), no GPU, nothing fetched in the background. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const absent = existsSync(CHROMIUM)
  ? false
  : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH): the /docs browser test is skipped`;

describe('/docs in a real browser', { skip: absent }, () => {
  let server: ServerProcess;
  let browser: Browser;

  before(async () => {
    server = await ServerProcess.start();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
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

    const operation = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/users"]') });
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    assert.equal((await status.innerText()).trim(), '200');
    assert.match(await operation.locator('.live-responses-table .response .response-col_description').first().innerText(), /"ada@example\.com"/);

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    assert.ok(existsSync(SCREENSHOT));
    assert.deepEqual(problems, []);
    await context.close();
  });
});
