import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Invalid, Refused } from '../../src/lib/domain-errors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';
import { offeringsService } from '../../src/resources/offerings/offerings.service.js';
import { ALREADY_EJECTED, STATUS_NOT_SETTABLE, type UpdateRegistration } from '../../src/resources/registrations/registrations.schemas.js';
import { registrationsService } from '../../src/resources/registrations/registrations.service.js';
import { usersService } from '../../src/resources/users/users.service.js';
import { unique } from '../helpers/collections.js';
import { forEachEngineService } from '../helpers/services.js';

const EJECT_AFTER_GRADE = 'eject status not available after the registration has been graded';
type Status = 'active' | 'ejected' | 'passed' | 'failed';

const invalid = (property: string, message?: string) => (error: unknown) =>
  error instanceof Invalid &&
  Object.keys(error.fieldErrors).join() === property &&
  (message === undefined || error.fieldErrors[property] === message);

forEachEngineService('registrations service', (bed) => {
  const registrations = () => registrationsService(bed.db);
  const user = () => usersService(bed.db, DEFAULT_PASSWORD_POLICY).create(bed.caller, { email: `${unique('u')}@example.com` });
  const offering = (passingGrade?: number) => offeringsService(bed.db).create(bed.caller, { title: unique('Offering'), passingGrade });

  /** A registration of a new user in a new offering (passing grade 70), brought to `status`. */
  async function registrationIn(status: Status, offeringId?: string) {
    const id = await registrations().create(bed.caller, { userId: await user(), offeringId: offeringId ?? (await offering()) });
    const change = { active: undefined, ejected: { status: 'ejected' as const }, passed: { grade: 80 }, failed: { grade: 20 } }[status];
    if (change) await registrations().update(bed.caller, id, change);
    const registration = await registrations().get(bed.caller, id);
    assert.equal(registration.status, status);
    return { id, registration };
  }

  it('ejects only an active registration: once ejected, or once graded, an eject is invalid and changes nothing', async () => {
    const active = await registrationIn('active');
    await registrations().update(bed.caller, active.id, { status: 'ejected' });
    const ejected = await registrations().get(bed.caller, active.id);
    assert.equal(ejected.status, 'ejected');
    assert.ok(ejected.endDate);
    assert.equal(ejected.grade, undefined);

    const refusals: [Status, string][] = [
      ['ejected', ALREADY_EJECTED],
      ['passed', EJECT_AFTER_GRADE],
      ['failed', EJECT_AFTER_GRADE],
    ];
    for (const [status, message] of refusals) {
      const { id, registration } = await registrationIn(status);
      await assert.rejects(registrations().update(bed.caller, id, { status: 'ejected' }), invalid('status', message), status);
      assert.deepEqual(await registrations().get(bed.caller, id), registration, `${status}: nothing changed`);
    }
  });

  it("grades from every status by the offering's own passing grade, keeping the first end date", async () => {
    const strict = await offering(90);
    const cases: [Status, number, string | undefined, Status][] = [
      ['active', 70, undefined, 'passed'],
      ['active', 69.5, undefined, 'failed'],
      ['ejected', 75, undefined, 'passed'],
      ['ejected', 5, undefined, 'failed'],
      ['passed', 40, undefined, 'failed'],
      ['failed', 95, undefined, 'passed'],
      ['active', 85, strict, 'failed'],
    ];
    for (const [from, grade, offeringId, status] of cases) {
      const { id, registration } = await registrationIn(from, offeringId);
      await registrations().update(bed.caller, id, { grade, graderComment: 'Noted' });
      const after = await registrations().get(bed.caller, id);
      assert.deepEqual([after.status, after.grade, after.graderComment], [status, grade, 'Noted'], `${from} + ${grade}`);
      if (registration.endDate) assert.equal(after.endDate, registration.endDate, `${from}: the end date stays`);
      else assert.ok(after.endDate, `${from}: ends`);
    }
  });

  it('keeps a grader comment until one is sent; null clears it', async () => {
    const { id } = await registrationIn('active');
    await registrations().update(bed.caller, id, { grade: 80, graderComment: 'Kept' });
    await registrations().update(bed.caller, id, { grade: 81 });
    assert.equal((await registrations().get(bed.caller, id)).graderComment, 'Kept');
    await registrations().update(bed.caller, id, { grade: 82, graderComment: null });
    assert.equal((await registrations().get(bed.caller, id)).graderComment, undefined);
  });

  it('refuses a status with a grade, a status other than ejected, a comment without a grade, and nothing to do', async () => {
    const { id, registration } = await registrationIn('active');
    const refusals: [UpdateRegistration, (error: unknown) => boolean][] = [
      [{ status: 'ejected', grade: 80 }, (error) => error instanceof Refused],
      [{ status: 'passed' }, invalid('status', STATUS_NOT_SETTABLE)],
      [{ status: 'failed', grade: 20 }, invalid('status', STATUS_NOT_SETTABLE)],
      [{ status: 'ejected', graderComment: 'Bye' }, invalid('graderComment')],
      [{ graderComment: 'Alone' }, invalid('graderComment')],
      [{}, (error) => error instanceof Refused && /Nothing to change/.test(error.message)],
    ];
    for (const [input, refusal] of refusals) await assert.rejects(registrations().update(bed.caller, id, input), refusal, JSON.stringify(input));
    assert.deepEqual(await registrations().get(bed.caller, id), registration);
  });
});
