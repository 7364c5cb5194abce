import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { provisionStandardAgreement } from '../agreements/standard-agreement.js';
import { provisionPredefinedUserfields } from '../userfields/predefined.js';

/** Creates what a resource gives every new organization (its predefined rows), inside the creating transaction. */
export type Provisioner = (trx: Kysely<Database>, orgId: string) => Promise<void>;

/**
 * Everything a new organization starts with. Existing organizations get the same rows through the
 * migration that introduces them.
 */
export const provisioners: Provisioner[] = [provisionStandardAgreement, provisionPredefinedUserfields];
