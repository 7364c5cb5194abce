import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { signedInAs, textOf, valueOf } from '../helpers/console-sign-in.js';
import { forEachEngine } from '../helpers/harness.js';
import type { PageBrowser, PageReply } from '../helpers/pages.js';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** A CSV download's lines. */
const linesOf = (reply: PageReply) => reply.body.trimEnd().split('\n');

forEachEngine('Console: reports', (h) => {
  let admin: PageBrowser;
  let course: PageBrowser;
  let learner: PageBrowser;
  let reports: string;
  const today = day(0);
  const offerings: Record<string, string> = {};
  let webhookId: string;

  before(async () => {
    // Four sign-ins in this organization today; one in another, never counted here.
    ({ browser: admin } = await signedInAs(h, 'organizationAdministrator'));
    ({ browser: course } = await signedInAs(h, 'courseAdministrator'));
    ({ browser: learner } = await signedInAs(h, 'learner'));
    await signedInAs(h, 'learner');
    reports = `/o/${h.org.id}/console/reports`;

    webhookId = await h.create('webhooks', { url: 'https://hooks.example.com/training', events: ['user.created'] });
    const people = [];
    for (const name of ['ann', 'bob', 'cy', 'dee']) people.push(await h.create('users', { email: `${name}@example.com`, firstName: name }));
    assert.equal((await h.put(`users/${people[3]}`, { active: false })).statusCode, 204);

    offerings.algebra = await h.create('offerings', { title: 'Algebra', passingGrade: 50 });
    offerings.biology = await h.create('offerings', { title: 'Biology', passingGrade: 50 });
    offerings.formula = await h.create('offerings', { title: '=HYPERLINK("https://evil.example")', passingGrade: 50 });
    const register = (user: string, offering: string) => h.create('registrations', { userId: user, offeringId: offering });
    const passed = await register(people[0]!, offerings.algebra);
    const failed = await register(people[1]!, offerings.algebra);
    await register(people[2]!, offerings.algebra);
    const ejected = await register(people[0]!, offerings.biology);
    const older = await register(people[1]!, offerings.biology);
    await register(people[2]!, offerings.formula);
    assert.equal((await h.put(`registrations/${passed}`, { grade: 95 })).statusCode, 204);
    assert.equal((await h.put(`registrations/${failed}`, { grade: 40 })).statusCode, 204);
    assert.equal((await h.put(`registrations/${ejected}`, { status: 'ejected' })).statusCode, 204);
    // A registration made ten days ago: only the date changes, so that a range can leave it out.
    await h.database.db
      .updateTable('registrations')
      .set({ created_date: `${day(-10)}T08:00:00Z` })
      .where('id', '=', older)
      .execute();

    // Another organization: its people, offerings, registrations, sign-ins and deliveries are never counted here.
    const other = await h.createOrganization('Elsewhere');
    await signedInAs(h, 'organizationAdministrator', other.id, other.token);
    await h.post('webhooks', { url: 'https://hooks.example.com/elsewhere', events: ['user.created'] }, { token: other.token });
    const stranger = await h.create('users', { email: 'stranger@example.com' }, { token: other.token });
    const theirs = await h.create('offerings', { title: 'Algebra' }, { token: other.token });
    await h.create('registrations', { userId: stranger, offeringId: theirs }, { token: other.token });
  });

  it('draws every report for an organization administrator: a chart, the table of its figures, and a CSV link keeping the dates', async () => {
    const page = await admin.get(reports);
    assert.equal(page.status, 200, textOf(page).slice(0, 500));
    for (const title of [
      'Registrations per offering over time',
      'Status and grades per offering',
      'Sign-ins per day',
      'Active and deactivated people',
      'Webhook deliveries per endpoint',
    ]) {
      assert.ok(textOf(page).includes(title), title);
    }
    for (const chart of ['registrations', 'statuses', 'grades', 'sign-ins', 'people', 'webhook-deliveries']) {
      assert.match(page.body, new RegExp(`<canvas\\s+id="chart-${chart}"[^>]*data-table="#figures-${chart}"`), chart);
      assert.match(page.body, new RegExp(`<details id="figures-${chart}">`), chart);
    }
    assert.match(
      page.body,
      /<script src="\/o\/assets\/chart\.[0-9a-f]{16}\.js" defer><\/script>\s*<script src="\/o\/assets\/console\.[0-9a-f]{16}\.js" defer>/,
    );
    assert.match(page.body, new RegExp(`href="${reports}/sign-ins\\.csv\\?from=${day(-89)}&amp;to=${today}"`));
    assert.equal(valueOf(page, 'range-from'), day(-89));
    assert.equal(valueOf(page, 'range-to'), today);
    assert.match(textOf(page), /Registrations per offering, by status Offering Active Passed Failed Ejected Algebra 1 1 1 0 Biology 1 0 0 1/);
    assert.match(textOf(page), new RegExp(`Sign-ins per day Day Sign-ins ${day(-89)} 0 .* ${day(-1)} 0 ${today} 4 `));
  });

  it('gives registrations per offering and day as CSV, with the dates given, and neutralises a title a spreadsheet would run', async () => {
    const all = await admin.get(`${reports}/registrations.csv`);
    assert.equal(all.status, 200);
    assert.equal(all.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(all.headers['content-disposition'], `attachment; filename="registrations-${day(-89)}-to-${today}.csv"`);
    assert.equal(all.headers['cache-control'], 'no-store');
    assert.deepEqual(linesOf(all), [
      'period,offeringId,offering,registrations',
      `${day(-10)},${offerings.biology},Biology,1`,
      `${today},${offerings.algebra},Algebra,3`,
      `${today},${offerings.biology},Biology,1`,
      `${today},${offerings.formula},"'=HYPERLINK(""https://evil.example"")",1`,
    ]);
    const recent = await admin.get(`${reports}/registrations.csv?from=${day(-5)}&to=${today}`);
    assert.equal(recent.headers['content-disposition'], `attachment; filename="registrations-${day(-5)}-to-${today}.csv"`);
    assert.equal(linesOf(recent).length, 4);
    assert.ok(!recent.body.includes(day(-10)));
    // Over more than three months, per month.
    const yearly = await admin.get(`${reports}/registrations.csv?from=${day(-200)}&to=${today}`);
    assert.ok(linesOf(yearly).includes(`${today.slice(0, 7)},${offerings.algebra},Algebra,3`), yearly.body);
  });

  it('gives the status and grade bands of each offering as CSV', async () => {
    const outcomes = await admin.get(`${reports}/outcomes.csv`);
    assert.equal(outcomes.status, 200);
    const bands = ['0-9', '10-19', '20-29', '30-39', '40-49', '50-59', '60-69', '70-79', '80-89', '90-100'];
    assert.deepEqual(linesOf(outcomes), [
      `offeringId,offering,registrations,active,passed,failed,ejected,${bands.map((band) => `grade ${band}`).join(',')}`,
      `${offerings.algebra},Algebra,3,1,1,1,0,0,0,0,0,1,0,0,0,0,1`,
      `${offerings.biology},Biology,2,1,0,0,1,0,0,0,0,0,0,0,0,0,0`,
      `${offerings.formula},"'=HYPERLINK(""https://evil.example"")",1,1,0,0,0,0,0,0,0,0,0,0,0,0,0`,
    ]);
  });

  it("gives sign-ins per day, people by kind and state, and deliveries per endpoint, none of another organization's", async () => {
    const signIns = await admin.get(`${reports}/sign-ins.csv?from=${day(-2)}&to=${today}`);
    assert.deepEqual(linesOf(signIns), ['day,signIns', `${day(-2)},0`, `${day(-1)},0`, `${today},4`]);

    const people = await admin.get(`${reports}/people.csv`);
    assert.equal(people.headers['content-disposition'], `attachment; filename="people-${today}.csv"`);
    assert.deepEqual(linesOf(people), ['accountType,active,deactivated', 'learner,5,1', 'courseAdministrator,1,0', 'organizationAdministrator,1,0']);

    const deliveries = await admin.get(`${reports}/webhook-deliveries.csv`);
    // Each person made after the endpoint: a user.created delivery, none attempted here.
    assert.deepEqual(linesOf(deliveries), ['webhookId,url,pending,succeeded,failed', `${webhookId},https://hooks.example.com/training,4,0,0`]);
  });

  it('counts each sign-in, in the sign-in’s own transaction', async () => {
    const before = linesOf(await admin.get(`${reports}/sign-ins.csv?from=${today}&to=${today}`));
    await signedInAs(h, 'learner');
    const after = linesOf(await admin.get(`${reports}/sign-ins.csv?from=${today}&to=${today}`));
    assert.equal(Number(after[1]!.split(',')[1]), Number(before[1]!.split(',')[1]) + 1);
  });

  it('gives a course administrator the registrations reports only: the others answer 403; a learner gets none', async () => {
    const page = await course.get(reports);
    assert.equal(page.status, 200);
    assert.match(textOf(page), /Registrations per offering over time/);
    assert.match(textOf(page), /Status and grades per offering/);
    assert.doesNotMatch(textOf(page), /Sign-ins per day|Active and deactivated people|Webhook deliveries/);
    for (const report of ['registrations', 'outcomes']) assert.equal((await course.get(`${reports}/${report}.csv`)).status, 200, report);
    for (const report of ['sign-ins', 'people', 'webhook-deliveries']) {
      const refused = await course.get(`${reports}/${report}.csv`);
      assert.equal(refused.status, 403, report);
      assert.doesNotMatch(refused.headers['content-type'] as string, /csv/);
    }
    assert.equal((await learner.get(reports)).status, 403);
    for (const report of ['registrations', 'outcomes', 'sign-ins', 'people', 'webhook-deliveries']) {
      assert.equal((await learner.get(`${reports}/${report}.csv`)).status, 403, report);
    }
    assert.equal((await course.get(`${reports}/unknown.csv`)).status, 404);
  });

  it('refuses dates it cannot read with a 400, what was typed kept and the problem beside its box', async () => {
    const cases = [
      { query: { from: '2026-02-30', to: today }, field: 'range-from', problem: /Give a day as yyyy-mm-dd/ },
      { query: { from: '2026-13-01', to: today }, field: 'range-from', problem: /Give a day as yyyy-mm-dd/ },
      { query: { from: day(-3), to: 'yesterday' }, field: 'range-to', problem: /Give a day as yyyy-mm-dd/ },
      { query: { from: today, to: day(-3) }, field: 'range-to', problem: /The last day comes before the first/ },
      { query: { from: day(-400), to: today }, field: 'range-from', problem: /366 days at most/ },
    ];
    for (const { query, field, problem } of cases) {
      const search = new URLSearchParams(query).toString();
      for (const path of [reports, `${reports}/registrations.csv`]) {
        const refused = await admin.get(`${path}?${search}`);
        assert.equal(refused.status, 400, `${path}?${search}`);
        assert.match(refused.headers['content-type'] as string, /^text\/html/);
        assert.match(textOf(refused), problem);
        assert.equal(valueOf(refused, 'range-from'), query.from);
        assert.equal(valueOf(refused, 'range-to'), query.to);
        assert.match(refused.body, new RegExp(`id="${field}"[^>]*aria-invalid="true"`));
        assert.doesNotMatch(refused.body, /<canvas/);
      }
    }
  });

  it("shows another organization's administrator their own figures only", async () => {
    const other = await h.createOrganization('Third');
    const { browser } = await signedInAs(h, 'organizationAdministrator', other.id, other.token);
    const base = `/o/${other.id}/console/reports`;
    assert.deepEqual(linesOf(await browser.get(`${base}/registrations.csv`)), ['period,offeringId,offering,registrations']);
    assert.deepEqual(linesOf(await browser.get(`${base}/people.csv`)), [
      'accountType,active,deactivated',
      'learner,0,0',
      'courseAdministrator,0,0',
      'organizationAdministrator,1,0',
    ]);
    assert.deepEqual(linesOf(await browser.get(`${base}/sign-ins.csv?from=${today}&to=${today}`)), ['day,signIns', `${today},1`]);
    assert.deepEqual(linesOf(await browser.get(`${base}/webhook-deliveries.csv`)), ['webhookId,url,pending,succeeded,failed']);
    const page = await browser.get(base);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /Algebra|hooks\.example\.com/);
    // This organization's administrator, at the other's address: not theirs.
    assert.notEqual((await admin.get(`${base}/people.csv`)).status, 200);
  });
});
