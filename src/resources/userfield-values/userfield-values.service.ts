import type { Kysely } from 'kysely';
import { changeTime, inTransaction } from '../../db/unit-of-work.js';
import type { Database } from '../../db/schema.js';
import { type FieldErrors, Invalid, NOT_FOUND_MESSAGE, NotFound, RefusedItem } from '../../lib/domain-errors.js';
import { isId } from '../../lib/ids.js';
import { findById } from '../../lib/find-by-id.js';
import type { Caller } from '../../auth/caller.js';
import { usersRepository } from '../users/users.repository.js';
import { userfieldsRepository } from '../userfields/userfields.repository.js';
import { userfieldValuesRepository, type UserfieldValueRow } from './userfield-values.repository.js';
import type { UpdateUserfieldValues, UserfieldValues } from './userfield-values.schemas.js';
import { checkValue } from './value-checks.js';
import { inFieldOrder, recordValuesChange, updatedDatesBefore, valuesFrom } from './value-changes.js';

/** A user's values as GET /users/{id}/userfieldvalues answers them. */
async function valuesOf(db: Kysely<Database>, orgId: string, userId: string): Promise<UserfieldValues> {
  return valuesFrom(await userfieldValuesRepository(db).ofUser(orgId, userId));
}

export function userfieldValuesService(db: Kysely<Database>) {
  return {
    async get(caller: Caller, userId: string): Promise<UserfieldValues> {
      await findById(userId, (id) => usersRepository(db).find(caller.orgId, id));
      return valuesOf(db, caller.orgId, userId);
    },

    /**
     * Sets (or, with null, clears) the values named, checked against the fields as they are now.
     * All or nothing: any refused entry fails the whole request and nothing is written. Values sent
     * as they are change nothing: when none differs, nothing is written, updatedDate included.
     */
    async update(caller: Caller, userId: string, input: UpdateUserfieldValues): Promise<void> {
      if (!isId(userId)) throw new NotFound();
      const { orgId } = caller;
      await inTransaction(db, caller.actor, async (trx) => {
        // Locked so that the user cannot be deleted, nor its values change, before the write.
        const locked = await usersRepository(trx).lockUpdatedDates(orgId, [userId]);
        if (!locked.has(userId)) throw new NotFound();
        const fieldIds = Object.keys(input);
        const fields = new Map((await userfieldsRepository(trx).findForValues(orgId, fieldIds.filter(isId))).map((field) => [field.id, field]));
        const fieldErrors: FieldErrors = {};
        const requested = new Map<string, unknown>(); // undefined clears
        for (const [fieldId, value] of Object.entries(input)) {
          const field = fields.get(fieldId);
          if (!field) {
            fieldErrors[fieldId] = NOT_FOUND_MESSAGE;
          } else if (value === null && field.type !== 'message') {
            requested.set(fieldId, undefined);
          } else {
            const checked = checkValue(field, value);
            if ('error' in checked) fieldErrors[fieldId] = checked.error;
            else requested.set(fieldId, checked.value);
          }
        }
        if (Object.keys(fieldErrors).length > 0) throw new Invalid(fieldErrors);

        const values = userfieldValuesRepository(trx);
        const before = valuesFrom(await values.ofUser(orgId, userId));
        const saved: UserfieldValueRow[] = [];
        const cleared: string[] = [];
        for (const [fieldId, value] of requested) {
          const column = value === undefined ? undefined : JSON.stringify(value);
          if (column === JSON.stringify(before[fieldId])) continue;
          if (column === undefined) cleared.push(fieldId);
          else saved.push({ org_id: orgId, user_id: userId, userfield_id: fieldId, value: column });
        }
        if (saved.length + cleared.length === 0) return;
        await values.save(saved);
        await values.deleteOfUser(orgId, userId, cleared);
        // A user's values are part of the user: a sync job reading users by updatedDate learns of the change.
        const at = changeTime(trx);
        await usersRepository(trx).update(orgId, userId, { updated_date: at });
        const after: UserfieldValues = { ...before };
        for (const fieldId of cleared) delete after[fieldId];
        for (const row of saved) after[row.userfield_id] = requested.get(row.userfield_id);
        const updatedDate = updatedDatesBefore(trx, locked).get(userId)!;
        recordValuesChange(trx, orgId, userId, { values: before, updatedDate }, { values: inFieldOrder(after), updatedDate: at });
      });
    },

    /**
     * Sets the values of several users (the import's, whose values were checked) as `update` would
     * for each, in a few statements: the users are locked and their values read together, the values
     * checked against the fields as they are now, and only those that differ written. Each user whose
     * values change gets its userfieldvalues.updated event and its updatedDate moved; the others write
     * nothing. A user gone or a field deleted meanwhile refuses them all, as a RefusedItem naming the user.
     *
     * `created`: the users were all created by the unit of work this one runs in (an import's new
     * users, by `usersService.createMany`): no other transaction sees them, and they hold no values,
     * so they are neither locked nor read (two statements fewer a batch).
     */
    async updateMany(
      caller: Caller,
      users: readonly { userId: string; values: Record<string, unknown> }[],
      { created = false }: { created?: boolean } = {},
    ): Promise<void> {
      const { orgId } = caller;
      const withValues = users.flatMap((user, index) => (Object.keys(user.values).length > 0 ? [{ index, ...user }] : []));
      if (withValues.length === 0) return;
      await inTransaction(db, caller.actor, async (trx) => {
        const userIds = withValues.map((user) => user.userId);
        const updatedDates = created
          ? new Map<string, string>(userIds.map((userId) => [userId, changeTime(trx)]))
          : await usersRepository(trx).lockUpdatedDates(orgId, userIds);
        const fieldIds = [...new Set(withValues.flatMap((user) => Object.keys(user.values)))];
        const fields = new Map((await userfieldsRepository(trx).findForValues(orgId, fieldIds)).map((field) => [field.id, field]));
        const values = userfieldValuesRepository(trx);
        const stored = new Map<string, UserfieldValues>(userIds.map((userId) => [userId, {}]));
        const rows = created ? [] : await values.ofUsers(orgId, userIds);
        for (const row of rows) stored.get(row.user_id)![row.userfield_id] = JSON.parse(row.value);
        const saved: UserfieldValueRow[] = [];
        const changed: { userId: string; before: UserfieldValues; after: UserfieldValues }[] = [];
        for (const { index, userId, values: requested } of withValues) {
          if (!updatedDates.has(userId)) throw new RefusedItem(index, new NotFound());
          const fieldErrors: FieldErrors = {};
          const before = stored.get(userId)!;
          const after: UserfieldValues = { ...before };
          for (const [fieldId, value] of Object.entries(requested)) {
            const field = fields.get(fieldId);
            const checked = field ? checkValue(field, value) : { error: NOT_FOUND_MESSAGE };
            if ('error' in checked) fieldErrors[fieldId] = checked.error;
            else after[fieldId] = checked.value;
          }
          if (Object.keys(fieldErrors).length > 0) throw new RefusedItem(index, new Invalid(fieldErrors));
          const differing = Object.keys(after).filter((fieldId) => JSON.stringify(after[fieldId]) !== JSON.stringify(before[fieldId]));
          if (differing.length === 0) continue;
          for (const fieldId of differing)
            saved.push({ org_id: orgId, user_id: userId, userfield_id: fieldId, value: JSON.stringify(after[fieldId]) });
          changed.push({ userId, before, after: inFieldOrder(after) });
        }
        if (changed.length === 0) return;
        await values.save(saved);
        const at = changeTime(trx);
        // A user whose updatedDate is already `at` (created by the import in this second) is not written again.
        await usersRepository(trx).touch(
          orgId,
          changed.flatMap((user) => (updatedDates.get(user.userId) === at ? [] : [user.userId])),
          at,
        );
        const datesBefore = updatedDatesBefore(trx, updatedDates);
        for (const { userId, before, after } of changed) {
          recordValuesChange(trx, orgId, userId, { values: before, updatedDate: datesBefore.get(userId)! }, { values: after, updatedDate: at });
        }
      });
    },
  };
}

export type UserfieldValuesService = ReturnType<typeof userfieldValuesService>;
