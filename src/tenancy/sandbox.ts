import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { inTransaction } from '../db/unit-of-work.js';
import { OPERATOR_ACTOR } from '../lib/actors.js';
import type { PasswordPolicy } from '../lib/password-policy.js';
import { NotFound, Refused } from '../lib/domain-errors.js';
import { organizationsRepository } from './organizations.repository.js';
import { MAX_SEEDED_USERFIELD_VALUES, seed, type SeedOptions, type SeedResult } from './seed.js';

/** What a sandbox holds once filled: a few dozen people with a value in every demo userfield, each in three offerings. */
export const SANDBOX_SAMPLE = { users: 40, userfieldValues: MAX_SEEDED_USERFIELD_VALUES, registrations: 3 } as const satisfies Omit<
  SeedOptions,
  'passwordPolicy'
>;

/** Fills a sandbox with the sample, through the services (with their events), as `seed` does. */
export function fillSandbox(db: Kysely<Database>, orgId: string, passwordPolicy: PasswordPolicy): Promise<SeedResult> {
  return seed(db, orgId, { ...SANDBOX_SAMPLE, passwordPolicy });
}

/**
 * Puts a sandbox back as it was filled: its data goes (every person but its organization administrators,
 * its registrations, offerings and their categories, its userfields but the predefined ones, and their
 * categories), in one transaction, then the sample is made again. What configures it stays: its
 * administrators, tokens, OAuth clients, webhooks, SCIM settings and agreement texts, so that what is
 * connected to a sandbox keeps working across resets. The deletions are the operator's, as deleting an
 * organization is: they write no events (the sample made again does, as the API's creations do).
 * Only a sandbox can be reset.
 */
export async function resetSandbox(db: Kysely<Database>, orgId: string, passwordPolicy: PasswordPolicy): Promise<SeedResult> {
  const organization = await organizationsRepository(db).find(orgId);
  if (!organization) throw new NotFound();
  if (!organization.sandbox) throw new Refused(`${organization.name} is not a sandbox: only a sandbox can be reset.`);
  await inTransaction(db, OPERATOR_ACTOR, async (trx) => {
    for (const table of ['registrations', 'offering_category_links', 'offerings', 'offering_categories'] as const) {
      await trx.deleteFrom(table).where('org_id', '=', orgId).execute();
    }
    // Their values, registrations, sessions and links go with them (foreign keys cascade).
    await trx
      .deleteFrom('users')
      .where('org_id', '=', orgId)
      .where((eb) => eb.or([eb('account_type', 'is', null), eb('account_type', '!=', 'organizationAdministrator')]))
      .execute();
    await trx.deleteFrom('userfields').where('org_id', '=', orgId).where('read_only', '=', false).execute();
    // A predefined field placed in a category stays, in none, as DELETE /userfields/{id} leaves it.
    await trx.updateTable('userfields').set({ category_id: null, order_index: null }).where('org_id', '=', orgId).execute();
    await trx.deleteFrom('userfield_categories').where('org_id', '=', orgId).execute();
  });
  return fillSandbox(db, orgId, passwordPolicy);
}
