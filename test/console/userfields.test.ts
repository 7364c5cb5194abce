import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eventsAfter, latestEventId } from '../helpers/events.js';
import { forEachEngine } from '../helpers/harness.js';
import { signedInAs, textOf, valueOf } from '../helpers/console-sign-in.js';
import type { PageBrowser } from '../helpers/pages.js';

forEachEngine('Console: userfields and categories', (h) => {
  let admin: PageBrowser;
  let adminId: string;
  let console_: string;

  const field = async (id: string) => (await h.get(`userfields/${id}`)).json();
  const newId = (location: string | undefined) => new URLSearchParams(location!.split('?')[1]!.split('#')[0]).get('field')!;

  before(async () => {
    ({ browser: admin, userId: adminId } = await signedInAs(h, 'organizationAdministrator'));
    console_ = `/o/${h.org.id}/console/userfields`;
  });

  it('is for organization administrators: a course administrator and a learner get 403, nobody signed in is sent to sign in', async () => {
    const course = (await signedInAs(h, 'courseAdministrator')).browser;
    const learner = (await signedInAs(h, 'learner')).browser;
    assert.equal((await admin.get(console_)).status, 200);
    for (const [who, browser] of [
      ['course administrator', course],
      ['learner', learner],
    ] as const) {
      for (const path of [console_, `${console_}/new?type=text`]) assert.equal((await browser.get(path)).status, 403, `${who} GET ${path}`);
      const before = (await h.get('userfieldcategories')).json().results.length;
      const refused = await browser.post(`${console_}/categories`, { name: `By a ${who}`, type: 'public' });
      assert.equal(refused.status, 403, who);
      assert.equal((await h.get('userfieldcategories')).json().results.length, before, `${who} made nothing`);
    }
    const nobody = await admin.clone().request('GET', console_, { headers: { cookie: '' } });
    assert.equal(nobody.status, 303);
    assert.match(nobody.location!, new RegExp(`^/o/${h.org.id}/sign-in\\?next=`));
  });

  it('makes a category, a dropdown field with options in it, and lists them; the events are in the feed', async () => {
    const cursor = await latestEventId(h);
    const made = await admin.post(`${console_}/categories`, { name: 'Work', type: 'public' });
    assert.equal(made.status, 303, made.body);
    const [category] = (await h.get('userfieldcategories', { query: { name: 'Work' } })).json().results;
    assert.equal(category.type, 'public');

    const form = await admin.get(`${console_}/new?type=dropdown`);
    assert.equal(form.status, 200);
    assert.match(textOf(form), /Options, one a line/);
    const created = await admin.post(console_, {
      type: 'dropdown',
      name: 'Team',
      categoryId: category.id,
      newOptions: 'Red\r\nGreen\r\nBlue',
      size: 'medium',
    });
    assert.equal(created.status, 303, created.body);
    const id = newId(created.location);
    const dropdown = await field(id);
    assert.deepEqual(
      { type: dropdown.type, name: dropdown.name, categoryId: dropdown.categoryId, options: dropdown.options, required: dropdown.required },
      {
        type: 'dropdown',
        name: 'Team',
        categoryId: category.id,
        options: [
          { name: 'Red', selected: false },
          { name: 'Green', selected: false },
          { name: 'Blue', selected: false },
        ],
        required: false,
      },
    );
    const list = await admin.follow(created);
    assert.match(textOf(list), /The field is made\./);
    assert.match(textOf(list), /Team Dropdown list Red, Green, Blue/);
    const types = (await eventsAfter(h, cursor)).map((event) => `${event.type} ${event.data.id}`);
    assert.deepEqual(types, [`userfieldcategory.created ${category.id}`, `userfield.created ${id}`]);
  });

  it('makes a field required and says how many active people lack a value, on the form and after saving', async () => {
    const category = await h.create('userfieldcategories', { name: 'Required ones', type: 'public' });
    const id = await h.create('userfields', { type: 'dropdown', name: 'Shirt size', categoryId: category, options: [{ name: 'S' }, { name: 'M' }] });
    // Every active person of the organization lacks a value but two: the administrator working here (whom
    // a required field without a value would stop at the console's door), and one more.
    await h.put(`users/${adminId}/userfieldvalues`, { [id]: 'S' });
    const holder = await h.create('users', { email: 'holder@example.com' });
    await h.put(`users/${holder}/userfieldvalues`, { [id]: 'M' });
    const gone = await h.create('users', { email: 'gone@example.com', active: false });
    assert.ok(gone);
    const active = (await h.get('users', { query: { active: 'true', limit: '100' } })).json().results.length;
    const lacking = active - 2;

    const page = await admin.get(`${console_}/${id}`);
    assert.equal(page.status, 200);
    assert.match(textOf(page), new RegExp(`${lacking} active people have no value of this field now`));
    const saved = await admin.post(`${console_}/${id}`, {
      name: 'Shirt size',
      categoryId: category,
      required: 'true',
      optionCount: '2',
      'option.0': 'S',
      'option.1': 'M',
      selected: '',
    });
    assert.equal(saved.status, 303, saved.body);
    assert.equal((await field(id)).required, true);
    const after = await admin.follow(saved);
    assert.match(
      textOf(after),
      new RegExp(`Shirt size is required: ${lacking} active people without a value will be asked for one at their next sign-in`),
    );
    assert.match(textOf(await admin.get(`${console_}/${id}`)), new RegExp(`${lacking} active people without a value will be asked`));
  });

  it('makes a field of every type, each with what its type has', async () => {
    const category = await h.create('userfieldcategories', { name: 'Every type', type: 'private' });
    const forms: Record<string, Record<string, string>> = {
      text: { name: 'Nickname', size: 'small', minimum: '2', maximum: '20' },
      number: { name: 'Age', size: 'medium', minimum: '18', maximum: '99' },
      decimal: { name: 'Height', size: 'large', minimum: '1' },
      email: { name: 'Backup email', size: 'mediumlarge', maximum: '100' },
      date: { name: 'Hired', size: 'medium', minimum: '2020-01-31', maximum: '2030-12-31' },
      radiobuttons: { name: 'Shift', newOptions: 'Day\nNight' },
      checkboxes: { name: 'Languages', newOptions: 'English\nFrench' },
      checkbox: { name: 'Newsletter' },
      truefalse: { name: 'Remote' },
      yesno: { name: 'Vegetarian', required: 'true' },
      message: { message: 'The fields below are for payroll.' },
    };
    for (const [type, form] of Object.entries(forms)) {
      const created = await admin.post(console_, { type, categoryId: category, ...form });
      assert.equal(created.status, 303, `${type}: ${created.status} ${textOf(created).slice(0, 400)}`);
      const made = await field(newId(created.location));
      assert.equal(made.type, type);
      assert.equal(made.categoryType, 'private');
      if (form.name) assert.equal(made.name, form.name);
    }
    const all = (await h.get('userfields', { query: { categoryType: 'private', limit: '100' } })).json().results;
    const byName = (name: string) => all.find((candidate: { name?: string }) => candidate.name === name);
    assert.deepEqual(byName('Nickname').constraints, { minimumLength: 2, maximumLength: 20 });
    assert.equal(byName('Nickname').size, 'small');
    assert.deepEqual(byName('Hired').constraints, { minimumDate: '01/31/2020', maximumDate: '12/31/2030' });
    assert.deepEqual(
      byName('Languages').options.map((option: { name: string }) => option.name),
      ['English', 'French'],
    );
    assert.equal(byName('Vegetarian').required, true);
    assert.equal(byName('Newsletter').required, undefined);
    assert.ok(all.some((candidate: { message?: string }) => candidate.message === 'The fields below are for payroll.'));
  });

  it('edits a field: name, localized names, options added, renamed and removed, constraints, size, and moves it to another category', async () => {
    const first = await h.create('userfieldcategories', { name: 'First', type: 'public' });
    const second = await h.create('userfieldcategories', { name: 'Second', type: 'private' });
    const id = await h.create('userfields', {
      type: 'radiobuttons',
      name: 'Mode',
      categoryId: first,
      options: [{ name: 'A' }, { name: 'B', selected: true }, { name: 'C' }],
    });
    const person = await h.create('users', { email: 'mode@example.com' });
    await h.put(`users/${person}/userfieldvalues`, { [id]: 'C' });

    const page = await admin.get(`${console_}/${id}`);
    assert.equal(valueOf(page, 'option-1'), 'B');
    const saved = await admin.post(`${console_}/${id}`, {
      name: 'Travel mode',
      localizedNames: 'fr: Mode de transport\r\nde: Reiseart',
      categoryId: second,
      optionCount: '3',
      'option.0': 'Alpha',
      'option.1': 'B',
      'option.2': 'C',
      selected: '0',
      remove: '2',
      newOptions: 'D',
    });
    assert.equal(saved.status, 303, textOf(saved).slice(0, 500));
    const edited = await field(id);
    assert.equal(edited.name, 'Travel mode');
    assert.deepEqual(edited.localizedNames, { fr: 'Mode de transport', de: 'Reiseart' });
    assert.deepEqual(edited.options, [
      { name: 'Alpha', selected: true },
      { name: 'B', selected: false },
      { name: 'D', selected: false },
    ]);
    assert.equal(edited.categoryId, second);
    assert.equal(edited.categoryType, 'private');
    assert.deepEqual((await h.get(`users/${person}/userfieldvalues`)).json(), {}, 'the value of a removed option is cleared');

    const text = await h.create('userfields', { type: 'text', name: 'Code', categoryId: first, constraints: { maximumLength: 9 } });
    const constrained = await admin.post(`${console_}/${text}`, { name: 'Code', categoryId: first, size: 'large', minimum: '3', maximum: '12' });
    assert.equal(constrained.status, 303);
    assert.deepEqual((await field(text)).constraints, { minimumLength: 3, maximumLength: 12 });
    assert.equal((await field(text)).size, 'large');
    const cleared = await admin.post(`${console_}/${text}`, { name: 'Code', categoryId: first, size: 'large', minimum: '', maximum: '' });
    assert.equal(cleared.status, 303);
    assert.equal((await field(text)).constraints, undefined);
  });

  it('sends a field back unchanged without changing it: no event, the same updatedDate', async () => {
    const category = await h.create('userfieldcategories', { name: 'Unchanged', type: 'public' });
    const id = await h.create('userfields', {
      type: 'text',
      name: 'Badge',
      categoryId: category,
      localizedNames: { fr: 'Badge' },
      constraints: { minimumLength: 1 },
    });
    const before = await field(id);
    const cursor = await latestEventId(h);
    const page = await admin.get(`${console_}/${id}`);
    const sent = await admin.post(`${console_}/${id}`, {
      name: valueOf(page, 'field-name')!,
      localizedNames: `${valueOf(page, 'field-localized')!.replace(/\n/g, '\r\n')}`,
      categoryId: category,
      position: valueOf(page, 'field-position')!,
      size: 'medium',
      minimum: valueOf(page, 'field-minimum')!,
      maximum: valueOf(page, 'field-maximum')!,
    });
    assert.equal(sent.status, 303);
    assert.deepEqual(await field(id), before);
    assert.deepEqual(await eventsAfter(h, cursor), []);
  });

  it('reorders fields and categories with Up and Down, and places fields by position', async () => {
    const category = await h.create('userfieldcategories', { name: 'Ordered', type: 'public' });
    const ids = [];
    for (const name of ['One', 'Two', 'Three']) ids.push(await h.create('userfields', { type: 'text', name, categoryId: category }));
    const order = async () =>
      (await h.get('userfields', { query: { limit: '100' } }))
        .json()
        .results.filter((candidate: { categoryId?: string }) => candidate.categoryId === category)
        .map((candidate: { name: string }) => candidate.name);
    assert.equal((await admin.post(`${console_}/${ids[2]}/move`, { direction: 'up' })).status, 303);
    assert.deepEqual(await order(), ['One', 'Three', 'Two']);
    assert.equal((await admin.post(`${console_}/${ids[0]}/move`, { direction: 'down' })).status, 303);
    assert.deepEqual(await order(), ['Three', 'One', 'Two']);
    const placed = await admin.post(`${console_}/${ids[1]}`, { name: 'Two', categoryId: category, size: 'medium', position: '1' });
    assert.equal(placed.status, 303);
    assert.deepEqual(await order(), ['Two', 'Three', 'One']);

    const publicOrder = async () =>
      (await h.get('userfieldcategories', { query: { type: 'public', limit: '100' } }))
        .json()
        .results.map((candidate: { id: string }) => candidate.id);
    const before = await publicOrder();
    const index = before.indexOf(category);
    assert.ok(index > 0);
    assert.equal((await admin.post(`${console_}/categories/${category}/move`, { direction: 'up' })).status, 303);
    const after = await publicOrder();
    assert.equal(after.indexOf(category), index - 1);
  });

  it('renames a category, and places a predefined field in a category and takes it out again', async () => {
    const category = await h.create('userfieldcategories', { name: 'Address', type: 'public' });
    const renamed = await admin.post(`${console_}/categories/${category}`, { name: 'Postal address' });
    assert.equal(renamed.status, 303);
    assert.equal((await h.get(`userfieldcategories/${category}`)).json().name, 'Postal address');

    const city = (await h.get('userfields', { query: { limit: '100' } }))
      .json()
      .results.find((candidate: { name: string }) => candidate.name === 'City');
    assert.equal(city.readOnly, true);
    const page = await admin.get(`${console_}/${city.id}`);
    assert.match(textOf(page), /predefined: its name never changes/);
    const placed = await admin.post(`${console_}/${city.id}`, { categoryId: category, size: 'medium' });
    assert.equal(placed.status, 303, textOf(placed).slice(0, 500));
    assert.equal((await field(city.id)).categoryId, category);
    const out = await admin.post(`${console_}/${city.id}/delete`, {});
    assert.equal(out.status, 303);
    assert.match(out.location!, /done=field-taken-out/);
    const back = await field(city.id);
    assert.equal(back.categoryId, undefined);
    assert.equal(back.name, 'City');
  });

  it('deletes a field after asking, saying its values go with it', async () => {
    const category = await h.create('userfieldcategories', { name: 'Doomed', type: 'public' });
    const id = await h.create('userfields', { type: 'text', name: 'Old code', categoryId: category });
    const person = await h.create('users', { email: 'oldcode@example.com' });
    await h.put(`users/${person}/userfieldvalues`, { [id]: 'X1' });
    const list = await admin.get(console_);
    assert.match(list.body, /data-confirm="Delete Old code\? Every person&#39;s value of it is deleted with it\."/);
    const deleted = await admin.post(`${console_}/${id}/delete`, {});
    assert.equal(deleted.status, 303);
    assert.equal((await h.get(`userfields/${id}`)).statusCode, 404);
    assert.deepEqual((await h.get(`users/${person}/userfieldvalues`)).json(), {});
    assert.equal((await admin.post(`${console_}/categories/${category}/delete`, {})).status, 303);
    assert.equal((await h.get(`userfieldcategories/${category}`)).statusCode, 404);
  });

  it('refuses with 400 on the form, keeping what was typed: a duplicate category, a minimum above the maximum, a non-empty category deleted', async () => {
    await h.create('userfieldcategories', { name: 'Taken', type: 'public' });
    const duplicate = await admin.post(`${console_}/categories`, { name: 'taken', type: 'private' });
    assert.equal(duplicate.status, 400);
    assert.match(textOf(duplicate), /The category was not made: is already in use/);
    assert.equal(valueOf(duplicate, 'category-name'), 'taken');
    assert.match(duplicate.body, /<input type="radio" name="type" value="private"\s+checked/);

    const category = await h.create('userfieldcategories', { name: 'Limits', type: 'public' });
    const inverted = await admin.post(console_, { type: 'text', name: 'Postcode', categoryId: category, size: 'small', minimum: '10', maximum: '5' });
    assert.equal(inverted.status, 400);
    assert.match(textOf(inverted), /must not exceed maximumLength/);
    assert.equal(valueOf(inverted, 'field-name'), 'Postcode');
    assert.equal(valueOf(inverted, 'field-minimum'), '10');
    assert.equal(valueOf(inverted, 'field-maximum'), '5');
    assert.match(inverted.body, /id="field-minimum"[^>]*aria-invalid="true"/);

    const id = await h.create('userfields', { type: 'text', name: 'Kept', categoryId: category });
    const nonEmpty = await admin.post(`${console_}/categories/${category}/delete`, {});
    assert.equal(nonEmpty.status, 400);
    assert.match(textOf(nonEmpty), /The category still contains userfields; move or delete them first\./);
    assert.equal((await h.get(`userfields/${id}`)).statusCode, 200);

    const renamed = await admin.post(`${console_}/categories/${category}`, { name: 'TAKEN' });
    assert.equal(renamed.status, 400);
    assert.equal(valueOf(renamed, `rename-${category}`), 'TAKEN');

    const unnamed = await admin.post(console_, { type: 'checkboxes', name: '', categoryId: category, newOptions: 'One\nONE' });
    assert.equal(unnamed.status, 400);
    assert.equal(valueOf(unnamed, 'field-new-options'), 'One\nONE');
    assert.match(textOf(unnamed), /repeats the name of an earlier option/);
  });

  it("answers another organization's field and category ids with a 404 page, changing nothing", async () => {
    const other = await h.createOrganization('Another organization');
    const category = await h.create('userfieldcategories', { name: 'Theirs', type: 'public' }, { token: other.token });
    const id = await h.create('userfields', { type: 'text', name: 'Their field', categoryId: category }, { token: other.token });
    const theirs = async () => [
      (await h.get(`userfields/${id}`, { token: other.token })).json(),
      (await h.get(`userfieldcategories/${category}`, { token: other.token })).json(),
    ];
    const before = await theirs();
    assert.equal((await admin.get(`${console_}/${id}`)).status, 404);
    for (const path of [
      `${console_}/${id}`,
      `${console_}/${id}/move`,
      `${console_}/${id}/delete`,
      `${console_}/categories/${category}`,
      `${console_}/categories/${category}/delete`,
    ]) {
      const answer = await admin.post(path, { name: 'Mine now', direction: 'up', categoryId: category });
      assert.equal(answer.status, 404, path);
    }
    const own = await h.create('userfields', { type: 'text', name: 'Mine', categoryName: 'Mine' });
    const moved = await admin.post(`${console_}/${own}`, { name: 'Mine', categoryId: category, size: 'medium' });
    assert.equal(moved.status, 400);
    assert.match(textOf(moved), /No resource exists with the given id/);
    assert.deepEqual(await theirs(), before);
  });
});
