import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tokensService } from '../../src/auth/tokens.service.js';
import { browserSkip, consoleScreenshot } from '../helpers/browser.js';
import { ConsoleInBrowser } from '../helpers/console-browser.js';
import { ALL_ENGINES, engineSkip } from '../helpers/database.js';
import { createdId } from '../helpers/server-process.js';

/** The audit trail as an administrator reads it in Chromium over HTTPS: changes by a token and by SCIM, filtered, one opened. */
for (const engine of ALL_ENGINES) {
  describe(`Console audit trail in a browser [${engine}]`, { skip: browserSkip || engineSkip(engine) }, () => {
    const session = new ConsoleInBrowser(engine);

    before(async () => {
      await session.start();
      const { server } = session;
      const { token } = await tokensService(session.database.db).create(session.orgId, { name: 'HR sync' });
      const grace = createdId(
        await server.request('POST', 'users', { token, body: { email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' } }),
      );
      await server.request('PUT', `users/${grace}`, { token, body: { lastName: 'Brewster Hopper', tags: ['navy'] } });
      await server.request('POST', 'offerings', { token, body: { title: 'Compilers 101' } });
      const { token: scim } = await tokensService(session.database.db).create(session.orgId, { name: 'Okta', scopes: ['scim'] });
      const linus = await server.request('POST', '/scim/v2/Users', {
        token: scim,
        body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'linus@example.com' },
        headers: { 'content-type': 'application/scim+json' },
      });
      assert.equal(linus.status, 201, linus.body);
      await session.signIn();
    });
    after(() => session.stop());

    it('lists who changed what, filters by the kind of actor, and opens a change with the keyboard', async () => {
      const { page } = session;
      await session.nav('Audit trail');
      await page.getByRole('heading', { level: 1, name: 'Audit trail' }).waitFor();
      await session.checked('trail');
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
      await session.checked('opened');
      await page.screenshot({ path: consoleScreenshot('audit.png'), fullPage: true });

      await page.getByRole('combobox', { name: 'Made by' }).selectOption({ label: 'SCIM' });
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/actorType=scim/);
      assert.equal(await rows.count(), 1, "SCIM's one change");
      assert.match(await rows.nth(0).innerText(), /user\.created[\s\S]*SCIM[\s\S]*Okta/);
      await session.checked('filtered');

      assert.deepEqual(Object.keys(session.violations), ['trail', 'opened', 'filtered']);
      assert.deepEqual(session.violationsFound(), []);
      assert.deepEqual(session.problems, []);
    });
  });
}
