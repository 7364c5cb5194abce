import type { Kysely, Transaction } from 'kysely';
import { lockUser } from '../../db/locking.js';
import type { Database } from '../../db/schema.js';
import { errors, NOT_FOUND_MESSAGE, type FieldErrors } from '../../lib/errors.js';
import { isId } from '../../lib/ids.js';
import type { Caller } from '../../auth/caller.js';
import { usersRepository } from '../users/users.repository.js';
import { userfieldsRepository, type UserfieldRow } from '../userfields/userfields.repository.js';
import { userfieldValuesRepository, type UserfieldValueRow } from './userfield-values.repository.js';
import type { UpdateUserfieldValues, UserfieldValues } from './userfield-values.schemas.js';
import { checkValue } from './value-checks.js';

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

export function userfieldValuesService(db: Kysely<Database>) {
  return {
    async get(caller: Caller, userId: string): Promise<UserfieldValues> {
      if (!isId(userId) || !(await usersRepository(db).find(caller.orgId, userId))) throw errors.notFound();
      const rows = await userfieldValuesRepository(db).ofUser(caller.orgId, userId);
      return Object.fromEntries(rows.map((row) => [row.userfield_id, JSON.parse(row.value)]));
    },

    /**
     * Sets (or, with null, clears) the values named, checked against the fields as they are now.
     * All or nothing: any refused entry fails the whole request and nothing is written.
     */
    async update(caller: Caller, userId: string, input: UpdateUserfieldValues): Promise<void> {
      if (!isId(userId)) throw errors.notFound();
      await db.transaction().execute(async (trx) => {
        if (!(await lockUser(trx, caller.orgId, userId))) throw errors.notFound();
        const fieldIds = Object.keys(input);
        const fields = new Map(
          (await userfieldsRepository(trx).findForValues(caller.orgId, fieldIds.filter(isId))).map((field) => [field.id, field]),
        );
        const fieldErrors: FieldErrors = {};
        const saved: UserfieldValueRow[] = [];
        const cleared: string[] = [];
        for (const [fieldId, value] of Object.entries(input)) {
          const field = fields.get(fieldId);
          if (!field) {
            fieldErrors[fieldId] = NOT_FOUND_MESSAGE;
          } else if (value === null && field.type !== 'message') {
            cleared.push(fieldId);
          } else {
            const checked = checkValue(field, value);
            if ('error' in checked) fieldErrors[fieldId] = checked.error;
            else saved.push({ org_id: caller.orgId, user_id: userId, userfield_id: fieldId, value: JSON.stringify(checked.value) });
          }
        }
        if (Object.keys(fieldErrors).length > 0) throw errors.fieldErrors(fieldErrors);
        const values = userfieldValuesRepository(trx);
        await values.save(saved);
        await values.deleteOfUser(caller.orgId, userId, cleared);
      });
    },
  };
}

export type UserfieldValuesService = ReturnType<typeof userfieldValuesService>;
