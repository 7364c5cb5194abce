import assert from 'node:assert/strict';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { browserSkip, consoleScreenshot } from '../helpers/browser.js';
import { ConsoleInBrowser } from '../helpers/console-browser.js';
import { ALL_ENGINES, engineSkip } from '../helpers/database.js';
import { createdId } from '../helpers/server-process.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The committed workbook: headings on row 1 of its first sheet, "Staff"; two of them name this organization's fields otherwise. */
const WORKBOOK = join(ROOT, 'test/fixtures/import/people.xlsx');

/** The acceptance of the console's imports, as an administrator walks it in Chromium over HTTPS: upload, map, preview, import, history. */
for (const engine of ALL_ENGINES) {
  describe(`Console imports in a browser [${engine}]`, { skip: browserSkip || engineSkip(engine) }, () => {
    const session = new ConsoleInBrowser(engine);
    let staffNumber: string;
    let team: string;
    /** The people of the organization with this email, as GET /users lists them. */
    const people = async (email: string) => JSON.parse((await session.api('GET', `users?email=${encodeURIComponent(email)}`)).body).results;

    before(async () => {
      await session.start();
      staffNumber = createdId(await session.api('POST', 'userfields', { type: 'number', name: 'Staff number', categoryName: 'HR' }))!;
      team = createdId(
        await session.api('POST', 'userfields', {
          type: 'dropdown',
          name: 'Team',
          categoryName: 'HR',
          options: [{ name: 'Sales' }, { name: 'Support' }],
        }),
      )!;
      await session.signIn();
    });
    after(() => session.stop());

    it('uploads the committed workbook, maps two headings, checks the preview, imports it and finds the job in the history', async () => {
      const { page } = session;
      await session.nav('Imports and exports');
      await page.getByRole('heading', { level: 1, name: 'Imports and exports' }).waitFor();
      await session.checked('imports');

      await page.getByLabel('File', { exact: true }).setInputFiles(WORKBOOK);
      await page.getByRole('button', { name: 'Upload and map its headings' }).click();
      await page.getByRole('heading', { level: 1, name: 'Map people.xlsx' }).waitFor();
      await session.checked('mapping');
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
      assert.equal((await people('ines.costa@example.com')).length, 0, 'nothing written yet');
      await session.checked('preview');
      await page.screenshot({ path: consoleScreenshot('import-preview.png'), fullPage: true });

      await page.getByRole('button', { name: 'Import people.xlsx now' }).click();
      await page.getByText('The import is done.').waitFor({ timeout: 30_000 });
      await session.checked('imported');
      const ines = (await people('ines.costa@example.com'))[0];
      assert.equal(ines.lastName, 'Costa');
      assert.deepEqual(JSON.parse((await session.api('GET', `users/${ines.id}/userfieldvalues`)).body), { [staffNumber]: 301, [team]: 'Sales' });

      await page.getByRole('link', { name: 'Back to imports and exports' }).click();
      const history = page.getByRole('region', { name: 'Earlier imports and previews, newest first' });
      const rows = history.getByRole('row');
      assert.match(await rows.nth(1).innerText(), /Import\s+succeeded\s+2\s+2\s+0\s+0/);
      assert.match(await rows.nth(2).innerText(), /Preview\s+succeeded\s+2\s+2/);
      await session.checked('history');
      await page.screenshot({ path: consoleScreenshot('imports.png'), fullPage: true });

      assert.deepEqual(Object.keys(session.violations), ['imports', 'mapping', 'preview', 'imported', 'history']);
      assert.deepEqual(session.violationsFound(), []);
      assert.deepEqual(session.problems, []);
    });
  });
}
