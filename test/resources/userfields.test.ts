import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine } from '../helpers/harness.js';
import { assertDense, listAll, unique, withoutUpdatedDate } from '../helpers/collections.js';
import { createCategory, createTextField, fieldsIn } from '../helpers/userfields.js';

const PREDEFINED = ['Street 1', 'Street 2', 'City', 'State/Province', 'Postal Code', 'Country', 'Phone Number', 'Company'];
const PLACEMENT = ['categoryId', 'categoryName', 'categoryType', 'createdDate', 'id', 'orderIndex', 'type', 'updatedDate'];
const OPTIONS = [{ name: 'Red' }, { name: 'Green', selected: true }];

/** One create payload per type, and the properties (besides placement) each must come back with. */
const TYPES: { type: string; body: Record<string, unknown>; properties: string[] }[] = [
  {
    type: 'text',
    body: {
      name: 'Nickname',
      required: true,
      constraints: { minimumLength: 2, maximumLength: 20 },
      size: 'large',
      localizedNames: { fr: 'Surnom' },
    },
    properties: ['constraints', 'localizedNames', 'name', 'required', 'size'],
  },
  {
    type: 'number',
    body: { name: 'Age', constraints: { minimumValue: 18, maximumValue: 130 } },
    properties: ['constraints', 'name', 'required', 'size'],
  },
  { type: 'decimal', body: { name: 'Height', size: 'small' }, properties: ['name', 'required', 'size'] },
  { type: 'email', body: { name: 'Work email', constraints: { maximumLength: 100 } }, properties: ['constraints', 'name', 'required', 'size'] },
  {
    type: 'date',
    body: { name: 'Birthday', constraints: { minimumDate: '01/01/1900', maximumDate: '12/31/2020' } },
    properties: ['constraints', 'name', 'required', 'size'],
  },
  { type: 'dropdown', body: { name: 'Color', options: OPTIONS }, properties: ['name', 'options', 'required'] },
  { type: 'radiobuttons', body: { name: 'Shirt size', options: OPTIONS, required: true }, properties: ['name', 'options', 'required'] },
  {
    type: 'checkboxes',
    body: {
      name: 'Interests',
      options: [
        { name: 'Math', selected: true },
        { name: 'Art', selected: true },
      ],
    },
    properties: ['name', 'options', 'required'],
  },
  { type: 'checkbox', body: { name: 'Newsletter' }, properties: ['name'] },
  { type: 'truefalse', body: { name: 'Vegetarian' }, properties: ['name', 'required'] },
  { type: 'yesno', body: { name: 'Needs parking' }, properties: ['name', 'required'] },
  { type: 'message', body: { message: 'Tell us about your address below.' }, properties: ['message'] },
];

