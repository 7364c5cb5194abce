import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { UserfieldRow } from '../userfields/userfields.repository.js';
import { userfieldValuesRepository } from './userfield-values.repository.js';

/**
 * After a field's options were replaced: values that chose a removed option lose it. A single
 * choice is cleared; a checkboxes value keeps its other options.
 */
export async function forgetRemovedOptions(trx: Transaction<Database>, field: UserfieldRow, removed: string[]): Promise<void> {
  if (removed.length === 0) return;
  const values = userfieldValuesRepository(trx);
  if (field.type !== 'checkboxes') {
    const holding = removed.map((name) => JSON.stringify(name));
    await values.touchHolders(field.org_id, field.id, holding);
    await values.deleteHolding(field.org_id, field.id, holding);
    return;
  }
  // Users with the same remaining choices get them in one statement.
  const usersByValue = new Map<string, string[]>();
  const changing = new Set<string>();
  for (const row of await values.ofUserfield(field.org_id, field.id)) {
    const chosen = JSON.parse(row.value) as string[];
    const kept = chosen.filter((name) => !removed.includes(name));
    if (kept.length === chosen.length) continue;
    changing.add(row.value);
    const value = JSON.stringify(kept);
    usersByValue.set(value, [...(usersByValue.get(value) ?? []), row.user_id]);
  }
  if (changing.size > 0) await values.touchHolders(field.org_id, field.id, [...changing]);
  for (const [value, userIds] of usersByValue) await values.setForUsers(field.org_id, field.id, userIds, value);
}
