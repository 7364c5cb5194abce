import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkip, consoleScreenshot } from '../helpers/browser.js';
import { ConsoleInBrowser } from '../helpers/console-browser.js';
import { ALL_ENGINES, engineSkip } from '../helpers/database.js';

/**
 * The console's userfields, offerings and agreements in Chromium, on a real server over HTTPS, walked as
 * an organization administrator would: a dropdown field made and made required (the page says how many
 * lack a value), an offering made with a person registered and ejected, the custom agreement previewed
 * and saved. axe-core checks every page; each part is photographed for the docs.
 */
for (const engine of ALL_ENGINES) {
  describe(`The console's userfields, offerings and agreements in a real browser [${engine}]`, { skip: browserSkip || engineSkip(engine) }, () => {
    const session = new ConsoleInBrowser(engine);
    before(async () => {
      await session.start();
      for (const email of ['grace@example.com', 'alan@example.com', 'edsger@example.com'])
        await session.person({ email, firstName: email.split('@')[0] });
      await session.signIn();
    });
    after(() => session.stop());

    it('makes a category and a dropdown field with options, makes it required and says how many lack a value', async () => {
      await session.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Userfields' }).click();
      await session.page.waitForURL(/\/console\/userfields$/);
      await session.page.getByLabel('Name', { exact: true }).fill('Profile');
      await session.page.getByRole('button', { name: 'Create the category' }).click();
      assert.match(await session.text(), /The category is made\./);

      await session.page.getByLabel('Type of a new field').selectOption('dropdown');
      await session.page.getByRole('button', { name: 'New field' }).click();
      await session.page.waitForURL(/\/userfields\/new\?type=dropdown$/);
      await session.checked('new field');
      await session.page.getByLabel('Name', { exact: true }).fill('Team');
      await session.page.getByLabel('Options, one a line').fill('Red\nGreen\nBlue');
      await session.page.getByLabel('Category', { exact: true }).selectOption({ label: 'Profile' });
      await session.page.getByRole('button', { name: 'Create the field' }).click();
      assert.match(await session.text(), /The field is made\./);
      assert.match(await session.text(), /Team Dropdown list Red, Green, Blue/);
      await session.checked('userfields');

      await session.page.getByRole('link', { name: 'Team' }).click();
      assert.match(await session.text(), /4 active people have no value of this field now\./);
      await session.checked('field');
      // By keyboard: the box ticked with the space bar, the form sent with Enter.
      await session.page.getByLabel('Required').focus();
      await session.page.keyboard.press('Space');
      await session.page.getByRole('button', { name: 'Save the field' }).focus();
      await session.page.keyboard.press('Enter');
      // The administrator has no value either: the console asks them first, as a sign-in would.
      await session.page.waitForURL(/\/continue\?/);
      await session.page.getByLabel('Team').selectOption('Red');
      await session.page.getByRole('button', { name: 'Continue' }).click();
      await session.page.waitForURL(/\/console\/userfields\?done=field-saved/);
      assert.match(await session.text(), /Team is required: 3 active people without a value will be asked for one at their next sign-in\./);
      await session.checked('userfields, after making a field required');
      await session.page.screenshot({ path: consoleScreenshot('userfields.png') });
    });

    it('makes an offering, registers a person by email and ejects them', async () => {
      await session.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Offerings' }).click();
      await session.page.getByRole('link', { name: 'Offering categories' }).click();
      await session.checked('offering categories');
      await session.page.getByLabel('Name', { exact: true }).fill('Languages');
      await session.page.getByLabel('Colour (optional)').fill('#0b5cad');
      await session.page.getByRole('button', { name: 'Create the category' }).click();
      assert.match(await session.text(), /The offering category is made\./);
      await session.page.getByRole('link', { name: 'Back to the offerings' }).click();
      await session.checked('offerings');

      await session.page.getByRole('link', { name: 'New offering' }).click();
      await session.checked('new offering');
      await session.page.getByLabel('Title').fill('French for beginners');
      await session.page.getByLabel('Registration opens (UTC)').fill('2020-01-01T09:00');
      await session.page.getByLabel('Catalog description').fill('Ten weeks of conversation.');
      await session.page.getByLabel('Price').fill('120');
      await session.page.getByLabel('Languages').check();
      await session.page.getByLabel('Tags').fill('french beginner');
      await session.page.getByRole('button', { name: 'Create the offering' }).click();
      assert.match(await session.text(), /The offering is made\./);

      await session.page.getByLabel('Email of a person of the organization').fill('grace@example.com');
      await session.page.getByRole('button', { name: 'Register', exact: true }).click();
      assert.match(await session.text(), /The person is registered\./);
      const row = session.page.getByRole('row').filter({ hasText: 'grace@example.com' });
      assert.match(await row.innerText(), /active/);
      await session.checked('offering');
      await row.getByRole('button', { name: /^Eject/ }).click();
      await session.page.waitForURL(/done=ejected/);
      assert.deepEqual(session.questions, ['Eject grace (grace@example.com) from French for beginners? They lose access; no grade is recorded.']);
      assert.match(await session.text(), /The registration is ejected/);
      assert.match(await session.page.getByRole('row').filter({ hasText: 'grace@example.com' }).innerText(), /ejected/);
      const offeringId = new URL(session.page.url()).pathname.split('/').pop()!;
      const [registration] = JSON.parse((await session.api('GET', `registrations?offeringId=${offeringId}`)).body).results;
      assert.equal(registration.status, 'ejected');
      await session.page.evaluate('window.scrollTo(0, 0)');
      await session.page.screenshot({ path: consoleScreenshot('offerings.png') });
    });

    it('edits the custom agreement with a preview, then saves it', async () => {
      await session.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Agreements' }).click();
      await session.checked('agreements');
      const custom = session.page.getByRole('region', { name: 'Custom agreement' });
      await custom.getByLabel('Title').fill('House rules');
      await custom.getByLabel('Text').fill('Be kind to one another.\nBe on time.');
      await custom.getByRole('button', { name: 'Preview the custom agreement' }).click();
      const preview = session.page.getByRole('region', { name: 'Custom agreement' }).locator('.preview-frame');
      assert.match(await preview.innerText(), /House rules\s+Be kind to one another\.\nBe on time\./);
      assert.equal((await session.server.request('GET', 'agreements/custom', { token: session.token })).status, 404, 'a preview saves nothing');
      await session.checked('agreements, previewing');
      // The preview follows what is typed.
      await session.page
        .getByRole('region', { name: 'Custom agreement' })
        .getByLabel('Text')
        .fill('Be kind to one another.\nBe on time.\nAsk for help.');
      assert.match(await preview.locator('.agreement-text').innerText(), /Ask for help\.$/);
      await session.page.getByRole('button', { name: 'Save the custom agreement' }).click();
      // The administrator agrees first, as everyone will at their next sign-in.
      await session.page.waitForURL(/\/continue\?/);
      await session.page.getByLabel(/House rules/).check();
      await session.page.getByRole('button', { name: 'Continue' }).click();
      await session.page.waitForURL(/\/console\/agreements\?done=saved/);
      assert.match(
        await session.text(),
        /The custom agreement is saved\. 3 active people will be asked to agree to it at their next sign-in: 0 who agreed to an earlier text and 3 who never agreed\./,
      );
      assert.equal(JSON.parse((await session.api('GET', 'agreements/custom')).body).text, 'Be kind to one another.\nBe on time.\nAsk for help.');
      await session.checked('agreements, saved');
      await session.page.getByRole('heading', { name: 'Custom agreement' }).evaluate((heading) => heading.scrollIntoView());
      await session.page.screenshot({ path: consoleScreenshot('agreements.png') });
    });

    it('has no serious or critical violation of axe-core on any session.page, and no script error', () => {
      assert.deepEqual(session.violationsFound(), []);
      assert.ok(Object.keys(session.violations).length >= 10, Object.keys(session.violations).join(', '));
      assert.deepEqual(session.problems, []);
    });
  });
}
