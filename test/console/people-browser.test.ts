import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { axeViolations, browserSkip, consoleScreenshot, fileBrowser, watchPage, type AxeViolation } from '../helpers/browser.js';
import { createdId, ServerProcess } from '../helpers/server-process.js';
import { ALL_ENGINES, createTestDatabase, engineSkip, type TestDatabase } from '../helpers/database.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { tokensService } from '../../src/auth/tokens.service.js';

const PASSWORD = 'console horse 1';

/**
 * The console's People section in Chromium, on a real server over HTTPS (no mail server), walked as an
 * organization administrator would: people searched by tag, a person added, another's registration
 * ejected, a private userfield value set, a reset link made and shown once, and a person deactivated
 * with the keyboard alone. axe-core checks every page; the list and a person's page are photographed.
 */
for (const engine of ALL_ENGINES) {
  describe(`The console's People section in a real browser [${engine}]`, { skip: browserSkip || engineSkip(engine) }, () => {
    let database: TestDatabase;
    let server: ServerProcess;
    let context: BrowserContext;
    let page: Page;
    let token: string;
    let orgId: string;
    let origin: string;
    let grace: string;
    let field: string;
    const problems: string[] = [];
    /** Answers of 400 and more the walk asks for on purpose (a refused search), while `refusing`. */
    const refusals: string[] = [];
    let refusing = false;
    const questions: string[] = [];
    const violations: Record<string, AxeViolation[]> = {};

    const api = async (method: string, path: string, body?: unknown) => {
      const reply = await server.request(method, path, { token, ...(body === undefined ? {} : { body }) });
      assert.ok(reply.status < 300, `${method} ${path}: ${reply.status} ${reply.body}`);
      return reply;
    };
    const checked = async (name: string) => {
      violations[name] = await axeViolations(page);
    };
    const text = async () => (await page.locator('main').innerText()).replace(/\s+/g, ' ');

    before(async () => {
      database = await createTestDatabase(engine);
      orgId = (await organizationsRepository(database.db).create('Northwind Training')).id;
      ({ token } = await tokensService(database.db).create(orgId, { name: 'Set-up' }));
      server = await ServerProcess.start({ DATABASE_URL: database.url });
      const admin = createdId(
        await api('POST', 'users', {
          email: 'admin@example.com',
          password: PASSWORD,
          firstName: 'Ada',
          lastName: 'Admin',
          accountType: 'organizationAdministrator',
        }),
      )!;
      await api('PUT', `users/${admin}/agreements/standard`, { agreed: true });
      const category = createdId(await api('POST', 'userfieldcategories', { name: 'HR notes', type: 'private' }))!;
      field = createdId(await api('POST', 'userfields', { type: 'text', name: 'Salary band', categoryId: category }))!;
      const offering = createdId(await api('POST', 'offerings', { title: 'Forklift safety' }))!;
      const people: [string, string, string, string[]][] = [
        ['grace@example.com', 'Grace', 'Hopper', ['warehouse', 'night']],
        ['alan@example.com', 'Alan', 'Turing', ['office']],
        ['edsger@example.com', 'Edsger', 'Dijkstra', ['warehouse']],
        ['barbara@example.com', 'Barbara', 'Liskov', ['warehouse']],
      ];
      for (const [email, firstName, lastName, tags] of people) {
        const id = createdId(await api('POST', 'users', { email, password: PASSWORD, firstName, lastName, tags }))!;
        if (email.startsWith('grace')) grace = id;
      }
      await api('POST', 'registrations', { userId: grace, offeringId: offering });
      await api('PUT', `users/${grace}/agreements/standard`, { agreed: true });
      origin = `https://localhost:${server.port}`;
      context = await (await fileBrowser()).newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
      page = await context.newPage();
      watchPage(page, problems, () => (refusing ? refusals : problems));
      page.on('dialog', (dialog) => {
        questions.push(dialog.message());
        void dialog.accept();
      });

      await page.goto(`${origin}/o/${orgId}/sign-in?next=${encodeURIComponent(`/o/${orgId}/console`)}`);
      await page.getByLabel('Email').fill('admin@example.com');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${origin}/o/${orgId}/console`);
    });
    after(async () => {
      await context?.close();
      await server?.destroy();
      await database?.drop();
    });

    it('lists and searches people, and keeps a refused filter beside its box', async () => {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'People' }).click();
      await page.waitForURL(/\/console\/people$/);
      assert.match(
        await text(),
        /Barbara Liskov barbara@example\.com Learner active warehouse .* Ada Admin admin@example\.com Organization administrator/,
      );
      await checked('people');
      await page.getByLabel('Tags').fill('warehouse');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/tags=warehouse/);
      const found = await text();
      assert.match(found, /Barbara Liskov .* Edsger Dijkstra .* Grace Hopper/);
      assert.doesNotMatch(found, /Alan Turing/);
      await checked('people, searched');
      await page.screenshot({ path: consoleScreenshot('people.png') });

      refusing = true;
      await page.goto(`${origin}/o/${orgId}/console/people?email=not-an-email`);
      refusing = false;
      assert.deepEqual(refusals, [`400 ${origin}/o/${orgId}/console/people?email=not-an-email`]);
      assert.match(await text(), /Invalid email address/);
      assert.equal(await page.getByLabel('Email').inputValue(), 'not-an-email');
      await checked('people, refused filter');
    });

    it('adds a person with a first password', async () => {
      await page.goto(`${origin}/o/${orgId}/console/people`);
      await page.getByRole('link', { name: 'Add a person' }).click();
      await checked('new person');
      await page.getByLabel('Email').fill('nora@example.com');
      await page.getByLabel('First name').fill('Nora');
      await page.getByLabel('Last name').fill('Quinn');
      await page.getByLabel('Kind of account').selectOption('courseAdministrator');
      await page.getByLabel('First password (optional)').fill('first horse 1');
      await page.getByRole('button', { name: 'Add the person' }).click();
      await page.waitForURL(/\?done=created$/);
      assert.match(await text(), /The person is added\. .*Nora Quinn Email nora@example\.com Kind of account Course administrator/);
      const id = new URL(page.url()).pathname.split('/').pop()!;
      assert.equal(JSON.parse((await api('GET', `users/${id}`)).body).accountType, 'courseAdministrator');
      await checked('person, added');
    });

    it("ejects a person's registration, sets a private value, makes a reset link and deactivates them by keyboard", async () => {
      await page.goto(`${origin}/o/${orgId}/console/people/${grace}`);
      await checked('person');
      await page.getByRole('button', { name: 'Eject Grace Hopper in Forklift safety' }).click();
      await page.waitForURL(/done=ejected/);
      assert.match(questions.at(-1)!, /^Eject Grace Hopper from Forklift safety\?/);
      assert.match(await text(), /The registration is ejected/);
      assert.match(await text(), /Forklift safety ejected/);

      await page.getByLabel('Salary band').fill('B2');
      await page.getByRole('button', { name: 'Save the values' }).click();
      await page.waitForURL(/done=values/);
      assert.equal(JSON.parse((await api('GET', `users/${grace}/userfieldvalues`)).body)[field], 'B2');

      await page.getByRole('button', { name: 'Make a reset link for Grace Hopper' }).click();
      assert.match(await page.locator('#secret').innerText(), new RegExp(`^${origin}/o/${orgId}/reset-password/`));
      assert.doesNotMatch(page.url(), /reset-password/);
      await checked('person, reset link');
      await page.screenshot({ path: consoleScreenshot('person.png'), fullPage: true });

      // By keyboard: the button reached with Tab from the heading's card, sent with Enter (the question accepted).
      await page.goto(`${origin}/o/${orgId}/console/people/${grace}`);
      await page.getByRole('button', { name: 'Deactivate Grace Hopper' }).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(/done=deactivated/);
      assert.match(questions.at(-1)!, /^Deactivate Grace Hopper\?/);
      assert.equal(JSON.parse((await api('GET', `users/${grace}`)).body).active, false);
      assert.match(await text(), /Status deactivated/);
      await checked('person, deactivated');
    });

    it('has no serious or critical violation of axe-core on any page, and no script error', () => {
      assert.deepEqual(
        Object.entries(violations).filter(([, found]) => found.length > 0),
        [],
      );
      assert.ok(Object.keys(violations).length >= 8, Object.keys(violations).join(', '));
      assert.deepEqual(problems, []);
    });
  });
}
