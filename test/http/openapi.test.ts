import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { documentedResponses } from '../helpers/documented-responses.js';
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
    ] as const) {
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

/** Every schema in `value` for which `test` holds. */
function schemasWhere(value: unknown, test: (schema: Record<string, any>) => boolean, found: Record<string, any>[] = []): Record<string, any>[] {
  if (Array.isArray(value)) value.forEach((item) => schemasWhere(item, test, found));
  else if (value !== null && typeof value === 'object') {
    if (test(value as Record<string, any>)) found.push(value as Record<string, any>);
    Object.values(value).forEach((item) => schemasWhere(item, test, found));
  }
  return found;
}

forEachEngine(
  'OpenAPI document: the rules the server enforces, as schema',
  (h) => {
    let doc: any;
    before(async () => {
      doc = (await h.get('openapi.json', { token: null })).json();
    });
    const parameter = (path: string, name: string) => doc.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema;

    it('gives passwords the configured minimum (PASSWORD_MIN_LENGTH), the maximum and the letter-and-number rule', async () => {
      const passwords = schemasWhere(doc, (schema) => schema.format === 'password');
      assert.ok(passwords.length >= 2, 'the password of a new user and of an update');
      for (const password of passwords) {
        assert.equal(password.minLength, 12);
        assert.equal(password.maxLength, 64);
        const rule = new RegExp(password.pattern, 'u');
        for (const text of ['abcdefghijk1', '1abcdefghijk', 'pässwörd٣']) assert.equal(rule.test(text), true, text);
        for (const text of ['abcdefghijkl', '123456789012']) assert.equal(rule.test(text), false, text);
      }
      const short = await h.post('users', { email: 'short-password@example.com', password: 'abcdefghij1' });
      assert.equal(short.statusCode, 400);
      assert.match(short.json().fieldErrors.password, /12 to 64 characters/);
      assert.equal((await h.post('users', { email: 'long-password@example.com', password: 'abcdefghijk1' })).statusCode, 201);
    });

    it('gives every date filter a pattern of the dates the server takes, and refuses others in the v5 shape', async () => {
      const filters = schemasWhere(doc, (schema) => schema.format === 'date-filter');
      assert.ok(filters.length >= 15);
      for (const filter of filters) assert.equal(filter.pattern, filters[0]!.pattern);
      const pattern = new RegExp(parameter('/users', 'createdDate').pattern, 'u');
      for (const text of [
        '2013',
        '2013-10',
        '2012-02-29',
        '2000-02-29',
        '2013-10-23T00',
        '2013-10-23T00:48',
        '2013-10-23T00:48:50Z',
        '2013-10-23T00:48:50.5+02:00',
        '2013-10-23T02 02',
        '2013/2014',
        '../2020-01-01',
        '2013/..',
      ]) {
        assert.equal(pattern.test(text), true, text);
      }
      for (const text of [
        '2013-02-29',
        '1900-02-29',
        '2013-04-31',
        '2013-13',
        '0000',
        '2013-10-23T24',
        '2013-10-23T00:48:50',
        '2013-10-23T00:60',
        '2013-10-23T00+24:00',
        '../..',
        'yesterday',
        '2013-10-23 ',
      ]) {
        assert.equal(pattern.test(text), false, text);
      }
      const refused = await h.get('users?createdDate=2013-02-29');
      assert.equal(refused.statusCode, 400);
      assert.match(refused.json().fieldErrors.createdDate, /^must be a date such as/);
      assert.equal((await h.get('users?createdDate=2012-02-29')).statusCode, 200);
      // The timestamps a body gives (an offering's dates, a recovery's start) follow the same calendar.
      const timestamp = new RegExp(doc.paths['/offerings'].post.requestBody.content['application/json'].schema.properties.beginDate.pattern, 'u');
      assert.equal(timestamp.test('2012-02-29T10:00:00Z'), true);
      assert.equal(timestamp.test('2013-02-29T10:00:00Z'), false);
      assert.equal(timestamp.test('2013-03-01T10:00:00+24:00'), false);
    });

    it("describes a webhook's URL as an https URI with a host name, as the server takes it", () => {
      const urls = [doc.paths['/webhooks'].post, doc.paths['/webhooks/{id}'].put].map(
        (operation) => operation.requestBody.content['application/json'].schema.properties.url,
      );
      for (const url of urls) {
        assert.equal(url.format, 'uri');
        const pattern = new RegExp(url.pattern, 'u');
        const longest = `${['a', 'b', 'c'].map((letter) => letter.repeat(63)).join('.')}.${'d'.repeat(61)}`;
        for (const text of [
          'https://hooks.example.com/in',
          'HTTPS://hooks.example.com:8443/in?x=1',
          `https://${longest}/`,
          `https://${longest}./`,
          'https://internal.example.com/',
          'https://localhost.example.com/',
          'https://ip6-localhost.example/',
        ]) {
          assert.equal(pattern.test(text), true, text);
        }
        for (const text of [
          'http://hooks.example.com/',
          'https://10.0.0.1/',
          'https://[::a00:1]/',
          'https://[::127.0.0.1]/',
          'https://user@hooks.example.com/',
          'https://0x7f.1/',
          'ftp://hooks.example.com/',
          `https://${longest}d/`,
          `https://${'a'.repeat(64)}.example.com/`,
          'https://a..example.com/',
          'https://localhost/',
          'https://LocalHost.:8443/',
          'https://hooks.localhost/',
          'https://IP6-localhost/',
          'https://ip6-loopback./x',
          'https://metadata.google.internal/',
          'https://printer.LOCAL/',
          'https://router.home.arpa/',
          'https://example.com\\@127.0.0.1/',
          'https://example.com/a\\b',
        ]) {
          assert.equal(pattern.test(text), false, text);
        }
      }
    });

    it('requires categoryId or categoryName of a new userfield, and states the rules of a registration change', () => {
      for (const name of Object.keys(doc.components.schemas).filter((key) => key.startsWith('NewUserfield'))) {
        assert.deepEqual(doc.components.schemas[name].anyOf, [{ required: ['categoryId'] }, { required: ['categoryName'] }], name);
      }
      const change = doc.paths['/registrations/{id}'].put.requestBody.content['application/json'].schema;
      assert.deepEqual(change.oneOf, [{ required: ['status'] }, { required: ['grade'] }]);
      assert.deepEqual(change.dependentRequired, { graderComment: ['grade'] });
    });
  },
  { passwordPolicy: { minLength: 12 } },
);

forEachEngine('OpenAPI document, exact', (h) => {
  let doc: any;
  before(async () => {
    doc = (await h.get('openapi.json', { token: null })).json();
  });
  const operations = () =>
    Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      Object.entries<any>(item)
        .filter(([, operation]) => operation?.responses)
        .map(([method, operation]) => ({ path, method, operation, api: !item.servers })),
    );

  it('names every operation `resource.verb`, once, and puts it in one section declared at the top with a description', () => {
    const declared = new Map<string, string>(doc.tags.map((tag: { name: string; description: string }) => [tag.name, tag.description]));
    const ids = operations().map(({ path, method, operation }) => {
      assert.match(operation.operationId ?? '', /^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/, `${method} ${path}`);
      assert.equal(operation.tags.length, 1, `${method} ${path}`);
      assert.ok(declared.get(operation.tags[0]), `${method} ${path}: section ${operation.tags[0]} declared with a description`);
      return operation.operationId;
    });
    assert.equal(new Set(ids).size, ids.length, 'operation ids are unique');
    assert.deepEqual(
      ['GET /users', 'POST /users', 'GET /users/{id}', 'PUT /users/{id}', 'DELETE /users/{id}', 'PUT /users/{id}/userfieldvalues'].map((route) => {
        const [method, path] = route.split(' ') as [string, string];
        return doc.paths[path][method.toLowerCase()].operationId;
      }),
      ['users.list', 'users.create', 'users.get', 'users.update', 'users.delete', 'userfieldValues.replace'],
    );
  });

  it("states each operation's scope: read for one that only reads (which a write token grants too), write for the others", () => {
    const grantedBy = (...scopes: string[]) => ['bearer', 'oauth2'].flatMap((scheme) => scopes.map((scope) => ({ [scheme]: [scope] })));
    for (const { path, method, operation, api } of operations()) {
      if (!api) continue;
      assert.deepEqual(operation.security, method === 'get' ? grantedBy('read', 'write') : grantedBy('write'), `${method} ${path}`);
    }
    assert.deepEqual(Object.keys(doc.components.securitySchemes.oauth2.flows.clientCredentials.scopes), ['read', 'write', 'scim']);
    assert.equal(doc.security, undefined, 'no requirement of the whole document to contradict an operation');
  });

  it('documents 201 and 204 without a body (but the new webhook with its secret), 201 with its Location', () => {
    for (const { path, method, operation } of operations()) {
      for (const status of ['201', '204']) {
        const response = operation.responses[status];
        if (!response) continue;
        if (path === '/webhooks' && status === '201') {
          assert.ok(response.content['application/json'].schema.properties.secret);
        } else {
          assert.equal(response.content, undefined, `${method} ${path} ${status}`);
        }
        assert.ok(response.headers['X-Request-Id'], `${method} ${path} ${status}`);
      }
      if (operation.responses['201']) assert.deepEqual(operation.responses['201'].headers.Location, { $ref: '#/components/headers/Location' });
    }
    assert.equal(doc.components.headers.Location.required, true);
  });

  it('lists every refusal an API operation can answer, in the v5 shapes', () => {
    for (const { path, method, operation, api } of operations()) {
      const statuses = Object.keys(operation.responses);
      const expected = api ? ['400', '401', '403', '406', '429', '500', '503'] : ['429', '500', '503'];
      if (api && path.includes('{')) expected.push('404');
      if (api && ['post', 'put', 'delete'].includes(method)) expected.push('413', '415');
      for (const status of expected) assert.ok(statuses.includes(status), `${method} ${path} lacks ${status}`);
    }
    assert.deepEqual(doc.components.responses.BadRequest.content['application/json'].schema, { $ref: '#/components/schemas/ValidationErrors' });
    assert.deepEqual(doc.components.responses.TooManyRequests.headers['Retry-After'], { $ref: '#/components/headers/Retry-After' });
    assert.ok(doc.components.responses.Unauthorized.headers['WWW-Authenticate']);
    for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
      assert.ok(doc.paths['/users'].get.responses['200'].headers[name], name);
  });

  it('uses no schema title twice', () => {
    const titles: string[] = [];
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (value && typeof value === 'object') {
        const { title } = value as { title?: unknown };
        if (typeof title === 'string') titles.push(title);
        Object.values(value).forEach(collect);
      }
    };
    collect(doc.components.schemas);
    collect(doc.paths);
    assert.deepEqual(
      titles.filter((title, i) => titles.indexOf(title) !== i),
      [],
    );
  });

  it('gives request examples the server accepts, with a real email address', async () => {
    const users = doc.paths['/users'].post.requestBody.content['application/json'].example;
    assert.match(users.email, /^[a-z.]+@example\.com$/);
    assert.equal((await h.post('users', users)).statusCode, 201);
    const userfield = doc.paths['/userfields'].post.requestBody.content['application/json'].example;
    assert.equal((await h.post('userfields', userfield)).statusCode, 201);
  });

  it('is the yardstick of every response the suite receives: an undocumented answer fails', async () => {
    const trimmed = structuredClone(doc);
    delete trimmed.paths['/users/{id}'].get.responses['404'];
    trimmed.components.schemas.Errors.required = ['errors', 'error'];
    const response = await h.get('users/nobody');
    assert.equal(response.statusCode, 404);
    assert.throws(() => documentedResponses(trimmed).check('GET', '/api/v5/users/nobody', response), /does not list/);
    assert.throws(() => documentedResponses(trimmed).check('GET', '/api/v5/nowhere', response), /does not describe/);
    const created = await h.post('users', { email: 'yardstick@example.com' });
    assert.throws(() => documentedResponses(doc).check('POST', '/api/v5/users', { ...created, body: '{}' }), /promises none/);
  });
});
