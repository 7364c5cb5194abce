import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine } from '../helpers/harness.js';
import { ENTERPRISE, ScimClient, scimError, USER_SCHEMA } from './scim-client.js';

interface Attribute {
  name: string;
  type: string;
  required: boolean;
  description: string;
  canonicalValues?: string[];
  subAttributes?: Attribute[];
}

const named = (attributes: Attribute[], name: string): Attribute => {
  const found = attributes.find((attribute) => attribute.name === name);
  assert.ok(found, `no attribute ${name}`);
  return found;
};

// A server whose operator raised the password minimum: /Schemas must say the minimum it enforces.
forEachEngine(
  'SCIM discovery',
  (h) => {
    let scim: ScimClient;
    let employeeNumber: string;
    before(async () => {
      scim = await ScimClient.of(h);
      employeeNumber = await h.create('userfields', { type: 'number', name: 'Employee number', categoryName: 'HR' });
      const mapped = await h.put('scimattributes', { [`${ENTERPRISE}:employeeNumber`]: employeeNumber });
      assert.equal(mapped.statusCode, 204, mapped.body);
    });

    async function userAttributes(): Promise<Attribute[]> {
      const response = await scim.get(`/Schemas/${USER_SCHEMA}`);
      assert.equal(response.statusCode, 200, response.body);
      return response.json().attributes;
    }

    it('says emails is required, as the server requires it', async () => {
      const emails = named(await userAttributes(), 'emails');
      assert.equal(emails.required, true);
      assert.equal(named(emails.subAttributes!, 'value').required, true);
      scimError(await scim.post('/Users', { userName: 'no-email' }), 400, 'invalidValue');
      scimError(await scim.post('/Users', { userName: 'no-email', emails: [{ primary: true }] }), 400, 'invalidValue');
    });

    it("describes an email's type and primary as they behave: any type kept as sent, one primary address", async () => {
      const emails = named(await userAttributes(), 'emails');
      const type = named(emails.subAttributes!, 'type');
      assert.doesNotMatch(type.description, /always/i);
      assert.deepEqual(type.canonicalValues, ['work', 'home', 'other']);
      const primary = named(emails.subAttributes!, 'primary');
      assert.doesNotMatch(primary.description, /always/i);
      assert.match(primary.description, /one address/);
      // What the description says holds: a home address is kept as one, the work one is primary.
      const id = await scim.createUser({
        userName: 'typed@example.com',
        emails: [
          { value: 'typed@home.example', type: 'home' },
          { value: 'typed@example.com', type: 'work' },
        ],
      });
      assert.deepEqual((await scim.get(`/Users/${id}`)).json().emails, [
        { value: 'typed@home.example', type: 'home' },
        { value: 'typed@example.com', type: 'work', primary: true },
      ]);
    });

    it("gives the password's length as PASSWORD_MIN_LENGTH sets it", async () => {
      const password = named(await userAttributes(), 'password');
      assert.match(password.description, /12 to 64 characters/);
      assert.doesNotMatch(password.description, /\b6 to/);
      assert.match(
        scimError(await scim.post('/Users', { userName: 'short@example.com', password: 'abc12345' }), 400, 'invalidValue').detail,
        /12 to 64/,
      );
    });

    it('says a standard attribute mapped onto a number userfield takes integers', async () => {
      const enterprise = (await scim.get(`/Schemas/${ENTERPRISE}`)).json();
      const attribute = named(enterprise.attributes, 'employeeNumber');
      assert.equal(attribute.type, 'string');
      assert.match(attribute.description, /integer/);
      assert.match(
        scimError(await scim.post('/Users', { userName: 'n@example.com', [ENTERPRISE]: { employeeNumber: '4.5' } }), 400, 'invalidValue').detail,
        /must be an integer/,
      );
    });

    it('answers 501 to a search at the root, as to bulk requests', async () => {
      const search = { schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'], filter: 'userName pr' };
      assert.match(scimError(await scim.request('POST', '/.search', search), 501).detail, /\/Users\/\.search/);
      scimError(await scim.request('POST', '/Bulk', { schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'], Operations: [] }), 501);
    });
  },
  { passwordPolicy: { minLength: 12 } },
);
