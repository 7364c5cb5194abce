import type { UnitOfWork } from '../db/unit-of-work.js';
import { provisionStandardAgreement } from '../resources/agreements/standard-agreement.js';
import { provisionPredefinedUserfields } from '../resources/userfields/predefined.js';

/** Creates what a resource gives every new organization (its predefined rows), inside the creating transaction. */
export type Provisioner = (trx: UnitOfWork, orgId: string) => Promise<void>;

/**
 * Everything a new organization starts with. Existing organizations get the same rows through the
 * migration that introduces them.
 */
export const provisioners: Provisioner[] = [provisionStandardAgreement, provisionPredefinedUserfields];
