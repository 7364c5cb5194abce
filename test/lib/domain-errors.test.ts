import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Caller } from '../../src/auth/caller.js';
import { Conflict, IN_USE_MESSAGE, Invalid, Malformed, NotFound, PreconditionFailed, Refused, Unauthenticated } from '../../src/lib/domain-errors.js';
import { v5Refusal } from '../../src/lib/errors.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { userfieldCategoriesService } from '../../src/resources/userfield-categories/userfield-categories.service.js';
import { usersService } from '../../src/resources/users/users.service.js';
import { toScimError } from '../../src/scim/scim-errors.js';
import { createTestDatabase } from '../helpers/database.js';
import { TEST_ACTOR } from '../helpers/actors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

it("services refuse with domain errors, in no API's words", async () => {
  const database = await createTestDatabase('sqlite');
  try {
    const organization = await organizationsRepository(database.db).create('Domain errors');
    const caller: Caller = { orgId: organization.id, tokenId: 'test', scopes: ['write'], actor: TEST_ACTOR };
    const users = usersService(database.db, DEFAULT_PASSWORD_POLICY);
    await users.create(caller, { email: 'taken@example.com', username: 'taken' });
    await assert.rejects(users.create(caller, { email: 'taken@example.com', username: 'taken' }), (error) => {
      assert.ok(error instanceof Conflict);
      assert.deepEqual(error.properties, ['email', 'username']);
      return true;
    });
    await assert.rejects(users.delete(caller, 'no-such-user'), NotFound);
    const categories = userfieldCategoriesService(database.db);
    await categories.create(caller, { name: 'Work', type: 'public' });
    await assert.rejects(
      categories.create(caller, { name: 'Work', type: 'public' }),
      (error) => error instanceof Conflict && error.properties[0] === 'name',
    );
  } finally {
    await database.drop();
  }
});

it('each API renders a domain error in its own shape', () => {
  const conflict = new Conflict(['email']);
  assert.deepEqual(v5Refusal(conflict).statusCode, 400);
  assert.deepEqual(v5Refusal(conflict).body.fieldErrors, { email: IN_USE_MESSAGE });
  assert.equal(toScimError(conflict).statusCode, 409);
  assert.equal((toScimError(conflict).body as { scimType?: string }).scimType, 'uniqueness');
  assert.match((toScimError(conflict).body as { detail: string }).detail, /^emails: is already in use$/);

  // A field error that merely reads like a conflict is no conflict: SCIM does not compare messages.
  const invalid = new Invalid({ email: IN_USE_MESSAGE, locale: 'must be a language tag' });
  assert.equal(v5Refusal(invalid).statusCode, 400);
  assert.equal((toScimError(invalid).body as { scimType?: string }).scimType, 'invalidValue');

  assert.deepEqual(v5Refusal(new NotFound()).body, { errors: ['No resource exists with the given id.'] });
  assert.equal(toScimError(new NotFound()).statusCode, 404);
  assert.equal(v5Refusal(new PreconditionFailed('changed')).statusCode, 412);
  assert.equal(toScimError(new PreconditionFailed('changed')).statusCode, 412);
  assert.deepEqual(v5Refusal(new Refused('still registered')).body, { message: 'still registered', errors: ['still registered'] });
  assert.equal((toScimError(new Refused('still registered')).body as { scimType?: string }).scimType, 'invalidSyntax');

  // What SCIM names in scimType travels as the kind's data, not as a SCIM error thrown by the service.
  const scimType = (error: Parameters<typeof toScimError>[0]) => (toScimError(error).body as { scimType?: string }).scimType;
  assert.equal(scimType(new Malformed('filter', 'bad filter')), 'invalidFilter');
  assert.equal(scimType(new Malformed('path', 'bad path')), 'invalidPath');
  assert.equal(scimType(new Malformed('mutability', 'id is read-only')), 'mutability');
  assert.equal(scimType(new Malformed('body', 'not an object')), 'invalidSyntax');
  assert.deepEqual(v5Refusal(new Malformed('filter', 'bad filter')).body, { message: 'bad filter', errors: ['bad filter'] });
  assert.equal((toScimError(new NotFound('Group 42')).body as { detail: string }).detail, 'Group 42 not found');
  assert.deepEqual(v5Refusal(new NotFound('Group 42')).body, { errors: ['No resource exists with the given id.'] });
  const taken = new Conflict(['displayName'], 'another group already has this name as its tag');
  assert.equal((toScimError(taken).body as { detail: string }).detail, 'displayName: another group already has this name as its tag');

  // A refused token: v5's 401 with its challenge, and SCIM's with the same status and header.
  const unauthenticated = new Unauthenticated('The access token has expired');
  assert.equal(v5Refusal(unauthenticated).statusCode, 401);
  assert.equal(v5Refusal(unauthenticated).body.error, 'invalid_token');
  assert.equal(toScimError(unauthenticated).statusCode, 401);
  assert.match(toScimError(unauthenticated).headers['WWW-Authenticate']!, /error="invalid_token"/);
});
