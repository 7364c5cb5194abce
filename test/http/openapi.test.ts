import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine } from '../helpers/harness.js';

forEachEngine('OpenAPI document', (h) => {
  let doc: any;
  before(async () => {
    const response = await h.get('openapi.json', { token: null });
    assert.equal(response.statusCode, 200);
    doc = response.json();
  });

  it('refers every single-item response to its named component', () => {
    for (const [path, component] of [
      ['/users/{id}', 'User'],
      ['/userfields/{id}', 'Userfield'],
      ['/registrations/{id}', 'Registration'],
    ]) {
      assert.deepEqual(doc.paths[path].get.responses['200'].content['application/json'].schema, { $ref: `#/components/schemas/${component}` }, path);
    }
  });

  it('describes each userfield type by its own shape, told apart by `type`', () => {
    const userfield = doc.components.schemas.Userfield;
    assert.equal(userfield.discriminator.propertyName, 'type');
    assert.equal(userfield.oneOf.length, 12);
    assert.equal(Object.keys(userfield.discriminator.mapping).length, 12);
    const checkbox = doc.components.schemas.UserfieldCheckbox.properties;
    assert.ok(checkbox.name);
    for (const absent of ['required', 'options', 'constraints', 'message', 'size']) assert.equal(checkbox[absent], undefined, absent);
    assert.deepEqual(Object.keys(doc.components.schemas.UserfieldText.properties.constraints.properties), ['minimumLength', 'maximumLength']);
    assert.deepEqual(Object.keys(doc.components.schemas.UserfieldDate.properties.constraints.properties), ['minimumDate', 'maximumDate']);
    assert.deepEqual(
      Object.keys(doc.components.schemas.UserfieldMessage.properties)
        .sort()
        .filter((p) => ['message', 'name'].includes(p)),
      ['message'],
    );
  });

  it('describes the create payload per type, with what each type requires', () => {
    const body = doc.paths['/userfields'].post.requestBody.content['application/json'].schema;
    assert.equal(body.discriminator.mapping.radios, body.discriminator.mapping.radiobuttons);
    assert.ok(doc.components.schemas.NewUserfieldDropdown.required.includes('options'));
    assert.ok(doc.components.schemas.NewUserfieldMessage.required.includes('message'));
    assert.equal(doc.components.schemas.NewUserfieldMessage.properties.name, undefined);
  });

  it('publishes no validator-only annotations', () => {
    assert.equal(JSON.stringify(doc).includes('errorMessage'), false);
  });
});
