import type { Kysely, Transaction } from 'kysely';
import { denseOrder, lockOrdering } from '../../db/dense-order.js';
import type { Database } from '../../db/schema.js';
import { parseDateFilter } from '../../lib/date-filter.js';
import { errors, IN_USE_MESSAGE, type FieldErrors } from '../../lib/errors.js';
import { isId, newId } from '../../lib/ids.js';
import type { Paging } from '../../lib/paging.js';
import { now } from '../../lib/time.js';
import type { Caller } from '../../auth/caller.js';
import { userfieldCategoriesRepository, type CategoryRow } from './userfield-categories.repository.js';
import type {
  CategoryType,
  CreateUserfieldCategory,
  UpdateUserfieldCategory,
  UserfieldCategory,
  UserfieldCategoryQuery,
} from './userfield-categories.schemas.js';

const NOT_EMPTY = 'The category still contains userfields; move or delete them first.';

export function toResponse(row: CategoryRow): UserfieldCategory {
  return { id: row.id, type: row.type, name: row.name, orderIndex: row.order_index, createdDate: row.created_date };
}

/** The categories of one type form one dense list. */
export function categoriesOfType(trx: Transaction<Database>, orgId: string, type: CategoryType) {
  return denseOrder(trx, 'userfield_categories', orgId, { column: 'type', value: type });
}

/**
 * Adds a category at `orderIndex` among those of its type (omitted or beyond the end: the end).
 * The caller holds the ordering lock and has checked that the name is free.
 */
export async function addCategory(
  trx: Transaction<Database>,
  orgId: string,
  input: { name: string; type: CategoryType; orderIndex?: number },
): Promise<CategoryRow> {
  const row: CategoryRow = {
    org_id: orgId,
    id: newId(),
    name: input.name,
    name_key: input.name.toLowerCase(),
    type: input.type,
    order_index: await categoriesOfType(trx, orgId, input.type).openSlot(input.orderIndex),
    created_date: now(),
  };
  await userfieldCategoriesRepository(trx).insert(row);
  return row;
}

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
          createdDate: query.createdDate === undefined ? undefined : parseDateFilter(query.createdDate),
        },
        paging,
      );
      return rows.map(toResponse);
    },

    async get(caller: Caller, id: string): Promise<UserfieldCategory> {
      const row = isId(id) ? await categories.find(caller.orgId, id) : undefined;
      if (!row) throw errors.notFound();
      return toResponse(row);
    },

    create(caller: Caller, input: CreateUserfieldCategory): Promise<string> {
      return db.transaction().execute(async (trx) => {
        await lockOrdering(trx, caller.orgId);
        if (await userfieldCategoriesRepository(trx).findByName(caller.orgId, input.name)) {
          throw errors.fieldErrors({ name: IN_USE_MESSAGE });
        }
        return (await addCategory(trx, caller.orgId, input)).id;
      });
    },

    async update(caller: Caller, id: string, input: UpdateUserfieldCategory): Promise<void> {
      if (!isId(id)) throw errors.notFound();
      await db.transaction().execute(async (trx) => {
        await lockOrdering(trx, caller.orgId);
        const repository = userfieldCategoriesRepository(trx);
        const row = await repository.find(caller.orgId, id);
        if (!row) throw errors.notFound();
        const fieldErrors: FieldErrors = {};
        if (input.type !== undefined && input.type !== row.type) {
          fieldErrors.type = 'cannot be changed; move the userfields to a category of the other type instead';
        }
        const namesake = input.name === undefined ? undefined : await repository.findByName(caller.orgId, input.name);
        if (namesake && namesake.id !== id) fieldErrors.name = IN_USE_MESSAGE;
        if (Object.keys(fieldErrors).length > 0) throw errors.fieldErrors(fieldErrors);

        if (input.name !== undefined && input.name !== row.name) await repository.rename(caller.orgId, id, input.name);
        if (input.orderIndex !== undefined) {
          await categoriesOfType(trx, caller.orgId, row.type).move(id, row.order_index, input.orderIndex);
        }
      });
    },

    /** Deletes an empty category; one that still holds userfields stays as it is. */
    async delete(caller: Caller, id: string): Promise<void> {
      if (!isId(id)) throw errors.notFound();
      await db.transaction().execute(async (trx) => {
        await lockOrdering(trx, caller.orgId);
        const repository = userfieldCategoriesRepository(trx);
        const row = await repository.find(caller.orgId, id);
        if (!row) throw errors.notFound();
        if (await repository.hasUserfields(caller.orgId, id)) throw errors.badRequest(NOT_EMPTY);
        await repository.delete(caller.orgId, id);
        await categoriesOfType(trx, caller.orgId, row.type).closeGap(row.order_index);
      });
    },
  };
}

export type UserfieldCategoriesService = ReturnType<typeof userfieldCategoriesService>;
