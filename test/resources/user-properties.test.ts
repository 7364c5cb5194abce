import assert from 'node:assert/strict';
import { it } from 'node:test';
import { USER_JSON as AT_LATEST_MIGRATION } from '../../src/db/migrations/0019-account-types.js';
import { USER_JSON } from '../../src/resources/users/user-properties.js';
import { User } from '../../src/resources/users/users.schemas.js';

it("SQLite's user JSON column is made from the user's properties as they are now", () => {
  // A property added to the list needs a migration that writes SQLite's column again from the new list.
  const asJson = USER_JSON.map(({ write: _write, ...property }: (typeof USER_JSON)[number] & { write?: unknown }) => property);
  assert.deepEqual(AT_LATEST_MIGRATION, asJson);
});

it('lists every property of the user schema, each once', () => {
  const listed = USER_JSON.map(({ property }) => property);
  assert.deepEqual([...listed].sort(), Object.keys(User.properties).sort());
  assert.equal(new Set(USER_JSON.map(({ column }) => column)).size, USER_JSON.length);
});
