import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eventsAfter, latestEventId } from '../helpers/events.js';
import { forEachEngine } from '../helpers/harness.js';
import { signedInAs, textOf, valueOf } from '../helpers/console-sign-in.js';
import type { PageBrowser } from '../helpers/pages.js';

forEachEngine('Console: offerings, offering categories and registrations', (h) => {
  let admin: PageBrowser;
  let course: PageBrowser;
  let offerings: string;

  const offering = async (id: string) => (await h.get(`offerings/${id}`)).json();
  const idIn = (location: string | undefined) => location!.split('?')[0]!.split('/').pop()!;

  before(async () => {
    ({ browser: admin } = await signedInAs(h, 'organizationAdministrator'));
    ({ browser: course } = await signedInAs(h, 'courseAdministrator'));
    offerings = `/o/${h.org.id}/console/offerings`;
  });

  it('is for organization and course administrators; a learner gets 403, and a course administrator no other part but the overview', async () => {
    const learner = (await signedInAs(h, 'learner')).browser;
    const id = await h.create('offerings', { title: 'Permissions 101' });
    for (const path of [offerings, `${offerings}/new`, `${offerings}/${id}`, `${offerings}/categories`]) {
      assert.equal((await admin.get(path)).status, 200, `administrator ${path}`);
      assert.equal((await course.get(path)).status, 200, `course administrator ${path}`);
      assert.equal((await learner.get(path)).status, 403, `learner ${path}`);
    }
    const console_ = `/o/${h.org.id}/console`;
    assert.equal((await course.get(console_)).status, 200);
    for (const part of ['userfields', 'agreements', 'api']) assert.equal((await course.get(`${console_}/${part}`)).status, 403, part);
    const navigation = await course.get(offerings);
    assert.doesNotMatch(navigation.body, /console\/(userfields|agreements|api)"/);
    assert.equal((await learner.get(console_)).status, 403);
    const refused = await learner.post(offerings, { title: 'By a learner' });
    assert.equal(refused.status, 403);
    assert.equal((await h.get('offerings', { query: { title: 'By a learner' } })).json().results.length, 0);
  });

  it('makes an offering with every property, as a course administrator, and lists it; the event is in the feed', async () => {
    const category = await h.create('offeringcategories', { name: 'Languages' });
    const cursor = await latestEventId(h);
    const created = await course.post(offerings, {
      title: 'French for beginners',
      beginDate: '2030-01-10T09:00',
      endDate: '2030-03-10T17:30',
      registrationBeginDate: '2020-01-01T00:00',
      registrationEndDate: '2030-01-09T23:59',
      catalogDescription: 'Bonjour.\r\nTen weeks.',
      price: '120.50',
      category,
      tags: 'french, beginner',
      passingGrade: '60',
      allowRetake: 'true',
    });
    assert.equal(created.status, 303, textOf(created).slice(0, 500));
    const id = idIn(created.location);
    const made = await offering(id);
    assert.deepEqual(
      {
        title: made.title,
        beginDate: made.beginDate,
        endDate: made.endDate,
        registrationBeginDate: made.registrationBeginDate,
        registrationEndDate: made.registrationEndDate,
        catalogDescription: made.catalogDescription,
        price: made.price,
        offeringCategoryIds: made.offeringCategoryIds,
        tags: made.tags,
        passingGrade: made.passingGrade,
        allowRetake: made.allowRetake,
      },
      {
        title: 'French for beginners',
        beginDate: '2030-01-10T09:00:00Z',
        endDate: '2030-03-10T17:30:00Z',
        registrationBeginDate: '2020-01-01T00:00:00Z',
        registrationEndDate: '2030-01-09T23:59:00Z',
        catalogDescription: 'Bonjour.\nTen weeks.',
        price: 120.5,
        offeringCategoryIds: [category],
        tags: ['french', 'beginner'],
        passingGrade: 60,
        allowRetake: true,
      },
    );
    const page = await course.follow(created);
    assert.match(textOf(page), /The offering is made\./);
    assert.equal(valueOf(page, 'offering-beginDate'), '2030-01-10T09:00');
    const list = await course.get(`${offerings}?title=French`);
    assert.match(textOf(list), /French for beginners .* open until/);
    assert.deepEqual(
      (await eventsAfter(h, cursor)).map((event) => `${event.type} ${event.data.id}`),
      [`offering.created ${id}`],
    );
  });

  it('edits an offering: clears what is emptied, changes the rest, and sends it back unchanged without an event', async () => {
    const id = await h.create('offerings', { title: 'Welding', price: 40, tags: ['metal'], passingGrade: 80 });
    const saved = await admin.post(`${offerings}/${id}`, { title: 'Welding II', price: '', tags: '', passingGrade: '75', position: '' });
    assert.equal(saved.status, 303, textOf(saved).slice(0, 500));
    const edited = await offering(id);
    assert.equal(edited.title, 'Welding II');
    assert.equal(edited.price, undefined);
    assert.equal(edited.tags, undefined);
    assert.equal(edited.passingGrade, 75);

    const page = await admin.get(`${offerings}/${id}`);
    const cursor = await latestEventId(h);
    const again = await admin.post(`${offerings}/${id}`, {
      title: valueOf(page, 'offering-title')!,
      passingGrade: valueOf(page, 'offering-passingGrade')!,
      position: valueOf(page, 'offering-position')!,
      catalogDescription: '',
    });
    assert.equal(again.status, 303);
    assert.deepEqual(await offering(id), edited);
    assert.deepEqual(await eventsAfter(h, cursor), []);
  });

  it('registers a person by email, ejects and grades with a comment; each event is in the feed', async () => {
    const id = await h.create('offerings', { title: 'Safety', passingGrade: 70 });
    const ada = await h.create('users', { email: 'ada.safety@example.com', firstName: 'Ada', lastName: 'King' });
    const grace = await h.create('users', { email: 'grace.safety@example.com' });
    const cursor = await latestEventId(h);
    const registered = await course.post(`${offerings}/${id}/registrations`, { email: 'ADA.safety@example.com' });
    assert.equal(registered.status, 303, textOf(registered).slice(0, 500));
    assert.equal((await course.post(`${offerings}/${id}/registrations`, { email: 'grace.safety@example.com' })).status, 303);
    const registrations = (await h.get('registrations', { query: { offeringId: id } })).json().results;
    const of = (userId: string) => registrations.find((registration: { userId: string }) => registration.userId === userId).id;
    const page = await course.follow(registered);
    assert.match(textOf(page), /The person is registered\./);
    assert.match(textOf(page), /Ada King \(ada\.safety@example\.com\) active/);

    const ejected = await course.post(`${offerings}/${id}/registrations/${of(ada)}/eject`, {});
    assert.equal(ejected.status, 303);
    assert.equal((await h.get(`registrations/${of(ada)}`)).json().status, 'ejected');
    const graded = await course.post(`${offerings}/${id}/registrations/${of(grace)}/grade`, { grade: '82.5', graderComment: 'Careful work' });
    assert.equal(graded.status, 303);
    const grade = (await h.get(`registrations/${of(grace)}`)).json();
    assert.deepEqual([grade.status, grade.grade, grade.graderComment], ['passed', 82.5, 'Careful work']);
    assert.deepEqual(
      (await eventsAfter(h, cursor)).map((event) => `${event.type} ${event.data.userId}`),
      [`registration.created ${ada}`, `registration.created ${grace}`, `registration.ejected ${ada}`, `registration.graded ${grace}`],
    );
    const ejectedOnly = await course.get(`${offerings}/${id}?status=ejected`);
    assert.match(textOf(ejectedOnly), /ada\.safety@example\.com/);
    assert.doesNotMatch(textOf(ejectedOnly), /grace\.safety@example\.com/);
  });

  it('refuses with 400 on the form, keeping what was typed: dates out of order, an unknown person, a grade out of range, an ejection twice', async () => {
    const backwards = await admin.post(offerings, { title: 'Backwards', beginDate: '2030-05-01T10:00', endDate: '2030-04-01T10:00', price: '15' });
    assert.equal(backwards.status, 400);
    assert.match(textOf(backwards), /must not be before beginDate/);
    assert.equal(valueOf(backwards, 'offering-title'), 'Backwards');
    assert.equal(valueOf(backwards, 'offering-endDate'), '2030-04-01T10:00');
    assert.equal(valueOf(backwards, 'offering-price'), '15');
    assert.equal((await h.get('offerings', { query: { title: 'Backwards' } })).json().results.length, 0);

    const untitled = await admin.post(offerings, { title: ' ', price: '-3' });
    assert.equal(untitled.status, 400);
    assert.match(textOf(untitled), /must be a number of 0 or more/);

    const id = await h.create('offerings', { title: 'Refusals' });
    const nobody = await admin.post(`${offerings}/${id}/registrations`, { email: 'nobody@example.com' });
    assert.equal(nobody.status, 400);
    assert.match(textOf(nobody), /No person of the organization has this email\./);
    assert.equal(valueOf(nobody, 'register-email'), 'nobody@example.com');

    const person = await h.create('users', { email: 'twice@example.com' });
    const registration = await h.create('registrations', { userId: person, offeringId: id });
    const again = await admin.post(`${offerings}/${id}/registrations`, { email: 'twice@example.com' });
    assert.equal(again.status, 400);
    assert.match(textOf(again), /already has an active registration/);

    const tooHigh = await admin.post(`${offerings}/${id}/registrations/${registration}/grade`, { grade: '101', graderComment: 'Generous' });
    assert.equal(tooHigh.status, 400);
    assert.match(textOf(tooHigh), /must be a number from 0 to 100/);
    assert.equal(valueOf(tooHigh, `grade-${registration}`), '101');
    assert.equal(valueOf(tooHigh, `comment-${registration}`), 'Generous');

    assert.equal((await admin.post(`${offerings}/${id}/registrations/${registration}/eject`, {})).status, 303);
    const twice = await admin.post(`${offerings}/${id}/registrations/${registration}/eject`, {});
    assert.equal(twice.status, 400);
    assert.match(textOf(twice), /the registration is already ejected/);
  });

  it('deletes an offering only without registrations but ejected ones, saying why not', async () => {
    const id = await h.create('offerings', { title: 'Short-lived' });
    const person = await h.create('users', { email: 'shortlived@example.com' });
    const registration = await h.create('registrations', { userId: person, offeringId: id });
    const page = await admin.get(`${offerings}/${id}`);
    assert.match(page.body, /data-confirm="Delete Short-lived\?"/);
    const refused = await admin.post(`${offerings}/${id}/delete`, {});
    assert.equal(refused.status, 400);
    assert.match(textOf(refused), /The offering has registrations that are not ejected; it can be deleted once it has none\./);
    assert.equal((await h.get(`offerings/${id}`)).statusCode, 200);
    await h.put(`registrations/${registration}`, { status: 'ejected' });
    const deleted = await admin.post(`${offerings}/${id}/delete`, {});
    assert.equal(deleted.status, 303);
    assert.equal((await h.get(`offerings/${id}`)).statusCode, 404);
  });

  it('makes, changes, reorders and deletes offering categories; a duplicate name is refused with what was typed', async () => {
    const url = `${offerings}/categories`;
    const made = await admin.post(url, { name: 'Crafts', description: 'Hands on', color: '#17603a' });
    assert.equal(made.status, 303);
    const [crafts] = (await h.get('offeringcategories', { query: { name: 'Crafts' } })).json().results;
    assert.deepEqual([crafts.description, crafts.color], ['Hands on', '#17603a']);
    const list = await admin.follow(made);
    assert.match(list.body, /<rect width="16" height="16" fill="#17603a"/);

    const duplicate = await admin.post(url, { name: 'crafts', description: 'Again', color: 'green' });
    assert.equal(duplicate.status, 400);
    assert.equal(valueOf(duplicate, 'category-name'), 'crafts');
    assert.equal(valueOf(duplicate, 'category-description'), 'Again');
    assert.match(textOf(duplicate), /must be a hex colour of the form #rrggbb/);

    const changed = await admin.post(`${url}/${crafts.id}`, { name: 'Crafts and trades', description: '', color: '' });
    assert.equal(changed.status, 303);
    const after = (await h.get(`offeringcategories/${crafts.id}`)).json();
    assert.deepEqual([after.name, after.description, after.color], ['Crafts and trades', undefined, undefined]);

    const order = async () =>
      (await h.get('offeringcategories', { query: { limit: '100' } })).json().results.map((category: { id: string }) => category.id);
    const index = (await order()).indexOf(crafts.id);
    assert.ok(index > 0);
    assert.equal((await admin.post(`${url}/${crafts.id}/move`, { direction: 'up' })).status, 303);
    assert.equal((await order()).indexOf(crafts.id), index - 1);

    const course = await h.create('offerings', { title: 'Pottery', offeringCategoryIds: [crafts.id] });
    assert.equal((await admin.post(`${url}/${crafts.id}/delete`, {})).status, 303);
    assert.equal((await h.get(`offeringcategories/${crafts.id}`)).statusCode, 404);
    assert.equal((await offering(course)).offeringCategoryIds, undefined);
  });

  it("answers another organization's offering, registration and category ids with a 404 page, changing nothing", async () => {
    const other = await h.createOrganization('Another organization');
    const token = { token: other.token };
    const theirs = await h.create('offerings', { title: 'Their course' }, token);
    const user = await h.create('users', { email: 'theirs@example.com' }, token);
    const registration = await h.create('registrations', { userId: user, offeringId: theirs }, token);
    const category = await h.create('offeringcategories', { name: 'Their category' }, token);
    const own = await h.create('offerings', { title: 'Our course' });
    const snapshot = async () => [
      (await h.get(`offerings/${theirs}`, token)).json(),
      (await h.get(`registrations/${registration}`, token)).json(),
      (await h.get(`offeringcategories/${category}`, token)).json(),
    ];
    const before = await snapshot();
    for (const path of [`${offerings}/${theirs}`, `${offerings}/categories/${category}`]) assert.equal((await admin.get(path)).status, 404, path);
    for (const path of [
      `${offerings}/${theirs}`,
      `${offerings}/${theirs}/delete`,
      `${offerings}/${theirs}/registrations`,
      `${offerings}/${theirs}/registrations/${registration}/eject`,
      `${offerings}/${own}/registrations/${registration}/eject`,
      `${offerings}/${own}/registrations/${registration}/grade`,
      `${offerings}/categories/${category}`,
      `${offerings}/categories/${category}/move`,
      `${offerings}/categories/${category}/delete`,
    ]) {
      assert.equal((await admin.post(path, { title: 'Ours now', name: 'Ours now', grade: '10', email: 'theirs@example.com' })).status, 404, path);
    }
    const foreignCategory = await admin.post(`${offerings}/${own}`, { title: 'Our course', category });
    assert.equal(foreignCategory.status, 400);
    assert.match(textOf(foreignCategory), /No resource exists with the given id/);
    const foreignPerson = await admin.post(`${offerings}/${own}/registrations`, { email: 'theirs@example.com' });
    assert.equal(foreignPerson.status, 400);
    assert.match(textOf(foreignPerson), /No person of the organization has this email/);
    assert.deepEqual(await snapshot(), before);
  });
});
