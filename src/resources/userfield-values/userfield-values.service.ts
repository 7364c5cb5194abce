import type { Kysely } from 'kysely';
import { lockUser } from '../../db/locking.js';
import { inTransaction } from '../../db/unit-of-work.js';
import type { Database } from '../../db/schema.js';
import { errors, NOT_FOUND_MESSAGE, type FieldErrors } from '../../lib/errors.js';
import { isId } from '../../lib/ids.js';
import { findById } from '../../lib/not-found.js';
import { now } from '../../lib/time.js';
import type { Caller } from '../../auth/caller.js';
import { recordEvent } from '../../events/outbox.js';
import { usersRepository } from '../users/users.repository.js';
import { userfieldsRepository } from '../userfields/userfields.repository.js';
import { userfieldValuesRepository, type UserfieldValueRow } from './userfield-values.repository.js';
import type { UpdateUserfieldValues, UserfieldValues } from './userfield-values.schemas.js';
import { checkValue } from './value-checks.js';

/** A user's values as GET /users/{id}/userfieldvalues answers them. */
async function valuesOf(db: Kysely<Database>, orgId: string, userId: string): Promise<UserfieldValues> {
  const rows = await userfieldValuesRepository(db).ofUser(orgId, userId);
  return Object.fromEntries(rows.map((row) => [row.userfield_id, JSON.parse(row.value)]));
}

export function userfieldValuesService(db: Kysely<Database>) {
  return {
    async get(caller: Caller, userId: string): Promise<UserfieldValues> {
      await findById(userId, (id) => usersRepository(db).find(caller.orgId, id));
      return valuesOf(db, caller.orgId, userId);
    },

    /**
     * Sets (or, with null, clears) the values named, checked against the fields as they are now.
     * All or nothing: any refused entry fails the whole request and nothing is written.
     */
    async update(caller: Caller, userId: string, input: UpdateUserfieldValues): Promise<void> {
      if (!isId(userId)) throw errors.notFound();
      await inTransaction(db, async (trx) => {
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
        // A user's values are part of the user: a sync job reading users by updatedDate learns of the change.
        if (saved.length + cleared.length === 0) return;
        await usersRepository(trx).update(caller.orgId, userId, { updated_date: now() });
        recordEvent(trx, caller.orgId, 'userfieldvalues.updated', { userId, values: await valuesOf(trx, caller.orgId, userId) });
      });
    },
  };
}

export type UserfieldValuesService = ReturnType<typeof userfieldValuesService>;
