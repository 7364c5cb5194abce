import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { DEFAULT_PEOPLE_SETTINGS, type PeopleSettings } from '../../src/accounts/settings.js';
import { eventsAfter, latestEventId } from '../helpers/events.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { startMailbox } from '../helpers/mailbox.js';
import { CONSOLE_PASSWORD, signedInAs, textOf, valueOf } from '../helpers/console-sign-in.js';
import { browserOf, type PageBrowser } from '../helpers/pages.js';

const user = async (h: Harness, id: string) => (await h.get(`users/${id}`)).json();
const idIn = (location: string | undefined) => location!.split('?')[0]!.split('/').pop()!;

forEachEngine('Console: people', (h) => {
  let admin: PageBrowser;
  let adminId: string;
  let people: string;

  before(async () => {
    ({ browser: admin, userId: adminId } = await signedInAs(h, 'organizationAdministrator'));
    people = `/o/${h.org.id}/console/people`;
  });

  it('is for organization administrators: a course administrator and a learner get 403 on every page and form', async () => {
    const course = (await signedInAs(h, 'courseAdministrator')).browser;
    const learner = (await signedInAs(h, 'learner')).browser;
    const id = await h.create('users', { email: 'permissions.person@example.com' });
    for (const path of [people, `${people}/new`, `${people}/${id}`]) {
      assert.equal((await admin.get(path)).status, 200, `administrator ${path}`);
      assert.equal((await course.get(path)).status, 403, `course administrator ${path}`);
      assert.equal((await learner.get(path)).status, 403, `learner ${path}`);
    }
    assert.doesNotMatch((await course.get(`/o/${h.org.id}/console`)).body, /console\/people"/);
    for (const [path, form] of [
      [people, { email: 'by.course@example.com' }],
      [`${people}/${id}`, { email: 'changed@example.com', accountType: 'learner' }],
      [`${people}/${id}/active`, { active: 'false' }],
      [`${people}/${id}/password`, { password: 'course horse 2' }],
      [`${people}/${id}/reset-link`, {}],
      [`${people}/${id}/userfields`, {}],
    ] as const) {
      assert.equal((await course.post(path, form)).status, 403, path);
      assert.equal((await learner.post(path, form)).status, 403, path);
    }
    assert.equal((await user(h, id)).email, 'permissions.person@example.com');
    assert.equal((await user(h, id)).active, true);
  });

  it('lists people newest first and filters as GET /users does: email, names, tags, status, kind of account and dates', async () => {
    const ada = await h.create('users', { email: 'ada.filter@example.com', firstName: 'Ada', lastName: 'Lovelace', tags: ['filter', 'math'] });
    const grace = await h.create('users', { email: 'grace.filter@example.com', firstName: 'Grace', lastName: 'Hopper', tags: ['filter'] });
    await h.put(`users/${grace}`, { active: false });
    const alan = await h.create('users', {
      email: 'alan.filter@example.com',
      firstName: 'Alan',
      tags: ['filter'],
      accountType: 'courseAdministrator',
    });
    const shown = async (query: Record<string, string>) => {
      const page = await admin.get(`${people}?${new URLSearchParams(query).toString()}`);
      assert.equal(page.status, 200, textOf(page).slice(0, 300));
      return [...page.body.matchAll(/href="\/o\/\w+\/console\/people\/(\w{32})"/g)].map((match) => match[1]);
    };
    assert.deepEqual(await shown({ tags: 'filter' }), [alan, grace, ada]);
    assert.deepEqual(await shown({ email: 'ADA.filter@example.com' }), [ada]);
    assert.deepEqual(await shown({ firstName: 'gra', tags: 'filter' }), [grace]);
    assert.deepEqual(await shown({ lastName: 'love' }), [ada]);
    // One or two letters: the start of the name only (an index serves it at any size), any case.
    assert.deepEqual(await shown({ firstName: 'a', tags: 'filter' }), [alan, ada]);
    assert.deepEqual(await shown({ lastName: 'LO', tags: 'filter' }), [ada]);
    assert.deepEqual(await shown({ lastName: 'ov', tags: 'filter' }), []);
    assert.deepEqual(await shown({ lastName: 'ove', tags: 'filter' }), [ada]);
    assert.match(textOf(await admin.get(people)), /One or two letters: names starting with them\./);
    assert.deepEqual(await shown({ tags: 'filter math' }), [ada]);
    assert.deepEqual(await shown({ tags: 'filter', active: 'false' }), [grace]);
    assert.deepEqual(await shown({ tags: 'filter', active: 'true' }), [alan, ada]);
    assert.deepEqual(await shown({ tags: 'filter', accountType: 'courseAdministrator' }), [alan]);
    assert.deepEqual(await shown({ tags: 'filter', accountType: 'learner' }), [grace, ada]);
    const year = new Date().getUTCFullYear();
    assert.deepEqual(await shown({ tags: 'filter', createdDate: `${year}/..` }), [alan, grace, ada]);
    assert.deepEqual(await shown({ tags: 'filter', createdDate: `..${'/'}${year - 1}` }), []);
    assert.deepEqual(await shown({ tags: 'filter', lastLoginDate: String(year) }), []);
    const page = await admin.get(`${people}?tags=filter`);
    assert.match(textOf(page), /Ada Lovelace ada\.filter@example\.com Learner active filter, math/);
    assert.match(textOf(page), /Grace Hopper grace\.filter@example\.com Learner deactivated/);
    assert.equal(valueOf(page, 'filter-tags'), 'filter');
    assert.match(textOf(await admin.get(`${people}?tags=nobody`)), /Nobody matches these filters\./);
  });

  it("pages by a person's place in the list, forwards and back, keeping the filters", async () => {
    const made: string[] = [];
    for (let index = 0; index < 53; index += 1) made.push(await h.create('users', { email: `paged.${index}@example.com`, tags: ['paged'] }));
    const newestFirst = [...made].reverse();
    const idsOf = (body: string) => [...body.matchAll(/href="\/o\/\w+\/console\/people\/(\w{32})"/g)].map((match) => match[1]);
    const linkOf = (body: string, rel: string) => new RegExp(`rel="${rel}" href="([^"]+)"`).exec(body)?.[1]?.replaceAll('&amp;', '&');
    const first = await admin.get(`${people}?tags=paged`);
    assert.deepEqual(idsOf(first.body), newestFirst.slice(0, 50));
    assert.equal(linkOf(first.body, 'prev'), undefined);
    const older = linkOf(first.body, 'next')!;
    assert.match(older, /tags=paged&after=/);
    const second = await admin.get(older);
    assert.deepEqual(idsOf(second.body), newestFirst.slice(50));
    assert.equal(linkOf(second.body, 'next'), undefined);
    const back = await admin.get(linkOf(second.body, 'prev')!);
    assert.deepEqual(idsOf(back.body), newestFirst.slice(0, 50));
    assert.equal(linkOf(back.body, 'prev'), undefined);

    const refused = await admin.get(`${people}?tags=paged&after=yesterday`);
    assert.equal(refused.status, 400);
    assert.match(textOf(refused), /not one the console gave/);
    assert.equal(valueOf(refused, 'filter-tags'), 'paged');
  });

  it('refuses a filter the API refuses with a 400, the form kept and the problem beside its box', async () => {
    const refused = await admin.get(`${people}?email=not-an-email&firstName=Ada&createdDate=2026-13`);
    assert.equal(refused.status, 400);
    assert.equal(valueOf(refused, 'filter-email'), 'not-an-email');
    assert.equal(valueOf(refused, 'filter-firstName'), 'Ada');
    assert.equal(valueOf(refused, 'filter-createdDate'), '2026-13');
    assert.match(refused.body, /id="filter-email-error">Invalid email address/);
    assert.match(refused.body, /id="filter-createdDate-error">must be a date/);
    assert.equal((await admin.get(`${people}?accountType=king`)).status, 400);
  });

  it("adds a person with a first password to change at the first sign-in; the event is the API's", async () => {
    const cursor = await latestEventId(h);
    const created = await admin.post(people, {
      email: 'New.Person@example.com',
      firstName: 'Nora',
      lastName: 'Quinn',
      username: 'nquinn',
      locale: 'fr',
      tags: 'sales, paris',
      accountType: 'courseAdministrator',
      password: 'first horse 1',
      requirePasswordChange: 'true',
    });
    assert.equal(created.status, 303, textOf(created).slice(0, 500));
    const id = idIn(created.location);
    const made = await user(h, id);
    assert.deepEqual(
      [made.email, made.firstName, made.lastName, made.username, made.locale, made.tags, made.accountType, made.active],
      ['New.Person@example.com', 'Nora', 'Quinn', 'nquinn', 'fr', ['sales', 'paris'], 'courseAdministrator', true],
    );
    assert.deepEqual(
      (await eventsAfter(h, cursor)).map((event) => `${event.type} ${event.data.id}`),
      [`user.created ${id}`],
    );
    assert.match(textOf(await admin.follow(created)), /The person is added\./);
    await h.put(`users/${id}/agreements/standard`, { agreed: true });
    const nora = browserOf(h);
    const signedIn = await nora.signIn(h.org.id, 'new.person@example.com', 'first horse 1');
    assert.equal(signedIn.status, 303);
    assert.match(signedIn.location!, /\/continue/);
    assert.match((await nora.follow(signedIn)).body, /name="password"/);
  });

  it('refuses a person the API refuses with a 400: the form kept, the problem beside the field, the password never shown again', async () => {
    await h.create('users', { email: 'taken.person@example.com' });
    const cursor = await latestEventId(h);
    const taken = await admin.post(people, {
      email: 'TAKEN.person@example.com',
      firstName: 'Kept',
      accountType: 'learner',
      password: 'secret horse 9',
    });
    assert.equal(taken.status, 400);
    assert.equal(valueOf(taken, 'person-firstName'), 'Kept');
    assert.match(taken.body, /id="person-email-error">is already in use/);
    assert.doesNotMatch(taken.body, /secret horse 9/);
    const short = await admin.post(people, { email: 'short.password@example.com', accountType: 'learner', password: 'a1' });
    assert.equal(short.status, 400);
    assert.match(short.body, /id="person-password-error">/);
    assert.equal((await admin.post(people, { email: 'no.kind@example.com', accountType: 'emperor' })).status, 400);
    assert.equal((await admin.post(people, { email: 'bad username@example.com', accountType: 'learner' })).status, 400);
    assert.deepEqual(await eventsAfter(h, cursor), []);
  });

  it("shows a person's page: profile, kind of account, private userfield values, registrations, agreements and last sign-in", async () => {
    const category = await h.create('userfieldcategories', { name: 'HR notes', type: 'private' });
    const field = await h.create('userfields', { type: 'text', name: 'Salary band', categoryId: category, size: 'medium' });
    const id = await h.create('users', { email: 'page.person@example.com', firstName: 'Paige', password: CONSOLE_PASSWORD });
    await h.put(`users/${id}/userfieldvalues`, { [field]: 'B2' });
    const offering = await h.create('offerings', { title: 'Forklift safety' });
    await h.create('registrations', { userId: id, offeringId: offering });
    await h.put(`users/${id}/agreements/standard`, { agreed: true });
    assert.equal((await browserOf(h).signIn(h.org.id, 'page.person@example.com', CONSOLE_PASSWORD)).status, 303);
    const page = await admin.get(`${people}/${id}`);
    assert.equal(page.status, 200);
    const text = textOf(page);
    assert.match(text, /Email page\.person@example\.com Kind of account Learner Status active Last sign-in \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    assert.match(text, /HR notes \(private: administrators only\)/);
    assert.equal(valueOf(page, `field-${field}`), 'B2');
    assert.match(text, /Forklift safety active/);
    assert.match(text, /standard .* \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    assert.equal(valueOf(page, 'person-firstName'), 'Paige');
  });

  it('edits the profile and kind of account, clearing what is emptied; the same form sent back writes nothing', async () => {
    const id = await h.create('users', { email: 'edit.person@example.com', firstName: 'Ed', lastName: 'Itor', tags: ['old'] });
    const cursor = await latestEventId(h);
    const saved = await admin.post(`${people}/${id}`, {
      email: 'edited.person@example.com',
      firstName: 'Edith',
      lastName: '',
      username: '',
      locale: 'en',
      tags: '',
      accountType: 'organizationAdministrator',
    });
    assert.equal(saved.status, 303, textOf(saved).slice(0, 500));
    const edited = await user(h, id);
    assert.deepEqual(
      [edited.email, edited.firstName, edited.lastName, edited.tags, edited.locale, edited.accountType],
      ['edited.person@example.com', 'Edith', undefined, undefined, 'en', 'organizationAdministrator'],
    );
    const events = await eventsAfter(h, cursor);
    assert.deepEqual(
      events.map((event) => event.type),
      ['user.updated'],
    );
    assert.equal(events[0].data.updatedDate, edited.updatedDate);

    const page = await admin.follow(saved);
    assert.match(textOf(page), /The profile is saved\./);
    const again = await latestEventId(h);
    const resent = await admin.post(`${people}/${id}`, {
      email: valueOf(page, 'person-email')!,
      firstName: valueOf(page, 'person-firstName')!,
      lastName: valueOf(page, 'person-lastName')!,
      username: valueOf(page, 'person-username')!,
      locale: valueOf(page, 'person-locale')!,
      tags: valueOf(page, 'person-tags')!,
      accountType: 'organizationAdministrator',
    });
    assert.equal(resent.status, 303);
    assert.deepEqual(await eventsAfter(h, again), []);

    const refused = await admin.post(`${people}/${id}`, { email: 'edited.person@example.com', firstName: 'x'.repeat(256), accountType: 'learner' });
    assert.equal(refused.status, 400);
    assert.match(refused.body, /id="person-firstName-error">must be a string of at most 255 characters/);
    assert.equal((await user(h, id)).accountType, 'organizationAdministrator');
  });

  it('deactivates and reactivates a person with the events of PUT /users; an administrator cannot deactivate or demote themselves', async () => {
    const id = await h.create('users', { email: 'status.person@example.com' });
    const cursor = await latestEventId(h);
    const deactivated = await admin.post(`${people}/${id}/active`, { active: 'false' });
    assert.equal(deactivated.status, 303);
    assert.equal((await user(h, id)).active, false);
    assert.match(textOf(await admin.follow(deactivated)), /The person is deactivated/);
    assert.equal((await admin.post(`${people}/${id}/active`, { active: 'true' })).status, 303);
    assert.equal((await user(h, id)).active, true);
    assert.deepEqual(
      (await eventsAfter(h, cursor)).map((event) => `${event.type} ${JSON.stringify(event.previousAttributes.active)}`),
      ['user.updated true', 'user.updated false'],
    );
    assert.equal((await admin.post(`${people}/${id}/active`, { active: 'maybe' })).status, 400);

    const self = await admin.post(`${people}/${adminId}/active`, { active: 'false' });
    assert.equal(self.status, 400);
    assert.match(textOf(self), /You cannot deactivate your own account/);
    const demoted = await admin.post(`${people}/${adminId}`, { email: (await user(h, adminId)).email, accountType: 'learner' });
    assert.equal(demoted.status, 400);
    assert.match(textOf(demoted), /You cannot change the kind of your own account/);
    assert.equal((await user(h, adminId)).accountType, 'organizationAdministrator');
  });

  it('sets a password, optionally asked to be changed at the next sign-in, and refuses one the policy refuses', async () => {
    const id = await h.create('users', { email: 'password.person@example.com' });
    // Agreed, so that only a password asked for stands between the sign-in and the account.
    await h.put(`users/${id}/agreements/standard`, { agreed: true });
    const set = await admin.post(`${people}/${id}/password`, { password: 'chosen horse 7' });
    assert.equal(set.status, 303);
    const person = browserOf(h);
    const signedIn = await person.signIn(h.org.id, 'password.person@example.com', 'chosen horse 7');
    assert.equal(signedIn.status, 303);
    assert.doesNotMatch(signedIn.location!, /\/continue/);

    assert.equal((await admin.post(`${people}/${id}/password`, { password: 'temporary horse 8', requirePasswordChange: 'true' })).status, 303);
    const asked = await browserOf(h).signIn(h.org.id, 'password.person@example.com', 'temporary horse 8');
    assert.match(asked.location!, /\/continue/);

    const cursor = await latestEventId(h);
    const refused = await admin.post(`${people}/${id}/password`, { password: 'short' });
    assert.equal(refused.status, 400);
    assert.match(refused.body, /id="person-password-error">/);
    assert.doesNotMatch(refused.body, /value="short"/);
    assert.deepEqual(await eventsAfter(h, cursor), []);
  });

  it('without a mail server, shows a reset link once, in the page and never in an address; a deactivated person gets none', async () => {
    const id = await h.create('users', { email: 'link.person@example.com' });
    const made = await admin.post(`${people}/${id}/reset-link`, {});
    assert.equal(made.status, 200);
    assert.equal(made.location, undefined);
    const link = /<code class="secret" id="secret">(https?:\/\/[^<]+)<\/code>/.exec(made.body)?.[1];
    assert.ok(link, 'the link is shown');
    const person = browserOf(h);
    assert.equal((await person.get(link)).status, 200);
    assert.equal((await person.post(link, { password: 'reset horse 3', confirm: 'reset horse 3' })).status, 303);
    assert.equal((await browserOf(h).signIn(h.org.id, 'link.person@example.com', 'reset horse 3')).status, 303);
    assert.doesNotMatch((await admin.get(`${people}/${id}`)).body, /reset-password\//);

    await h.put(`users/${id}`, { active: false });
    const refused = await admin.post(`${people}/${id}/reset-link`, {});
    assert.equal(refused.status, 400);
    assert.match(textOf(refused), /is deactivated: reactivate them first/);
  });

  it('sets userfield values, private ones included, and refuses what the field refuses with a 400 beside it', async () => {
    const category = await h.create('userfieldcategories', { name: 'Records', type: 'private' });
    const field = await h.create('userfields', { type: 'number', name: 'Badge number', categoryId: category });
    const id = await h.create('users', { email: 'values.person@example.com' });
    const cursor = await latestEventId(h);
    const saved = await admin.post(`${people}/${id}/userfields`, { shown: field, [`field.${field}`]: '42' });
    assert.equal(saved.status, 303, textOf(saved).slice(0, 500));
    assert.equal((await h.get(`users/${id}/userfieldvalues`)).json()[field], 42);
    assert.deepEqual(
      (await eventsAfter(h, cursor)).map((event) => event.type),
      ['userfieldvalues.updated'],
    );
    const refused = await admin.post(`${people}/${id}/userfields`, { shown: field, [`field.${field}`]: 'forty' });
    assert.equal(refused.status, 400);
    assert.match(refused.body, new RegExp(`id="field-${field}-error">must be a whole number`));
    assert.equal((await h.get(`users/${id}/userfieldvalues`)).json()[field], 42);
  });

  it("ejects and grades the person's registrations; another person's registration is a 404", async () => {
    const id = await h.create('users', { email: 'registered.person@example.com' });
    const other = await h.create('users', { email: 'registered.other@example.com' });
    const first = await h.create('offerings', { title: 'Ladders', passingGrade: 70 });
    const second = await h.create('offerings', { title: 'Scaffolds', passingGrade: 70 });
    const ladders = await h.create('registrations', { userId: id, offeringId: first });
    const scaffolds = await h.create('registrations', { userId: id, offeringId: second });
    const theirs = await h.create('registrations', { userId: other, offeringId: first });
    const cursor = await latestEventId(h);
    assert.equal((await admin.post(`${people}/${id}/registrations/${ladders}/eject`, {})).status, 303);
    assert.equal((await admin.post(`${people}/${id}/registrations/${scaffolds}/grade`, { grade: '85', graderComment: 'Steady' })).status, 303);
    assert.deepEqual(
      (await eventsAfter(h, cursor)).map((event) => `${event.type} ${event.data.id}`),
      [`registration.ejected ${ladders}`, `registration.graded ${scaffolds}`],
    );
    assert.equal((await h.get(`registrations/${scaffolds}`)).json().status, 'passed');
    const again = await admin.post(`${people}/${id}/registrations/${ladders}/eject`, {});
    assert.equal(again.status, 400);
    assert.match(textOf(again), /The registration was not ejected/);
    const badGrade = await admin.post(`${people}/${id}/registrations/${scaffolds}/grade`, { grade: '101' });
    assert.equal(badGrade.status, 400);
    assert.equal(valueOf(badGrade, `grade-${scaffolds}`), '101');
    assert.equal((await admin.post(`${people}/${id}/registrations/${theirs}/eject`, {})).status, 404);
    assert.equal((await h.get(`registrations/${theirs}`)).json().status, 'active');
  });

  it("answers another organization's person with a 404 page on every route, changing nothing", async () => {
    const other = await h.createOrganization('Another organization');
    const token = { token: other.token };
    const theirs = await h.create('users', { email: 'their.person@example.com', firstName: 'Theirs' }, token);
    const offering = await h.create('offerings', { title: 'Their course' }, token);
    const registration = await h.create('registrations', { userId: theirs, offeringId: offering }, token);
    const before = (await h.get(`users/${theirs}`, token)).json();
    assert.equal((await admin.get(`${people}/${theirs}`)).status, 404);
    for (const path of [
      `${people}/${theirs}`,
      `${people}/${theirs}/active`,
      `${people}/${theirs}/password`,
      `${people}/${theirs}/reset-link`,
      `${people}/${theirs}/userfields`,
      `${people}/${theirs}/registrations/${registration}/eject`,
      `${people}/${adminId}/registrations/${registration}/grade`,
    ]) {
      const answer = await admin.post(path, {
        email: 'ours@example.com',
        accountType: 'learner',
        active: 'false',
        password: 'taken horse 5',
        grade: '1',
      });
      assert.equal(answer.status, 404, path);
      assert.doesNotMatch(answer.body, /their\.person/);
    }
    assert.deepEqual((await h.get(`users/${theirs}`, token)).json(), before);
    assert.equal((await h.get(`registrations/${registration}`, token)).json().status, 'active');
    assert.doesNotMatch((await admin.get(`${people}?email=their.person@example.com`)).body, new RegExp(theirs));
  });
});

/** A real SMTP server on a free port, for both engines' servers. */
let box: Awaited<ReturnType<typeof startMailbox>>;
const people: PeopleSettings = { ...DEFAULT_PEOPLE_SETTINGS, mail: { url: '', from: 'console@example.com' } };
before(async () => {
  box = await startMailbox();
  people.mail!.url = box.url;
});
after(() => box?.close());

forEachEngine(
  'Console: people, with a mail server',
  (h) => {
    it('sends a reset link to the person by mail, and shows no link in the page', async () => {
      const { browser: admin } = await signedInAs(h, 'organizationAdministrator');
      // One address an engine: both engines' servers send to the same mailbox.
      const email = `mailed.${h.org.id}@example.com`;
      const id = await h.create('users', { email, locale: 'fr' });
      const sent = await admin.post(`/o/${h.org.id}/console/people/${id}/reset-link`, {});
      assert.equal(sent.status, 303);
      const page = await admin.follow(sent);
      assert.match(textOf(page), /A link to choose a new password is on its way/);
      assert.doesNotMatch(page.body, /reset-password\//);
      const mail = await box.next(email);
      const link = /https?:\/\/\S+\/reset-password\/[\w-]+/.exec(mail.text)?.[0];
      assert.ok(link, mail.text);
      assert.equal((await browserOf(h).get(link)).status, 200);
    });
  },
  { people },
);
