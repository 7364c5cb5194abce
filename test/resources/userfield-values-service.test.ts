import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Invalid } from '../../src/lib/domain-errors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';
import { userfieldValuesService } from '../../src/resources/userfield-values/userfield-values.service.js';
import type { CreateUserfield } from '../../src/resources/userfields/userfields.schemas.js';
import { userfieldsService } from '../../src/resources/userfields/userfields.service.js';
import { usersService } from '../../src/resources/users/users.service.js';
import { unique } from '../helpers/collections.js';
import { forEachEngineService } from '../helpers/services.js';

const OPTIONS = [{ name: 'Red' }, { name: 'Green' }, { name: 'Blue' }];

/** Per type: a field definition, values it accepts (with what is stored, when that differs) and values it refuses. */
const TYPES: { type: string; body?: Partial<CreateUserfield>; valid: [unknown, unknown?][]; invalid: unknown[] }[] = [
  { type: 'text', valid: [['Hello'], [''], ['日本語']], invalid: [5, true, ['a'], { text: 'a' }] },
  { type: 'email', valid: [['ada@example.com']], invalid: ['ada', 'ada@-example.com', 'a b@example.com', 7] },
  { type: 'number', valid: [[42], [0], [-7]], invalid: [4.5, '42', true, 1e300] },
  { type: 'decimal', valid: [[4.5], [3], [-0.25]], invalid: ['4.5', false, [1]] },
  {
    type: 'date',
    valid: [['02/29/2024'], ['12/31/1999']],
    invalid: ['02/30/2024', '02/29/2023', '13/01/2020', '2024-01-01', '1/2/2020', 20240101],
  },
  { type: 'dropdown', body: { options: OPTIONS }, valid: [['Green']], invalid: ['green', 'Purple', ['Green'], 1] },
  { type: 'radiobuttons', body: { options: OPTIONS }, valid: [['Red']], invalid: ['RED', '', 3] },
  {
    type: 'checkboxes',
    body: { options: OPTIONS },
    valid: [
      [
        ['Blue', 'Red'],
        ['Red', 'Blue'],
      ],
      [['Green', 'Green'], ['Green']],
      [[]],
    ],
    invalid: ['Red', ['Red', 'Pink'], [1], { Red: true }],
  },
  { type: 'checkbox', valid: [[true], [false]], invalid: ['true', 1, 'yes'] },
  { type: 'truefalse', valid: [[false], [true]], invalid: ['false', 0] },
  { type: 'yesno', valid: [['yes'], ['no']], invalid: ['Yes', true, 'maybe'] },
];

/** Per type: constraints, values at the limits (accepted) and one past them (refused). */
const CONSTRAINED: { type: string; constraints: CreateUserfield['constraints']; pass: unknown[]; fail: unknown[] }[] = [
  { type: 'text', constraints: { minimumLength: 2, maximumLength: 4 }, pass: ['ab', 'abcd', 'ñañá'], fail: ['a', 'abcde'] },
  { type: 'email', constraints: { minimumLength: 9, maximumLength: 10 }, pass: ['a@b.co.uk', 'ab@b.co.uk'], fail: ['a@b.co.u', 'abc@b.co.uk'] },
  { type: 'number', constraints: { minimumValue: 5, maximumValue: 10 }, pass: [5, 10], fail: [4, 11] },
  { type: 'decimal', constraints: { minimumValue: 5, maximumValue: 10 }, pass: [5, 10], fail: [4.99, 10.01] },
  {
    type: 'date',
    constraints: { minimumDate: '01/31/2020', maximumDate: '03/01/2020' },
    pass: ['01/31/2020', '03/01/2020'],
    fail: ['01/30/2020', '03/02/2020'],
  },
];

/** The refusal of the values of `fieldIds`, and of nothing else. */
const refusing =
  (...fieldIds: string[]) =>
  (error: unknown) =>
    error instanceof Invalid && Object.keys(error.fieldErrors).sort().join() === fieldIds.sort().join();

forEachEngineService('userfield values service', (bed) => {
  const values = () => userfieldValuesService(bed.db);
  const field = (type: string, extra: Partial<CreateUserfield> = {}) =>
    userfieldsService(bed.db).create(bed.caller, { type, categoryName: 'Values', name: unique(type), ...extra });
  const user = () => usersService(bed.db, DEFAULT_PASSWORD_POLICY).create(bed.caller, { email: `${unique('values')}@example.com` });

  for (const { type, body, valid, invalid } of TYPES) {
    it(`stores valid ${type} values in their representation and refuses invalid ones, writing nothing`, async () => {
      const fieldId = await field(type, body);
      const userId = await user();
      for (const [value, stored = value] of valid) {
        await values().update(bed.caller, userId, { [fieldId]: value });
        assert.deepEqual(await values().get(bed.caller, userId), { [fieldId]: stored }, JSON.stringify(value));
      }
      const kept = await values().get(bed.caller, userId);
      for (const value of invalid) {
        await assert.rejects(values().update(bed.caller, userId, { [fieldId]: value }), refusing(fieldId), JSON.stringify(value));
      }
      assert.deepEqual(await values().get(bed.caller, userId), kept);
    });
  }

  for (const { type, constraints, pass, fail } of CONSTRAINED) {
    it(`holds ${type} values to the field's constraints: equal to a limit passes, one past fails`, async () => {
      const fieldId = await field(type, { constraints });
      const userId = await user();
      for (const value of pass) await values().update(bed.caller, userId, { [fieldId]: value });
      for (const value of fail) {
        await assert.rejects(
          values().update(bed.caller, userId, { [fieldId]: value }),
          (error) => error instanceof Invalid && /^must be (at least|at most|on or after|on or before) /.test(error.fieldErrors[fieldId]!),
          String(value),
        );
      }
      assert.deepEqual(await values().get(bed.caller, userId), { [fieldId]: pass.at(-1) });
    });
  }

  it('checks values against the field as it is now', async () => {
    const fieldId = await field('text');
    const userId = await user();
    await values().update(bed.caller, userId, { [fieldId]: 'long enough' });
    await userfieldsService(bed.db).update(bed.caller, fieldId, { constraints: { maximumLength: 3 } });
    await assert.rejects(
      values().update(bed.caller, userId, { [fieldId]: 'long enough' }),
      (error) => error instanceof Invalid && error.fieldErrors[fieldId] === 'must be at most 3 characters long',
    );
  });

  it('says which integers a number field holds when a value is too large to be exact', async () => {
    const fieldId = await field('number');
    const userId = await user();
    for (const value of [1e300, 2 ** 53, -(2 ** 53)]) {
      await assert.rejects(
        values().update(bed.caller, userId, { [fieldId]: value }),
        (error) => error instanceof Invalid && error.fieldErrors[fieldId] === 'must be an integer from -9007199254740991 to 9007199254740991',
      );
    }
    assert.deepEqual(await values().get(bed.caller, userId), {});
  });

  it('writes 50 values all or nothing: one bad entry writes none and is the only one named', async () => {
    const categoryName = unique('Bulk');
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push(await field('number', { name: `N${i}`, categoryName }));
    const userId = await user();
    const body: Record<string, unknown> = Object.fromEntries(ids.map((id, i) => [id, i]));
    body[ids[37]!] = 'thirty-seven';
    await assert.rejects(values().update(bed.caller, userId, body), refusing(ids[37]!));
    assert.deepEqual(await values().get(bed.caller, userId), {});
    body[ids[37]!] = 37;
    await values().update(bed.caller, userId, body);
    assert.deepEqual(await values().get(bed.caller, userId), Object.fromEntries(ids.map((id, i) => [id, i])));
  });
});
