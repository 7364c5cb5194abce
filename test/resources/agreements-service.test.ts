import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';
import { agreementsService } from '../../src/resources/agreements/agreements.service.js';
import { usersService } from '../../src/resources/users/users.service.js';
import { forEachEngineService } from '../helpers/services.js';

forEachEngineService('agreements service', (bed) => {
  const agreements = () => agreementsService(bed.db);

  it('counts, among active users, who agreed to the text as it reads now, to an earlier one, or never', async () => {
    const caller = await bed.newOrganization('Counted agreements');
    const users = usersService(bed.db, DEFAULT_PASSWORD_POLICY);
    const [early, current, inactive] = [
      await users.create(caller, { email: 'early@example.com' }),
      await users.create(caller, { email: 'current@example.com' }),
      await users.create(caller, { email: 'gone@example.com' }),
    ];
    await users.create(caller, { email: 'never@example.com' });
    await agreements().put(caller, 'custom', { title: 'House rules', text: 'Version 1' });
    for (const userId of [early, current, inactive]) await agreements().setForUser(caller, userId, 'custom', true);
    await users.update(caller, inactive, { active: false });
    await agreements().put(caller, 'custom', { text: 'Version 2' });
    await agreements().setForUser(caller, current, 'custom', true);

    const counts = await agreements().agreementCounts(caller);
    assert.deepEqual(counts.custom, { active: 3, agreedToCurrent: 1, agreedToEarlier: 1, neverAgreed: 1 });
    assert.deepEqual(counts.standard, { active: 3, agreedToCurrent: 0, agreedToEarlier: 0, neverAgreed: 3 });
  });

  it('changes nothing, not even agreedDate, when a user agrees again to the text already agreed to', async () => {
    const userId = await usersService(bed.db, DEFAULT_PASSWORD_POLICY).create(bed.caller, { email: 'again@example.com' });
    await agreements().setForUser(bed.caller, userId, 'standard', true);
    const agreed = await agreements().getForUser(bed.caller, userId, 'standard');
    const events = await bed.db.selectFrom('events').select('id').where('org_id', '=', bed.caller.orgId).execute();
    await agreements().setForUser(bed.caller, userId, 'standard', true);
    assert.deepEqual(await agreements().getForUser(bed.caller, userId, 'standard'), agreed);
    assert.equal((await bed.db.selectFrom('events').select('id').where('org_id', '=', bed.caller.orgId).execute()).length, events.length);
  });
});