forEachEngine('userfields', (h) => {
  const get = async (id: string) => (await h.get(`userfields/${id}`)).json();

  it('gives every organization the eight predefined fields: read-only text, in no category, listed last', async () => {
    const org = await h.createOrganization('Fresh organization');
    const categoryId = await createCategory(h, 'public', unique('Early'), { token: org.token });
    await createTextField(h, categoryId, {}, { token: org.token });
    const all = await listAll(h, 'userfields', {}, { token: org.token });
    assert.equal(all.length, 9);
    assert.equal(all[0].categoryId, categoryId);
    const predefined = all.slice(1);
    assert.deepEqual(
      predefined.map((field) => field.name),
      PREDEFINED,
    );
    for (const field of predefined) {
      assert.deepEqual(Object.keys(field).sort(), ['createdDate', 'id', 'name', 'readOnly', 'required', 'size', 'type', 'updatedDate']);
      assert.equal(field.type, 'text');
      assert.equal(field.readOnly, true);
      assert.equal(field.required, false);
    }
    const mine = (await listAll(h, 'userfields')).filter((field) => field.readOnly);
    assert.deepEqual(
      mine.map((field) => field.name),
      PREDEFINED,
    );
    assert.equal(
      mine.some((field) => predefined.some((theirs) => theirs.id === field.id)),
      false,
    );
  });

  for (const { type, body, properties } of TYPES) {
    it(`creates a ${type} field and reads back exactly the properties of its type`, async () => {
      const categoryName = unique(`Kind ${type}`);
      const id = await h.create('userfields', { type, categoryName, ...body });
      const field = await get(id);
      assert.deepEqual(Object.keys(field).sort(), [...PLACEMENT, ...properties].sort());
      assert.equal(field.type, type);
      assert.equal(field.categoryName, categoryName);
      assert.equal(field.categoryType, 'public');
      assert.equal(field.orderIndex, 0);
      for (const property of properties) {
        if (property === 'options') {
          const sent = body.options as { name: string; selected?: boolean }[];
          assert.deepEqual(
            field.options,
            sent.map((option) => ({ name: option.name, selected: option.selected ?? false })),
          );
        } else if (property === 'required' || property === 'size') {
          assert.equal(field[property], body[property] ?? (property === 'size' ? 'medium' : false));
        } else {
          assert.deepEqual(field[property], body[property]);
        }
      }
    });
  }

  it('accepts radios as the input name of radiobuttons', async () => {
    const id = await h.create('userfields', { type: 'radios', name: 'Pick one', categoryName: unique('Radios'), options: OPTIONS });
    assert.equal((await get(id)).type, 'radiobuttons');
  });

  it('refuses every property that does not apply to the type, at once', async () => {
    const categoryName = unique('Not applicable');
    const cases: [Record<string, unknown>, Record<string, string>][] = [
      [
        { type: 'checkbox', name: 'Agree', required: true, options: OPTIONS },
        { required: 'checkbox', options: 'checkbox' },
      ],
      [
        { type: 'text', name: 'Plain', options: OPTIONS, message: 'Hi' },
        { options: 'text', message: 'text' },
      ],
      [
        { type: 'message', message: 'Hi', name: 'Named', required: false, size: 'small' },
        { name: 'message', required: 'message', size: 'message' },
      ],
      [
        { type: 'truefalse', name: 'TF', options: OPTIONS, constraints: {} },
        { options: 'truefalse', constraints: 'truefalse' },
      ],
      [
        { type: 'dropdown', name: 'DD', options: OPTIONS, size: 'large', constraints: { maximumLength: 3 } },
        { size: 'dropdown', constraints: 'dropdown' },
      ],
    ];
    for (const [body, expected] of cases) {
      const response = await h.post('userfields', { categoryName, ...body });
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      const fieldErrors = response.json().fieldErrors;
      for (const [property, type] of Object.entries(expected)) assert.equal(fieldErrors[property], `not applicable to type ${type}`);
    }
    assert.equal((await listAll(h, 'userfieldcategories', { name: categoryName })).length, 0);
  });

  it('demands what each type must have: name, message, options', async () => {
    const categoryName = unique('Demands');
    assert.equal((await h.post('userfields', { type: 'number', categoryName })).json().fieldErrors.name, 'required');
    assert.equal((await h.post('userfields', { type: 'text', name: '   ', categoryName })).json().fieldErrors.name, 'required');
    assert.equal((await h.post('userfields', { type: 'message', categoryName })).json().fieldErrors.message, 'required');
    assert.equal((await h.post('userfields', { type: 'dropdown', name: 'D', categoryName })).json().fieldErrors.options, 'required');
    assert.ok((await h.post('userfields', { type: 'checkboxes', name: 'C', categoryName, options: [] })).json().fieldErrors.options);
    const unknownType = await h.post('userfields', { type: 'slider', name: 'S', categoryName });
    assert.match(unknownType.json().fieldErrors.type, /^must be one of text, number/);
    assert.equal((await h.post('userfields', { name: 'No type', categoryName })).json().fieldErrors.type, 'required');
  });

  it('requires categoryName or categoryId', async () => {
    const response = await h.post('userfields', { type: 'text', name: 'Homeless' });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json().fieldErrors, { categoryName: 'required' });
  });

  it('creates an unknown category by name, public unless categoryType is private; names match case-insensitively', async () => {
    const name = unique('Implicit');
    const first = await h.create('userfields', { type: 'text', name: 'A', categoryName: name });
    const second = await h.create('userfields', { type: 'text', name: 'B', categoryName: name.toUpperCase() });
    const [a, b] = [await get(first), await get(second)];
    assert.equal(a.categoryId, b.categoryId);
    assert.equal(b.categoryName, name);
    assert.equal(a.categoryType, 'public');
    assert.deepEqual([a.orderIndex, b.orderIndex], [0, 1]);

    const privateName = unique('Hidden');
    const hidden = await get(await h.create('userfields', { type: 'text', name: 'C', categoryName: privateName, categoryType: 'private' }));
    assert.equal(hidden.categoryType, 'private');
    assert.equal((await h.get(`userfieldcategories/${hidden.categoryId}`)).json().type, 'private');

    const mismatch = await h.post('userfields', { type: 'text', name: 'D', categoryName: privateName, categoryType: 'public' });
    assert.equal(mismatch.statusCode, 400);
    assert.ok(mismatch.json().fieldErrors.categoryType);
  });

  it('takes categoryId, and refuses categoryId and categoryName that name different categories', async () => {
    const name = unique('By id');
    const categoryId = await createCategory(h, 'private', name);
    const other = unique('Elsewhere');
    await createCategory(h, 'public', other);
    const byBoth = await get(await h.create('userfields', { type: 'text', name: 'Both', categoryId, categoryName: name.toLowerCase() }));
    assert.equal(byBoth.categoryId, categoryId);
    assert.equal(byBoth.categoryType, 'private');
    for (const categoryName of [other, unique('Nonexistent')]) {
      const response = await h.post('userfields', { type: 'text', name: 'Torn', categoryId, categoryName });
      assert.equal(response.statusCode, 400);
      assert.ok(response.json().fieldErrors.categoryName);
    }
    assert.equal((await listAll(h, 'userfieldcategories', { name: 'Nonexistent' })).length, 0);
  });

  it("treats another organization's category id as unknown: a 400 fieldError", async () => {
    const org = await h.createOrganization('Category owner');
    const foreign = await createCategory(h, 'public', unique('Theirs'), { token: org.token });
    for (const categoryId of [foreign, '0'.repeat(32), 'nope']) {
      const response = await h.post('userfields', { type: 'text', name: 'Sneaky', categoryId });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().fieldErrors.categoryId, 'No resource exists with the given id.');
    }
    assert.deepEqual(await fieldsIn(h, foreign, { token: org.token }), []);
  });

  it('checks options: unique names (case-insensitive), at most one selected except for checkboxes', async () => {
    const categoryName = unique('Options');
    const repeated = await h.post('userfields', { type: 'dropdown', name: 'D', categoryName, options: [{ name: 'One' }, { name: 'ONE' }] });
    assert.equal(repeated.statusCode, 400);
    assert.ok(repeated.json().fieldErrors['options[1].name']);
    const twoSelected = [
      { name: 'A', selected: true },
      { name: 'B', selected: true },
    ];
    for (const type of ['dropdown', 'radiobuttons']) {
      const response = await h.post('userfields', { type, name: 'D', categoryName, options: twoSelected });
      assert.equal(response.json().fieldErrors.options, `at most one option may be selected for type ${type}`);
    }
    assert.equal((await h.post('userfields', { type: 'checkboxes', name: 'C', categoryName, options: twoSelected })).statusCode, 201);
    const options = [{ name: '' }, { label: 'x' }, 'plain'];
    const malformed = await h.post('userfields', { type: 'dropdown', name: 'D', categoryName, options });
    const fieldErrors = malformed.json().fieldErrors;
    assert.ok(fieldErrors['options[0].name']);
    assert.ok(fieldErrors['options[1].label'] || fieldErrors['options[1].name']);
    assert.ok(fieldErrors['options[2]']);
  });

  it('checks constraints: names of the type, integers of 0 or more, real dates, minimum never above maximum', async () => {
    const categoryName = unique('Constraints');
    const post = async (type: string, constraints: unknown) =>
      (await h.post('userfields', { type, name: 'C', categoryName, constraints })).json().fieldErrors ?? {};
    assert.equal((await post('text', { minimumValue: 1 }))['constraints.minimumValue'], 'not applicable to type text');
    assert.equal((await post('number', { maximumLength: 1 }))['constraints.maximumLength'], 'not applicable to type number');
    assert.equal((await post('decimal', { minimumDate: '01/01/2000' }))['constraints.minimumDate'], 'not applicable to type decimal');
    assert.equal((await post('date', { minimumLength: 1 }))['constraints.minimumLength'], 'not applicable to type date');
    assert.equal((await post('text', { longest: 3 }))['constraints.longest'], 'unknown property');
    const negative = await post('email', { minimumLength: -1, maximumLength: 2.5 });
    assert.ok(negative['constraints.minimumLength']);
    assert.ok(negative['constraints.maximumLength']);
    assert.ok((await post('number', { minimumValue: '3' }))['constraints.minimumValue']);
    assert.ok((await post('date', { minimumDate: '2020-01-01' }))['constraints.minimumDate']);
    assert.ok((await post('date', { maximumDate: '02/30/2024' }))['constraints.maximumDate']);
    assert.equal((await post('text', { minimumLength: 5, maximumLength: 4 }))['constraints.minimumLength'], 'must not exceed maximumLength');
    assert.equal((await post('number', { minimumValue: 10, maximumValue: 9 }))['constraints.minimumValue'], 'must not exceed maximumValue');
    assert.ok((await post('date', { minimumDate: '01/02/2020', maximumDate: '01/01/2020' }))['constraints.minimumDate']);
    for (const [type, constraints] of [
      ['text', { minimumLength: 4, maximumLength: 4 }],
      ['decimal', { minimumValue: 0, maximumValue: 0 }],
      ['date', { minimumDate: '02/29/2024', maximumDate: '02/29/2024' }],
    ] as const) {
      const response = await h.post('userfields', { type, name: 'Equal limits', categoryName, constraints });
      assert.equal(response.statusCode, 201, response.body);
    }
  });

  it('refuses constraint limits beyond the integers JSON numbers hold exactly, rather than rounding them', async () => {
    const categoryName = unique('Huge limits');
    for (const [type, constraints] of [
      ['number', { maximumValue: 2 ** 53 }],
      ['decimal', { minimumValue: 1e308 }],
      ['text', { maximumLength: 2 ** 53 }],
    ] as const) {
      const response = await h.post('userfields', { type, name: 'Huge', categoryName, constraints });
      assert.equal(response.statusCode, 400, response.body);
      assert.deepEqual(Object.keys(response.json().fieldErrors), [`constraints.${Object.keys(constraints)[0]}`]);
    }
    assert.deepEqual(await listAll(h, 'userfieldcategories', { name: categoryName }), []);
    const id = await h.create('userfields', { type: 'number', name: 'Largest', categoryName, constraints: { maximumValue: 2 ** 53 - 1 } });
    assert.deepEqual((await h.get(`userfields/${id}`)).json().constraints, { maximumValue: 2 ** 53 - 1 });
  });

  it('inserts at orderIndex, shifting later fields; omitted or beyond the end appends', async () => {
    const categoryId = await createCategory(h);
    const a = await createTextField(h, categoryId);
    const b = await createTextField(h, categoryId);
    const first = await createTextField(h, categoryId, { orderIndex: 0 });
    const middle = await createTextField(h, categoryId, { orderIndex: 2 });
    const last = await createTextField(h, categoryId, { orderIndex: 99 });
    const fields = await fieldsIn(h, categoryId);
    assertDense(fields);
    assert.deepEqual(
      fields.map((field) => field.id),
      [first, a, middle, b, last],
    );
  });

  it('renames; a blank or null name fails with "name is required"', async () => {
    const id = await createTextField(h, await createCategory(h));
    assert.equal((await h.put(`userfields/${id}`, { name: 'Renamed' })).statusCode, 204);
    assert.equal((await get(id)).name, 'Renamed');
    for (const name of ['', '  ', null]) {
      const response = await h.put(`userfields/${id}`, { name });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), { message: 'name is required', fieldErrors: { name: 'required' } });
    }
    assert.equal((await get(id)).name, 'Renamed');
  });

  it('changes required, and records that users must be asked when it becomes required', async () => {
    const id = await createTextField(h, await createCategory(h));
    const flag = async () => {
      const row = await h.database.db.selectFrom('userfields').select('prompt_missing_values').where('id', '=', id).executeTakeFirstOrThrow();
      return Boolean(row.prompt_missing_values);
    };
    assert.equal(await flag(), false);
    assert.equal((await h.put(`userfields/${id}`, { required: true })).statusCode, 204);
    assert.equal((await get(id)).required, true);
    assert.equal(await flag(), true);
    assert.equal((await h.put(`userfields/${id}`, { required: false })).statusCode, 204);
    assert.equal((await get(id)).required, false);
    assert.equal(await flag(), false);
  });

  it('replaces options, which also removes the ones left out', async () => {
    const original = [{ name: 'Apple' }, { name: 'Pear' }];
    const id = await h.create('userfields', { type: 'dropdown', name: 'Fruit', categoryName: unique('Fruit'), options: original });
    const options = [{ name: 'Pear', selected: true }, { name: 'Plum' }];
    assert.equal((await h.put(`userfields/${id}`, { options })).statusCode, 204);
    assert.deepEqual((await get(id)).options, [
      { name: 'Pear', selected: true },
      { name: 'Plum', selected: false },
    ]);
    const invalid = await h.put(`userfields/${id}`, { options: [] });
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.json().message, 'invalid value');
    assert.equal((await get(id)).options.length, 2);
  });

  it('replaces constraints: update, remove one, clear all with {}', async () => {
    const id = await createTextField(h, await createCategory(h), { constraints: { minimumLength: 1, maximumLength: 10 } });
    assert.equal((await h.put(`userfields/${id}`, { constraints: { minimumLength: 2, maximumLength: 5 } })).statusCode, 204);
    assert.deepEqual((await get(id)).constraints, { minimumLength: 2, maximumLength: 5 });
    assert.equal((await h.put(`userfields/${id}`, { constraints: { maximumLength: 5 } })).statusCode, 204);
    assert.deepEqual((await get(id)).constraints, { maximumLength: 5 });
    assert.equal((await h.put(`userfields/${id}`, { constraints: {} })).statusCode, 204);
    assert.equal('constraints' in (await get(id)), false);
    const invalid = await h.put(`userfields/${id}`, { constraints: { minimumLength: 3, maximumLength: 2, minimumDate: '01/01/2000' } });
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.json().message, 'invalid value');
    assert.deepEqual(Object.keys(invalid.json().fieldErrors).sort(), ['constraints.minimumDate', 'constraints.minimumLength']);
  });

  it('updates a message; a blank one fails with "message is required"', async () => {
    const id = await h.create('userfields', { type: 'message', message: 'Old text', categoryName: unique('Messages') });
    assert.equal((await h.put(`userfields/${id}`, { message: 'New text' })).statusCode, 204);
    assert.equal((await get(id)).message, 'New text');
    const response = await h.put(`userfields/${id}`, { message: '' });
    assert.deepEqual(response.json(), { message: 'message is required', fieldErrors: { message: 'required' } });
    assert.equal((await get(id)).message, 'New text');
  });

  it('updates size and localizedNames; {} clears the names', async () => {
    const id = await createTextField(h, await createCategory(h));
    assert.equal((await h.put(`userfields/${id}`, { size: 'mediumlarge', localizedNames: { de: 'Feld', 'pt-BR': 'Campo' } })).statusCode, 204);
    let field = await get(id);
    assert.equal(field.size, 'mediumlarge');
    assert.deepEqual(field.localizedNames, { de: 'Feld', 'pt-BR': 'Campo' });
    assert.equal((await h.put(`userfields/${id}`, { localizedNames: {} })).statusCode, 204);
    field = await get(id);
    assert.equal('localizedNames' in field, false);
    const invalid = await h.put(`userfields/${id}`, { size: 'huge', localizedNames: { German: 'Feld' } });
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.json().message, 'invalid value');
    assert.ok(invalid.json().fieldErrors.size);
    assert.ok(invalid.json().fieldErrors.localizedNames);
  });

  it('moves within its category with orderIndex; beyond the end means the end', async () => {
    const categoryId = await createCategory(h);
    const ids = [await createTextField(h, categoryId), await createTextField(h, categoryId), await createTextField(h, categoryId)];
    assert.equal((await h.put(`userfields/${ids[0]}`, { orderIndex: 2 })).statusCode, 204);
    let fields = await fieldsIn(h, categoryId);
    assertDense(fields);
    assert.deepEqual(
      fields.map((field) => field.id),
      [ids[1], ids[2], ids[0]],
    );
    assert.equal((await h.put(`userfields/${ids[0]}`, { orderIndex: 0 })).statusCode, 204);
    assert.equal((await h.put(`userfields/${ids[1]}`, { orderIndex: 40 })).statusCode, 204);
    fields = await fieldsIn(h, categoryId);
    assertDense(fields);
    assert.deepEqual(
      fields.map((field) => field.id),
      [ids[0], ids[2], ids[1]],
    );
  });

  it('moves to another category, also from public to private: appended unless orderIndex is sent; the source closes its gap', async () => {
    const source = await createCategory(h, 'public');
    const targetName = unique('Target');
    const target = await createCategory(h, 'private', targetName);
    const moving = [await createTextField(h, source), await createTextField(h, source), await createTextField(h, source)] as const;
    const resident = [await createTextField(h, target), await createTextField(h, target)] as const;

    assert.equal((await h.put(`userfields/${moving[0]}`, { categoryId: target })).statusCode, 204);
    const field = await get(moving[0]);
    assert.deepEqual([field.categoryId, field.categoryName, field.categoryType, field.orderIndex], [target, targetName, 'private', 2]);
    assert.equal((await h.put(`userfields/${moving[1]}`, { categoryName: targetName.toUpperCase(), orderIndex: 0 })).statusCode, 204);

    const inSource = await fieldsIn(h, source);
    assertDense(inSource);
    assert.deepEqual(
      inSource.map((f) => f.id),
      [moving[2]],
    );
    const inTarget = await fieldsIn(h, target);
    assertDense(inTarget);
    assert.deepEqual(
      inTarget.map((f) => f.id),
      [moving[1], resident[0], resident[1], moving[0]],
    );
    assert.equal(
      (await listAll(h, 'userfields', { categoryType: 'private' })).some((f) => f.id === moving[1]),
      true,
    );
  });

  it('moves to a category named by categoryName, creating an unknown one as create does; an unknown categoryId is refused', async () => {
    const categoryId = await createCategory(h);
    const id = await createTextField(h, categoryId);
    const newName = unique('Made by a move');
    assert.equal((await h.put(`userfields/${id}`, { categoryName: newName })).statusCode, 204);
    const moved = await get(id);
    assert.deepEqual([moved.categoryName, moved.categoryType, moved.orderIndex], [newName, 'public', 0]);
    assert.notEqual(moved.categoryId, categoryId);
    const privateName = unique('Private by a move');
    assert.equal((await h.put(`userfields/${id}`, { categoryName: privateName, categoryType: 'private' })).statusCode, 204);
    assert.deepEqual([(await get(id)).categoryName, (await get(id)).categoryType], [privateName, 'private']);
    const unknownId = await h.put(`userfields/${id}`, { categoryId: '0'.repeat(32) });
    assert.equal(unknownId.statusCode, 400);
    assert.equal(unknownId.json().fieldErrors.categoryId, 'No resource exists with the given id.');
    assert.equal((await get(id)).categoryName, privateName);
  });

  it('applies categoryType or refuses it, never ignoring it: it cannot change the type of an existing category', async () => {
    const publicId = await createCategory(h, 'public');
    const privateId = await createCategory(h, 'private');
    const id = await createTextField(h, publicId);
    const before = await get(id);
    const mismatch = await h.put(`userfields/${id}`, { categoryType: 'private' });
    assert.equal(mismatch.statusCode, 400);
    assert.equal(mismatch.json().fieldErrors.categoryType, 'does not match the category, which is public');
    const mismatchedMove = await h.put(`userfields/${id}`, { categoryId: privateId, categoryType: 'public' });
    assert.equal(mismatchedMove.json().fieldErrors.categoryType, 'does not match the category, which is private');
    assert.deepEqual(await get(id), before);
    assert.equal((await h.put(`userfields/${id}`, { categoryType: 'public' })).statusCode, 204);
    assert.equal((await h.put(`userfields/${id}`, { categoryId: privateId, categoryType: 'private' })).statusCode, 204);
    assert.equal((await get(id)).categoryType, 'private');
    const predefined = (await listAll(h, 'userfields')).find((field) => field.readOnly && field.categoryId === undefined);
    const unplaced = await h.put(`userfields/${predefined.id}`, { categoryType: 'public' });
    assert.equal(unplaced.statusCode, 400);
    assert.match(unplaced.json().fieldErrors.categoryType, /in no category/);
  });

  it('ignores read-only properties, so every type can be PUT back as read', async () => {
    for (const { type, body } of TYPES) {
      const id = await h.create('userfields', { type, categoryName: unique(`Round trip ${type}`), ...body });
      const read = await get(id);
      const response = await h.put(`userfields/${id}`, { ...read, id: 'ignored', createdDate: 'ignored' });
      assert.equal(response.statusCode, 204, `${type}: ${response.body}`);
      assert.deepEqual(withoutUpdatedDate(await get(id)), withoutUpdatedDate(read));
    }
    const predefined = (await listAll(h, 'userfields')).find((field) => field.readOnly);
    assert.equal((await h.put(`userfields/${predefined.id}`, predefined)).statusCode, 204);
    assert.deepEqual(withoutUpdatedDate(await get(predefined.id)), withoutUpdatedDate(predefined));
  });

  it('never changes the type; the alias of the current type is no change', async () => {
    const id = await h.create('userfields', { type: 'radiobuttons', name: 'R', categoryName: unique('Types'), options: OPTIONS });
    assert.equal((await h.put(`userfields/${id}`, { type: 'radios' })).statusCode, 204);
    const response = await h.put(`userfields/${id}`, { type: 'dropdown' });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().message, 'invalid value');
    assert.ok(response.json().fieldErrors.type);
    assert.equal((await get(id)).type, 'radiobuttons');
  });

  it('refuses on update what does not apply to the type, with every problem at once', async () => {
    const id = await h.create('userfields', { type: 'checkbox', name: 'Agree', categoryName: unique('Update checks') });
    const response = await h.put(`userfields/${id}`, { required: true, options: OPTIONS, name: '', color: 'blue' });
    assert.equal(response.statusCode, 400);
    const body = response.json();
    assert.equal(body.message, 'invalid value');
    assert.equal(body.fieldErrors.color, 'unknown property');
    const checks = await h.put(`userfields/${id}`, { required: true, options: OPTIONS, name: '' });
    assert.deepEqual(checks.json(), {
      message: 'name is required',
      fieldErrors: { required: 'not applicable to type checkbox', options: 'not applicable to type checkbox', name: 'required' },
    });
    assert.equal((await get(id)).name, 'Agree');
  });

  it('places a predefined field into a category and takes it out again with DELETE', async () => {
    const predefined = (await listAll(h, 'userfields')).filter((field) => field.readOnly);
    const [street, city] = [predefined[0], predefined[2]];
    const categoryName = unique('Address');
    const categoryId = await createCategory(h, 'public', categoryName);
    await createTextField(h, categoryId);
    assert.equal((await h.put(`userfields/${street.id}`, { categoryId })).statusCode, 204);
    assert.equal((await h.put(`userfields/${city.id}`, { categoryName, orderIndex: 0, required: true })).statusCode, 204);
    let fields = await fieldsIn(h, categoryId);
    assertDense(fields);
    assert.deepEqual(
      fields.map((field) => field.name).filter((name) => PREDEFINED.includes(name)),
      ['City', 'Street 1'],
    );
    assert.equal(fields.at(-1).id, street.id);
    assert.equal(fields[0].required, true);
    assert.equal(fields[0].readOnly, true);

    assert.equal((await h.delete(`userfields/${city.id}`)).statusCode, 204);
    fields = await fieldsIn(h, categoryId);
    assertDense(fields);
    assert.equal(
      fields.some((field) => field.id === city.id),
      false,
    );
    const out = await get(city.id);
    assert.equal('categoryId' in out, false);
    assert.equal('orderIndex' in out, false);
    assert.equal(out.readOnly, true);

    const again = await h.delete(`userfields/${city.id}`);
    assert.equal(again.statusCode, 400);
    assert.match(again.json().message, /predefined/);
    assert.equal((await get(city.id)).name, 'City');
  });

  it("keeps a predefined field's name and type", async () => {
    const street = (await listAll(h, 'userfields')).find((field) => field.name === 'Street 2');
    const rename = await h.put(`userfields/${street.id}`, { name: 'Road' });
    assert.equal(rename.statusCode, 400);
    assert.ok(rename.json().fieldErrors.name);
    assert.equal((await h.put(`userfields/${street.id}`, { type: 'email' })).statusCode, 400);
    assert.equal((await h.put(`userfields/${street.id}`, { options: OPTIONS })).json().fieldErrors.options, 'not applicable to type text');
    assert.equal((await h.put(`userfields/${street.id}`, { orderIndex: 1 })).statusCode, 400);
    assert.equal((await h.put(`userfields/${street.id}`, { name: 'Street 2', constraints: { maximumLength: 80 } })).statusCode, 204);
    const field = await get(street.id);
    assert.equal(field.name, 'Street 2');
    assert.deepEqual(field.constraints, { maximumLength: 80 });
  });

  it('deletes a custom field and closes the gap in its category', async () => {
    const categoryId = await createCategory(h);
    const ids = [await createTextField(h, categoryId), await createTextField(h, categoryId), await createTextField(h, categoryId)];
    const response = await h.delete(`userfields/${ids[0]}`);
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    assert.equal((await h.get(`userfields/${ids[0]}`)).statusCode, 404);
    const fields = await fieldsIn(h, categoryId);
    assertDense(fields);
    assert.deepEqual(
      fields.map((field) => field.id),
      ids.slice(1),
    );
  });

  it('lists by category (public first by category orderIndex, then private), then orderIndex; predefined in no category last', async () => {
    const org = await h.createOrganization('Ordering');
    const as = { token: org.token };
    const privateFirst = await createCategory(h, 'private', unique('P1'), as);
    const publicSecond = await createCategory(h, 'public', unique('U2'), as);
    const publicFirst = await h.create('userfieldcategories', { name: unique('U1'), type: 'public', orderIndex: 0 }, as);
    const f1 = await createTextField(h, privateFirst, {}, as);
    const f2 = await createTextField(h, publicSecond, {}, as);
    const f3 = await createTextField(h, publicFirst, {}, as);
    const f4 = await createTextField(h, publicFirst, { orderIndex: 0 }, as);
    const all = await listAll(h, 'userfields', {}, as);
    assert.deepEqual(
      all.slice(0, 4).map((field) => field.id),
      [f4, f3, f2, f1],
    );
    assert.deepEqual(
      all.slice(4).map((field) => field.name),
      PREDEFINED,
    );

    assert.deepEqual(
      (await listAll(h, 'userfields', { categoryType: 'public' }, as)).map((field) => field.id),
      [f4, f3, f2],
    );
    assert.deepEqual(
      (await listAll(h, 'userfields', { categoryType: 'private' }, as)).map((field) => field.id),
      [f1],
    );
    const year = new Date().getUTCFullYear();
    assert.equal((await listAll(h, 'userfields', { createdDate: `${year}/..` }, as)).length, 12);
    assert.equal((await listAll(h, 'userfields', { createdDate: `../${year - 1}` }, as)).length, 0);

    const page = (await h.get('userfields', { ...as, query: { limit: '3', offset: '3' } })).json();
    assert.deepEqual(page.results, all.slice(3, 6));
    assert.match(page.next, /limit=3&offset=6$/);
    assert.match(page.prev, /limit=3&offset=0$/);
    assert.equal((await h.get('userfields', { query: { categoryType: 'secret' } })).statusCode, 400);
    assert.equal((await h.get('userfields', { query: { tag: 'x' } })).json().fieldErrors.tag, 'unknown query parameter');
  });

  it("answers 404 for an unknown, malformed or another organization's field on every route", async () => {
    const org = await h.createOrganization('Field owner');
    const as = { token: org.token };
    const foreign = await createTextField(h, await createCategory(h, 'public', unique('Theirs'), as), {}, as);
    for (const id of [foreign, '0'.repeat(32), 'x']) {
      for (const response of [
        await h.get(`userfields/${id}`),
        await h.put(`userfields/${id}`, { name: 'Mine now' }),
        await h.delete(`userfields/${id}`),
      ]) {
        assert.equal(response.statusCode, 404);
        assert.deepEqual(response.json(), { errors: ['No resource exists with the given id.'] });
      }
    }
    const theirs = (await h.get(`userfields/${foreign}`, { token: org.token })).json();
    assert.notEqual(theirs.name, 'Mine now');
  });

  it('documents the per-type shapes in the OpenAPI document', async () => {
    const document = (await h.get('openapi.json')).json();
    for (const path of ['/userfields', '/userfields/{id}', '/userfieldcategories', '/userfieldcategories/{id}', '/users/{id}/userfieldvalues']) {
      assert.ok(document.paths[path], path);
    }
    const create = document.paths['/userfields'].post.requestBody.content['application/json'].schema;
    assert.match(create.description, /- checkbox: name, localizedNames\n/);
    assert.match(create.description, /- date: name, localizedNames, required, constraints \(minimumDate, maximumDate\), size/);
    assert.ok(create.discriminator.mapping.radios, 'radios is documented as an alias');
  });
});
