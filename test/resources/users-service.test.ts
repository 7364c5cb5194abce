import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Invalid, RefusedItem } from '../../src/lib/domain-errors.js';
import { DEFAULT_PASSWORD_POLICY, passwordMessage } from '../../src/lib/password-policy.js';
import { usersService } from '../../src/resources/users/users.service.js';
import { forEachEngineService } from '../helpers/services.js';

forEachEngineService('users service', (bed) => {
  /** The password policy is the service's rule, not only the routes' validation: called directly, the service keeps it. */
  it('refuses a password its policy refuses, whoever calls it', async () => {
    const { caller } = bed;
    const users = usersService(bed.db, DEFAULT_PASSWORD_POLICY);
    const refusal = { password: passwordMessage(DEFAULT_PASSWORD_POLICY) };

    await assert.rejects(users.create(caller, { email: 'short@example.com', password: 'a' }), (error) => {
      assert.ok(error instanceof Invalid);
      assert.deepEqual(error.fieldErrors, refusal);
      return true;
    });
    assert.equal(await bed.db.selectFrom('users').select('id').where('org_id', '=', caller.orgId).executeTakeFirst(), undefined);

    const id = await users.create(caller, { email: 'kept@example.com', password: 'secret1' });
    await assert.rejects(
      users.update(caller, id, { password: 'a' }),
      (error) => error instanceof Invalid && error.fieldErrors.password === refusal.password,
    );
    await assert.rejects(
      users.createMany(caller, [
        { email: 'one@example.com', password: 'secret1' },
        { email: 'two@example.com', password: 'a' },
      ]),
      (error) => error instanceof RefusedItem && error.index === 1 && error.refusal instanceof Invalid,
    );
    await assert.rejects(
      users.updateMany(caller, [{ id, input: { password: 'nodigits' } }]),
      (error) => error instanceof RefusedItem && error.index === 0 && error.refusal instanceof Invalid,
    );

    // Another server's policy is its own: ten characters at least refuses what six accepts.
    const strict = usersService(bed.db, { minLength: 10 });
    await assert.rejects(strict.create(caller, { email: 'nine@example.com', password: 'abcdefgh1' }), Invalid);
    assert.ok(await users.create(caller, { email: 'nine@example.com', password: 'abcdefgh1' }));
  });
});
