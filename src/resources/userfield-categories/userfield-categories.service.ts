import type { Kysely } from 'kysely';
import { changeTime } from '../../db/unit-of-work.js';
import { orderedWrite } from '../../db/dense-order.js';
import type { Database } from '../../db/schema.js';
import { dateRangeOf } from '../../lib/date-filter.js';
import { Conflict, Invalid, Refused } from '../../lib/domain-errors.js';
import { findById } from '../../lib/find-by-id.js';
import type { Paging } from '../../lib/paging.js';
import type { Caller } from '../../auth/caller.js';
import { recordEvent, recordUpdate } from '../../events/outbox.js';
import { fieldsOfRenamedCategory } from '../userfields/userfields.service.js';
import { addCategory, categoriesOfType, recordShiftedCategories, toResponse } from './category-lists.js';
import { userfieldCategoriesRepository } from './userfield-categories.repository.js';
import type { CreateUserfieldCategory, UpdateUserfieldCategory, UserfieldCategory, UserfieldCategoryQuery } from './userfield-categories.schemas.js';

const NOT_EMPTY = 'The category still contains userfields; move or delete them first.';

/**
 * Every write takes the organization's ordering lock first: it keeps `orderIndex` dense, makes the
 * name check race-free, and orders category changes with the userfield writes that fill them.
 */
export function userfieldCategoriesService(db: Kysely<Database>) {
  const categories = userfieldCategoriesRepository(db);

  return {
    async list(caller: Caller, query: UserfieldCategoryQuery, paging: Paging): Promise<UserfieldCategory[]> {
      const rows = await categories.list(
        caller.orgId,
        {
          name: query.name,
          type: query.type,
          createdDate: dateRangeOf(query.createdDate),
          updatedDate: dateRangeOf(query.updatedDate),
        },
        paging,
      );
      return rows.map(toResponse);
    },

    async get(caller: Caller, id: string): Promise<UserfieldCategory> {
      return toResponse(await findById(id, (id) => categories.find(caller.orgId, id)));
    },

    create(caller: Caller, input: CreateUserfieldCategory): Promise<string> {
      return orderedWrite(db, caller, async (trx) => {
        if (await userfieldCategoriesRepository(trx).findByName(caller.orgId, input.name)) {
          throw new Conflict(['name']);
        }
        const { id } = await addCategory(trx, caller.orgId, input);
        await caller.idempotentWrite?.settle(trx, id);
        return id;
      });
    },

    async update(caller: Caller, id: string, input: UpdateUserfieldCategory): Promise<void> {
      await orderedWrite(db, caller, async (trx) => {
        const repository = userfieldCategoriesRepository(trx);
        const row = await findById(id, (id) => repository.find(caller.orgId, id));
        if (input.type !== undefined && input.type !== row.type) {
          throw new Invalid({ type: 'cannot be changed; move the userfields to a category of the other type instead' });
        }
        // The same refusal as create's: a name taken is a Conflict wherever it is found.
        const namesake = input.name === undefined ? undefined : await repository.findByName(caller.orgId, input.name);
        if (namesake && namesake.id !== id) throw new Conflict(['name']);

        const renamed = input.name !== undefined && input.name !== row.name;
        const fields = renamed ? await fieldsOfRenamedCategory(trx, caller.orgId, id) : undefined;
        if (renamed) await repository.rename(caller.orgId, id, input.name!, changeTime(trx));
        const shifted =
          input.orderIndex === undefined ? [] : await categoriesOfType(trx, caller.orgId, row.type).move(id, row.order_index, input.orderIndex);
        recordUpdate(trx, caller.orgId, 'userfieldcategory.updated', toResponse(row), toResponse((await repository.find(caller.orgId, id))!));
        await recordShiftedCategories(trx, caller.orgId, shifted);
        await fields?.renamed();
      });
    },

    /** Deletes an empty category; one that still holds userfields stays as it is. */
    async delete(caller: Caller, id: string): Promise<void> {
      await orderedWrite(db, caller, async (trx) => {
        const repository = userfieldCategoriesRepository(trx);
        const row = await findById(id, (id) => repository.find(caller.orgId, id));
        if (await repository.hasUserfields(caller.orgId, id)) throw new Refused(NOT_EMPTY);
        await repository.delete(caller.orgId, id);
        recordEvent(trx, caller.orgId, 'userfieldcategory.deleted', toResponse(row));
        await recordShiftedCategories(trx, caller.orgId, await categoriesOfType(trx, caller.orgId, row.type).closeGap(row.order_index));
      });
    },
  };
}

export type UserfieldCategoriesService = ReturnType<typeof userfieldCategoriesService>;
