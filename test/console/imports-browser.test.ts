import assert from 'node:assert/strict';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, browserSkip, consoleScreenshot, launchBrowser } from '../helpers/browser.js';
import { forEachEngine } from '../helpers/harness.js';
import { createPerson, listenHttps, testCertificate } from '../helpers/pages.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The committed workbook: headings on row 1 of its first sheet, "Staff"; two of them name this organization's fields otherwise. */
const WORKBOOK = join(ROOT, 'test/fixtures/import/people.xlsx');
const PASSWORD = 'console horse 1';

const certificate = await testCertificate();

/** The acceptance of the console's imports, as an administrator walks it in Chromium over HTTPS: upload, map, preview, import, history. */
forEachEngine(
  'Console imports in a browser',
  (h) => {
    let browser: Browser;
    let server: Awaited<ReturnType<typeof listenHttps>>;
    let staffNumber: string;
    let team: string;

    before(async () => {
      if (browserSkip) return;
      server = await listenHttps(h.app, certificate);
      browser = await launchBrowser();
      staffNumber = await h.create('userfields', { type: 'number', name: 'Staff number', categoryName: 'HR' });
      team = await h.create('userfields', { type: 'dropdown', name: 'Team', categoryName: 'HR', options: [{ name: 'Sales' }, { name: 'Support' }] });
      await createPerson(h, { email: 'admin@example.com', password: PASSWORD, firstName: 'Ada', accountType: 'organizationAdministrator' });
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    /** Every page checked by axe-core: none may break a rule seriously or critically. */
    const violations: Record<string, unknown> = {};
    const checked = async (page: Page, name: string) => {
      violations[name] = await axeViolations(page);
    };

    it(
      'uploads the committed workbook, maps two headings, checks the preview, imports it and finds the job in the history',
      { skip: browserSkip },
      async () => {
        const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('console', (message) => {
          // The pages name no icon: the browser's own guess at /favicon.ico is no page's fault.
          if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) problems.push(`console: ${message.text()}`);
        });
        page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
        page.on('response', (response) => {
          if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
        });
        const consoleUrl = `${server.origin}/o/${h.org.id}/console`;

        await page.goto(`${consoleUrl}/imports`);
        await page.getByLabel('Email').fill('admin@example.com');
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { level: 1, name: 'Imports and exports' }).waitFor();
        await checked(page, 'imports');

        await page.getByLabel('File', { exact: true }).setInputFiles(WORKBOOK);
        await page.getByRole('button', { name: 'Upload and map its headings' }).click();
        await page.getByRole('heading', { level: 1, name: 'Map people.xlsx' }).waitFor();
        await checked(page, 'mapping');
        // Email, First Name, Last Name and Active name properties; Start date nothing (left out); these two are mapped.
        assert.equal(await page.getByRole('combobox', { name: 'Email' }).inputValue(), 'email');
        assert.equal(await page.getByRole('combobox', { name: 'Start date' }).inputValue(), '');
        await page.getByRole('combobox', { name: 'Employee number' }).selectOption({ label: 'Staff number' });
        await page.getByRole('combobox', { name: 'Department' }).selectOption({ label: 'Team' });
        await page.getByRole('button', { name: 'Preview the import' }).click();

        // The page follows the preview (the console's script polls its status) and shows it once done.
        await page.getByText('Nothing was written: this is what the import would do.').waitFor({ timeout: 30_000 });
        await page.getByRole('heading', { name: 'Added (2)' }).waitFor();
        const added = page.getByRole('region', { name: 'Added' });
        assert.match(await added.innerText(), /2\s+ines\.costa@example\.com\s+3\s+tomas\.novak@example\.com/);
        assert.equal((await h.get('users', { query: { email: 'ines.costa@example.com' } })).json().results.length, 0, 'nothing written yet');
        await checked(page, 'preview');
        await page.screenshot({ path: consoleScreenshot('import-preview.png'), fullPage: true });

        await page.getByRole('button', { name: 'Import people.xlsx now' }).click();
        await page.getByText('The import is done.').waitFor({ timeout: 30_000 });
        await checked(page, 'imported');
        const ines = (await h.get('users', { query: { email: 'ines.costa@example.com' } })).json().results[0];
        assert.equal(ines.lastName, 'Costa');
        assert.deepEqual((await h.get(`users/${ines.id}/userfieldvalues`)).json(), { [staffNumber]: 301, [team]: 'Sales' });

        await page.getByRole('link', { name: 'Back to imports and exports' }).click();
        const history = page.getByRole('region', { name: 'Earlier imports and previews, newest first' });
        const rows = history.getByRole('row');
        assert.match(await rows.nth(1).innerText(), /Import\s+succeeded\s+2\s+2\s+0\s+0/);
        assert.match(await rows.nth(2).innerText(), /Preview\s+succeeded\s+2\s+2/);
        await checked(page, 'history');
        await page.screenshot({ path: consoleScreenshot('imports.png'), fullPage: true });

        assert.deepEqual(violations, { imports: [], mapping: [], preview: [], imported: [], history: [] });
        assert.deepEqual(problems, []);
        await context.close();
      },
    );
  },
  { https: certificate },
);
