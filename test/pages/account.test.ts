import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { textOf, valueOf } from '../helpers/console-sign-in.js';
import { eventProblems, eventsAfter, latestEventId, PRESENT } from '../helpers/events.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { browserOf, createPerson, formActionOf, titleOf } from '../helpers/pages.js';
import { createCategory, createTextField } from '../helpers/userfields.js';

const PASSWORD = 'account horse 1';

let people = 0;
/** A new person, signed in, and what the sign-in answered (the account, or the required steps first). */
async function person(h: Harness, user: Record<string, unknown> = {}) {
  people += 1;
  const email = `account.${people}@example.com`;
  const id = await createPerson(h, { email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace', ...user });
  const browser = browserOf(h);
  const signedIn = await browser.signIn(h.org.id, email, PASSWORD);
  assert.equal(signedIn.status, 303);
  return { id, email, browser, signedIn };
}

/** The events of `work`, checked against `expected`. */
async function emits(h: Harness, expected: Parameters<typeof eventProblems>[1], work: () => Promise<unknown>) {
  const cursor = await latestEventId(h);
  await work();
  assert.deepEqual(eventProblems(await eventsAfter(h, cursor), expected, h.org.id), []);
}

forEachEngine('The account page', (h) => {
  let publicCategory: string;
  let shown: string;
  let secret: string;

  before(async () => {
    publicCategory = await createCategory(h, 'public', 'About you');
    shown = await createTextField(h, publicCategory, { name: 'Job title' });
    const privateCategory = await createCategory(h, 'private', 'HR only');
    secret = await createTextField(h, privateCategory, { name: 'Salary band' });
  });

  it('shows name, language, email, the public fields and the agreements accepted, never a private field', async () => {
    const { id, browser } = await person(h, { locale: 'en' });
    assert.equal((await h.put(`users/${id}/userfieldvalues`, { [shown]: 'Engineer', [secret]: 'B7-confidential' })).statusCode, 204);
    const page = await browser.get(`/o/${h.org.id}/account`);
    assert.equal(page.status, 200);
    assert.equal(titleOf(page.body), 'Your account');
    const text = textOf(page);
    assert.match(text, /account\.\d+@example\.com/);
    assert.equal(valueOf(page, 'firstName'), 'Ada');
    assert.equal(valueOf(page, 'lastName'), 'Lovelace');
    assert.match(page.body, /<option value="en" lang="en"\s+selected>/);
    assert.equal(valueOf(page, `field-${shown}`), 'Engineer');
    assert.match(text, /Job title/);
    const standard = (await h.get('agreements/standard')).json();
    assert.ok(text.includes(`${standard.title} — Accepted on ${new Date().toISOString().slice(0, 10)}`), 'the agreement accepted');
    for (const hidden of ['Salary band', 'B7-confidential', secret]) assert.ok(!page.body.includes(hidden), `the page shows ${hidden}`);
  });

  it('writes name and language through the users service: the same user.updated as the API, and the page speaks French', async () => {
    const { id, browser } = await person(h);
    await browser.get(`/o/${h.org.id}/account`);
    await emits(h, [{ type: 'user.updated', data: { id, firstName: 'Augusta', locale: 'fr' }, previous: { firstName: 'Ada' } }], async () => {
      const saved = await browser.post(`/o/${h.org.id}/account/profile`, { firstName: 'Augusta', lastName: 'Lovelace', locale: 'fr' });
      assert.equal(saved.status, 200);
      assert.match(saved.body, /<html lang="fr">/);
    });
    const user = (await h.get(`users/${id}`)).json();
    assert.equal(user.firstName, 'Augusta');
    assert.equal(user.locale, 'fr');
    const page = await browser.get(`/o/${h.org.id}/account`, { 'accept-language': 'en' });
    assert.match(page.body, /<html lang="fr">/);
    assert.equal(titleOf(page.body), 'Votre compte');
    // A language that is no language is a 400 with the form kept, and nothing written.
    await emits(h, [], async () => {
      const refused = await browser.post(`/o/${h.org.id}/account/profile`, { firstName: 'Kept', lastName: 'Lovelace', locale: 'not a locale!' });
      assert.equal(refused.status, 400);
      assert.equal(valueOf(refused, 'firstName'), 'Kept');
    });
  });

  it('writes the public fields as PUT /users/{id}/userfieldvalues does, and refuses a private field posted by hand', async () => {
    const { id, browser } = await person(h);
    await browser.get(`/o/${h.org.id}/account`);
    await emits(h, [{ type: 'userfieldvalues.updated', data: { userId: id, values: { [shown]: 'Architect' } } }], async () => {
      const saved = await browser.post(`/o/${h.org.id}/account/details`, { shown: [shown], [`field.${shown}`]: 'Architect' });
      assert.equal(saved.status, 200);
      assert.match(textOf(saved), /Your changes have been saved\./);
    });
    // A private field's id put into the form by hand: never stored.
    await emits(h, [], async () => {
      const forged = await browser.post(`/o/${h.org.id}/account/details`, {
        shown: [shown, secret],
        [`field.${secret}`]: 'A1',
        [`field.${shown}`]: 'Architect',
      });
      assert.ok(forged.status === 200 || forged.status === 400, `${forged.status}`);
      assert.ok(!forged.body.includes('Salary band'));
    });
    const values = (await h.get(`users/${id}/userfieldvalues`)).json();
    assert.equal(values[shown], 'Architect');
    assert.equal(values[secret], undefined);
  });

  it('changes the password only with the current one, ends the other sessions, and keeps this one', async () => {
    const { id, email, browser } = await person(h);
    const other = browserOf(h);
    assert.equal((await other.signIn(h.org.id, email, PASSWORD)).status, 303);
    await browser.get(`/o/${h.org.id}/account`);
    await emits(h, [], async () => {
      const wrong = await browser.post(`/o/${h.org.id}/account/password`, {
        current: 'not it',
        password: 'brand new horse 2',
        confirm: 'brand new horse 2',
      });
      assert.equal(wrong.status, 400);
      assert.match(wrong.body, /id="current-error"/);
      const differ = await browser.post(`/o/${h.org.id}/account/password`, { current: PASSWORD, password: 'brand new horse 2', confirm: 'another' });
      assert.equal(differ.status, 400);
      const short = await browser.post(`/o/${h.org.id}/account/password`, { current: PASSWORD, password: 'a', confirm: 'a' });
      assert.equal(short.status, 400);
    });
    await emits(h, [{ type: 'user.updated', data: { id }, previous: { updatedDate: PRESENT } }], async () => {
      const changed = await browser.post(`/o/${h.org.id}/account/password`, {
        current: PASSWORD,
        password: 'brand new horse 2',
        confirm: 'brand new horse 2',
      });
      assert.equal(changed.status, 200);
    });
    assert.equal((await browser.get(`/o/${h.org.id}/account`)).status, 200, 'this browser stays signed in');
    assert.equal((await other.get(`/o/${h.org.id}/account`)).status, 303, 'the other session ended');
    assert.equal((await browserOf(h).signIn(h.org.id, email, PASSWORD)).status, 401);
    assert.equal((await browserOf(h).signIn(h.org.id, email, 'brand new horse 2')).status, 303);
  });
});

forEachEngine('The steps a sign-in requires first', (h) => {
  it('asks for a value of a field made required since, and writes it with its event', async () => {
    const category = await createCategory(h, 'public', 'Profile');
    const field = await createTextField(h, category, { name: 'Department' });
    const { browser: before } = await person(h);
    assert.equal((await before.get(`/o/${h.org.id}/account`)).status, 200, 'nothing required yet');
    assert.ok([200, 204].includes((await h.put(`userfields/${field}`, { required: true })).statusCode));

    const { id, browser, signedIn } = await person(h);
    assert.equal(signedIn.location, `/o/${h.org.id}/continue?next=${encodeURIComponent(`/o/${h.org.id}/account`)}`);
    const steps = await browser.get(signedIn.location);
    assert.equal(titleOf(steps.body), 'Before you continue');
    assert.match(textOf(steps), /Department \(required\)/);
    // The account page waits until the step is done.
    assert.equal((await browser.get(`/o/${h.org.id}/account`)).location, signedIn.location);
    const empty = await browser.post(formActionOf(steps.body)!, { next: `/o/${h.org.id}/account`, shown: field, [`field.${field}`]: '' });
    assert.equal(empty.status, 400);
    await emits(h, [{ type: 'userfieldvalues.updated', data: { userId: id, values: { [field]: 'Research' } } }], async () => {
      const done = await browser.post(formActionOf(steps.body)!, { next: `/o/${h.org.id}/account`, shown: field, [`field.${field}`]: 'Research' });
      assert.equal(done.status, 303);
      assert.equal(done.location, `/o/${h.org.id}/account`);
    });
    assert.equal((await browser.get(`/o/${h.org.id}/account`)).status, 200);
    // A person signed in before the change is asked at their next page of the account.
    assert.match(String((await before.get(`/o/${h.org.id}/account`)).location), /\/continue\?/);
    assert.ok([200, 204].includes((await h.put(`userfields/${field}`, { required: false })).statusCode));
  });

  it('asks to accept a required custom agreement, and a revised standard one, writing each agreement with its event', async () => {
    const { id, browser } = await person(h);
    assert.ok([200, 204].includes((await h.put('agreements/custom', { title: 'House rules', text: 'Be kind.', required: true })).statusCode));
    const standard = (await h.get('agreements/standard')).json();
    assert.ok([200, 204].includes((await h.put('agreements/standard', { text: `${standard.text}\n\nRevised.` })).statusCode));

    const next = await browser.get(`/o/${h.org.id}/account`);
    assert.equal(next.status, 303);
    const steps = await browser.get(next.location!);
    const text = textOf(steps);
    assert.match(text, /I accept “House rules”/);
    assert.match(text, new RegExp(`I accept “${standard.title}”`));
    // Unticked: refused, nothing written.
    await emits(h, [], async () => {
      const refused = await browser.post(formActionOf(steps.body)!, { agree: ['custom'] });
      assert.equal(refused.status, 400);
      assert.match(refused.body, /id="agree-standard-error"/);
    });
    await emits(
      h,
      [
        { type: 'useragreement.updated', data: { userId: id, type: 'custom', agreed: true, title: 'House rules', text: 'Be kind.' } },
        { type: 'useragreement.updated', data: { userId: id, type: 'standard', agreed: true, text: `${standard.text}\n\nRevised.` } },
      ],
      async () => {
        const accepted = await browser.post(formActionOf(steps.body)!, { agree: ['custom', 'standard'] });
        assert.equal(accepted.status, 303);
      },
    );
    const agreements = (await h.get(`users/${id}/agreements`)).json();
    assert.deepEqual(agreements.results.map((agreement: any) => [agreement.type, agreement.agreed]).sort(), [
      ['custom', true],
      ['standard', true],
    ]);
    const after = await browser.get(`/o/${h.org.id}/account`);
    assert.equal(after.status, 200, after.location);
  });

  it('asks for a new password when PUT /users/{id} said requirePasswordChange', async () => {
    const { id, email } = await person(h);
    await h.put(`users/${id}/agreements/custom`, { agreed: true });
    assert.equal((await h.put(`users/${id}`, { password: 'temporary horse 3', requirePasswordChange: true })).statusCode, 204);
    const browser = browserOf(h);
    const signedIn = await browser.signIn(h.org.id, email, 'temporary horse 3');
    assert.match(signedIn.location!, /\/continue\?/);
    const steps = await browser.get(signedIn.location!);
    assert.match(textOf(steps), /new password/i);
    const differ = await browser.post(formActionOf(steps.body)!, { password: 'chosen horse 4', confirm: 'other' });
    assert.equal(differ.status, 400);
    const done = await browser.post(formActionOf(steps.body)!, { password: 'chosen horse 4', confirm: 'chosen horse 4' });
    assert.equal(done.status, 303);
    const account = await browser.get(`/o/${h.org.id}/account`);
    assert.equal(account.status, 200, `signed in with the new password, nothing left to do: ${account.location}`);
    assert.equal((await browserOf(h).signIn(h.org.id, email, 'temporary horse 3')).status, 401);
    const again = await browserOf(h).signIn(h.org.id, email, 'chosen horse 4');
    assert.equal(again.location, `/o/${h.org.id}/account`);
  });
});
