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
    await values.deleteHolding(
      field.org_id,
      field.id,
      removed.map((name) => JSON.stringify(name)),
    );
    return;
  }
  // Users with the same remaining choices get them in one statement.
  const usersByValue = new Map<string, string[]>();
  for (const row of await values.ofUserfield(field.org_id, field.id)) {
    const chosen = JSON.parse(row.value) as string[];
    const kept = chosen.filter((name) => !removed.includes(name));
    if (kept.length === chosen.length) continue;
    const value = JSON.stringify(kept);
    usersByValue.set(value, [...(usersByValue.get(value) ?? []), row.user_id]);
  }
  for (const [value, userIds] of usersByValue) await values.setForUsers(field.org_id, field.id, userIds, value);
}
