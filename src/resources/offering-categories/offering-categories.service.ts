import type { Kysely } from 'kysely';
import { denseOrder, orderedWrite } from '../../db/dense-order.js';
import type { Database } from '../../db/schema.js';
import { dateRangeOf } from '../../lib/date-filter.js';
import { errors, IN_USE_MESSAGE } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { findById } from '../../lib/not-found.js';
import type { Paging } from '../../lib/paging.js';
import { now } from '../../lib/time.js';
import type { Caller } from '../../auth/caller.js';
import {
  offeringCategoriesRepository,
  type NewOfferingCategory,
  type OfferingCategoryPatch,
  type OfferingCategoryRow,
} from './offering-categories.repository.js';
import type { CreateOfferingCategory, OfferingCategory, OfferingCategoryQuery, UpdateOfferingCategory } from './offering-categories.schemas.js';

function toResponse(row: OfferingCategoryRow): OfferingCategory {
  const category: OfferingCategory = {
    id: row.id,
    name: row.name,
    orderIndex: row.order_index,
    createdDate: row.created_date,
    updatedDate: row.updated_date,
  };
  if (row.description) category.description = row.description;
  if (row.color) category.color = row.color;
  return category;
}

/**
 * Every write takes the organization's ordering lock first: it keeps `orderIndex` dense, makes the
 * name check race-free, and lets offering writes trust that the categories they name still exist.
 */
export function offeringCategoriesService(db: Kysely<Database>) {
  const categories = offeringCategoriesRepository(db);

  return {
    async list(caller: Caller, query: OfferingCategoryQuery, paging: Paging): Promise<OfferingCategory[]> {
      const rows = await categories.list(
        caller.orgId,
        { name: query.name, createdDate: dateRangeOf(query.createdDate), updatedDate: dateRangeOf(query.updatedDate) },
        paging,
      );
      return rows.map(toResponse);
    },

    async get(caller: Caller, id: string): Promise<OfferingCategory> {
      return toResponse(await findById(id, (id) => categories.find(caller.orgId, id)));
    },

    create(caller: Caller, input: CreateOfferingCategory): Promise<string> {
      return orderedWrite(db, caller.orgId, async (trx) => {
        const repository = offeringCategoriesRepository(trx);
        if (await repository.nameTaken(caller.orgId, input.name)) throw errors.fieldErrors({ name: IN_USE_MESSAGE });
        const at = now();
        const row: NewOfferingCategory = {
          org_id: caller.orgId,
          id: newId(),
          name: input.name,
          description: input.description || null,
          color: input.color || null,
          order_index: await denseOrder(trx, 'offering_categories', caller.orgId).openSlot(input.orderIndex),
          created_date: at,
          updated_date: at,
        };
        await repository.insert(row);
        await caller.idempotentWrite?.settle(trx, row.id);
        return row.id;
      });
    },

    async update(caller: Caller, id: string, input: UpdateOfferingCategory): Promise<void> {
      await orderedWrite(db, caller.orgId, async (trx) => {
        const repository = offeringCategoriesRepository(trx);
        const row = await findById(id, (id) => repository.find(caller.orgId, id));
        const patch: OfferingCategoryPatch = {};
        if (input.name !== undefined) {
          if (await repository.nameTaken(caller.orgId, input.name, id)) throw errors.fieldErrors({ name: IN_USE_MESSAGE });
          patch.name = input.name;
        }
        if (input.description !== undefined) patch.description = input.description || null;
        if (input.color !== undefined) patch.color = input.color || null;
        if (Object.keys(patch).length > 0) await repository.update(caller.orgId, id, patch);
        if (input.orderIndex !== undefined) {
          await denseOrder(trx, 'offering_categories', caller.orgId).move(id, row.order_index, input.orderIndex);
        }
      });
    },

    /** Deletes the category; offerings simply lose it from their `offeringCategoryIds`. */
    async delete(caller: Caller, id: string): Promise<void> {
      await orderedWrite(db, caller.orgId, async (trx) => {
        const repository = offeringCategoriesRepository(trx);
        const row = await findById(id, (id) => repository.find(caller.orgId, id));
        await repository.delete(caller.orgId, id);
        await denseOrder(trx, 'offering_categories', caller.orgId).closeGap(row.order_index);
      });
    },
  };
}

export type OfferingCategoriesService = ReturnType<typeof offeringCategoriesService>;
