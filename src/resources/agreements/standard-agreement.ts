import type { AgreementsTable } from '../../db/schema.js';
import { changeTime, type UnitOfWork } from '../../db/unit-of-work.js';

/** The server's default end-user terms, which every organization starts with and may revise. */
export const STANDARD_AGREEMENT = {
  title: 'Terms of use',
  text: [
    'By using this training platform you agree to these terms.',
    'Your account is for you alone: keep your password to yourself and tell your organization if you think someone else has used it.',
    'Course material is provided for your own learning. Do not copy, share or publish it without permission.',
    'Your organization administers your account and the data in it, including your registrations, grades and the details you enter, ' +
      'and may use that data to run its training programme.',
    'Your organization may end your access to a course or to the platform at any time.',
    'These terms may be revised; the version you agreed to stays on record.',
  ].join('\n\n'),
};

/** Provisioner: a new organization starts with the standard agreement. */
export async function provisionStandardAgreement(trx: UnitOfWork, orgId: string): Promise<void> {
  const row: AgreementsTable = {
    org_id: orgId,
    type: 'standard',
    ...STANDARD_AGREEMENT,
    required: true,
    created_date: changeTime(trx),
    updated_date: null,
  };
  await trx.insertInto('agreements').values(row).execute();
}
