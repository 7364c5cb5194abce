import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eventsAfter, latestEventId } from '../helpers/events.js';
import { forEachEngine } from '../helpers/harness.js';
import { CONSOLE_PASSWORD, signedInAs, textOf, valueOf } from '../helpers/console-sign-in.js';
import { browserOf, createPerson, type PageBrowser } from '../helpers/pages.js';

forEachEngine('Console: agreements', (h) => {
  let admin: PageBrowser;
  let adminId: string;
  let agreements: string;

  before(async () => {
    ({ browser: admin, userId: adminId } = await signedInAs(h, 'organizationAdministrator'));
    agreements = `/o/${h.org.id}/console/agreements`;
  });

  it('is for organization administrators: a course administrator and a learner get 403 and change nothing', async () => {
    for (const kind of ['courseAdministrator', 'learner'] as const) {
      const { browser } = await signedInAs(h, kind);
      assert.equal((await browser.get(agreements)).status, 403, kind);
      assert.equal((await browser.post(`${agreements}/custom`, { title: 'Mine', text: 'Mine' })).status, 403, kind);
    }
    assert.equal((await h.get('agreements/custom')).statusCode, 404);
    assert.equal((await admin.get(agreements)).status, 200);
  });

  it('previews a text as people see it at sign-in without saving it', async () => {
    const cursor = await latestEventId(h);
    const previewed = await admin.post(`${agreements}/custom`, { title: 'House rules', text: 'Be kind.\r\nBe <b>on time</b>.', preview: 'true' });
    assert.equal(previewed.status, 200);
    assert.match(textOf(previewed), /As people see it at sign-in \(not saved\) House rules Be kind\. Be <b>on time<\/b>\./);
    assert.match(previewed.body, /<div class="agreement-text" tabindex="0">Be kind\.\nBe &lt;b&gt;on time&lt;\/b&gt;\.<\/div>/);
    assert.match(previewed.body, /<input\s+type="checkbox"\s+name="agree"\s+value="custom"\s+disabled/);
    assert.equal(valueOf(previewed, 'custom-title'), 'House rules');
    assert.equal(valueOf(previewed, 'custom-text'), 'Be kind.\nBe <b>on time</b>.');
    assert.equal((await h.get('agreements/custom')).statusCode, 404);
    assert.deepEqual(await eventsAfter(h, cursor), []);
  });

  it('defines the custom agreement, always required, and says who will be asked; the event is in the feed', async () => {
    const cursor = await latestEventId(h);
    const saved = await admin.post(`${agreements}/custom`, { title: 'House rules', text: 'Be kind.\r\nBe on time.', required: 'false' });
    assert.equal(saved.status, 303, textOf(saved).slice(0, 400));
    const custom = (await h.get('agreements/custom')).json();
    assert.deepEqual([custom.title, custom.text, custom.required], ['House rules', 'Be kind.\nBe on time.', true]);
    const events = await eventsAfter(h, cursor);
    assert.deepEqual(
      events.map((event) => `${event.type} ${event.data.type}`),
      ['agreement.updated custom'],
    );
    const active = (await h.get('users', { query: { active: 'true', limit: '100' } })).json().results.length;
    // The administrator too: the next page of the console asks them to agree first.
    const page = await admin.follow(saved, (location) => location.includes('/continue'));
    assert.match(page.location!, /\/continue\?next=/);
    await h.put(`users/${adminId}/agreements/custom`, { agreed: true });
    const after = await admin.get(`${agreements}?done=saved&type=custom`);
    assert.match(
      textOf(after),
      new RegExp(
        `The custom agreement is saved\\. ${active - 1} active people will be asked to agree to it at their next sign-in: 0 who agreed to an earlier text and ${active - 1} who never agreed`,
      ),
    );
    assert.match(
      textOf(after),
      /1 active person agreed to it as it reads now: if you change its title or text, they will be asked to agree again at their next sign-in/,
    );
  });

  it('revises the standard agreement, and a revision asks again everyone who had agreed to it', async () => {
    const standard = (await h.get('agreements/standard')).json();
    // Someone who agreed to the standard agreement as it reads now, and to the custom one.
    const email = 'agreed.before@example.com';
    const person = await createPerson(h, { email, password: CONSOLE_PASSWORD });
    await h.put(`users/${person}/agreements/custom`, { agreed: true });
    const agreedNow = async () => {
      const page = await admin.get(agreements);
      const match = /Standard agreement .*?(\d+) active (?:people|person) agreed to it as it reads now/.exec(textOf(page));
      return Number(match![1]);
    };
    const before = await agreedNow();
    assert.ok(before >= 2, `${before}`);
    const unchanged = await admin.post(`${agreements}/standard`, {
      title: standard.title,
      text: standard.text.replace(/\n/g, '\r\n'),
      required: 'true',
    });
    assert.equal(unchanged.status, 303);
    assert.equal((await h.get('agreements/standard')).json().updatedDate, standard.updatedDate, 'a text sent back as it was is no revision');
    const revised = await admin.post(`${agreements}/standard`, { title: standard.title, text: `${standard.text}\r\nRevised.`, required: 'true' });
    assert.equal(revised.status, 303);
    assert.equal((await h.get('agreements/standard')).json().text, `${standard.text}\nRevised.`);
    // Those who had agreed are asked again at their next sign-in.
    const signedIn = await browserOf(h).signIn(h.org.id, email, CONSOLE_PASSWORD);
    assert.match(signedIn.location!, /\/continue/);
    // The administrator too, who agrees again to get back to the console: the only one who agreed to it as it reads now.
    assert.match((await admin.get(agreements)).location!, /\/continue/);
    await h.put(`users/${adminId}/agreements/standard`, { agreed: true });
    assert.equal(await agreedNow(), 1);
  });

  it('refuses a blank title or text with 400, keeping what was typed', async () => {
    const refused = await admin.post(`${agreements}/standard`, { title: '   ', text: 'Some text', required: 'true' });
    assert.equal(refused.status, 400);
    assert.match(textOf(refused), /not blank/);
    assert.equal(valueOf(refused, 'standard-text'), 'Some text');
    assert.match(refused.body, /id="standard-title"[^>]*aria-invalid="true"/);
    assert.equal((await admin.post(`${agreements}/other`, { title: 'T', text: 'X' })).status, 404);
  });
});
