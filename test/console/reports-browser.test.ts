import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { browserSkip, consoleScreenshot } from '../helpers/browser.js';
import { ConsoleInBrowser } from '../helpers/console-browser.js';
import { ALL_ENGINES, engineSkip } from '../helpers/database.js';
import { createdId } from '../helpers/server-process.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * The console's reports in Chromium, on a real server over HTTPS with its delivery worker: an
 * organization with offerings, registrations graded and ejected, people deactivated and an endpoint
 * receiving deliveries, read as an organization administrator: every chart drawn by Chart.js, its
 * figures in a table, a CSV downloaded. axe-core checks the page; it is photographed for the docs.
 */
for (const engine of ALL_ENGINES) {
  describe(`The console's reports in a real browser [${engine}]`, { skip: browserSkip || engineSkip(engine) }, () => {
    const session = new ConsoleInBrowser(engine);
    let receiver: WebhookReceiver;

    before(async () => {
      receiver = await WebhookReceiver.start();
      await session.start({ WEBHOOKS_ALLOW_INSECURE_LOOPBACK: 'true', WEBHOOKS_POLL_INTERVAL: '50ms' });
      await session.api('POST', 'webhooks', { url: receiver.url, description: 'HR sync', events: ['user.created', 'registration.created'] });

      const people: string[] = [];
      for (let index = 0; index < 60; index++) {
        people.push(createdId(await session.api('POST', 'users', { email: `learner${index}@example.com`, firstName: `Learner ${index}` }))!);
      }
      for (const person of people.slice(52)) await session.api('PUT', `users/${person}`, { active: false });
      const titles = ['Safety at work', 'French for beginners', 'Spreadsheets', 'First aid'];
      const registrations: string[] = [];
      for (const [rank, title] of titles.entries()) {
        const offering = createdId(await session.api('POST', 'offerings', { title, passingGrade: 60 }))!;
        for (const person of people.slice(0, 50 - rank * 10)) {
          registrations.push(createdId(await session.api('POST', 'registrations', { userId: person, offeringId: offering }))!);
        }
      }
      for (const [index, registration] of registrations.entries()) {
        if (index % 3 === 0) await session.api('PUT', `registrations/${registration}`, { grade: 35 + ((index * 7) % 65) });
        else if (index % 7 === 0) await session.api('PUT', `registrations/${registration}`, { status: 'ejected' });
      }
      // History: the registrations spread over the last weeks, and the sign-ins of those days as the counter kept them.
      for (const [index, registration] of registrations.entries()) {
        await session.database.db
          .updateTable('registrations')
          .set({ created_date: `${day(-((index * 5) % 28))}T09:00:00Z` })
          .where('id', '=', registration)
          .execute();
      }
      await session.database.db
        .insertInto('sign_in_days')
        .values(Array.from({ length: 28 }, (_, index) => ({ org_id: session.orgId, day: day(-28 + index), sign_ins: 5 + ((index * 11) % 17) })))
        .execute();

      await session.signIn();
      await receiver.until(() => receiver.received.length >= 10, 'deliveries to the endpoint');
    });
    after(async () => {
      await session.stop();
      await receiver?.stop();
    });

    it('draws every report with Chart.js, its figures in a table beside it', async () => {
      await session.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Reports' }).click();
      await session.page.waitForURL(/\/console\/reports$/);
      const charts = ['registrations', 'statuses', 'grades', 'sign-ins', 'people', 'webhook-deliveries'];
      for (const chart of charts) {
        // The datasets Chart.js drew on the canvas (the page's script, not this test's, made them).
        const drawn = await session.page.evaluate(`window.Chart?.getChart('chart-${chart}')?.data.datasets.length ?? 0`);
        assert.ok(Number(drawn) > 0, `chart-${chart} is drawn`);
      }
      await session.page.getByText('The figures of people by kind of account').click();
      const figures = await session.page.getByRole('region', { name: 'People by kind of account' }).innerText();
      assert.match(figures.replace(/\s+/g, ' '), /Learner 52 8 Course administrator 0 0 Organization administrator 1 0/);
      await session.checked('reports');
      await session.page.evaluate('window.scrollTo(0, 0)');
      await session.page.screenshot({ path: consoleScreenshot('reports.png'), fullPage: true });
    });

    it('downloads a report as CSV', async () => {
      const [download] = await Promise.all([
        session.page.waitForEvent('download'),
        session.page.locator(`a[href^="/o/${session.orgId}/console/reports/sign-ins.csv"]`).click(),
      ]);
      assert.match(download.suggestedFilename(), new RegExp(`^sign-ins-${day(-89)}-to-${day(0)}\\.csv$`));
      const lines = (await readFile(await download.path(), 'utf8')).trimEnd().split('\n');
      assert.equal(lines[0], 'day,signIns');
      assert.equal(lines.length, 91);
      assert.equal(lines.at(-1), `${day(0)},1`);
    });

    it('refuses dates it cannot read, the dates kept', async () => {
      await session.page.getByLabel('From (UTC)').fill(day(0));
      await session.page.getByLabel('To, included').fill(day(-5));
      await session.page.getByRole('button', { name: 'Show' }).click();
      assert.match(await session.page.locator('main').innerText(), /The last day comes before the first/);
      session.problems.splice(
        session.problems.findIndex((problem) => problem.startsWith('400 ')),
        1,
      ); // the refusal, on purpose
      await session.checked('reports, dates refused');
    });

    it('has no serious or critical violation of axe-core, and no script error', () => {
      assert.deepEqual(session.violationsFound(), []);
      assert.deepEqual(session.problems, []);
    });
  });
}
