import type { Kysely } from 'kysely';
import { changeTime, type UnitOfWork } from '../../db/unit-of-work.js';
import { denseOrder, orderedWrite, type ShiftedRow } from '../../db/dense-order.js';
import { changedColumns } from '../../db/rows.js';
import type { Database } from '../../db/schema.js';
import { dateRangeOf } from '../../lib/date-filter.js';
import { Conflict } from '../../lib/domain-errors.js';
import { newId } from '../../lib/ids.js';
import { findById } from '../../lib/find-by-id.js';
import type { Paging } from '../../lib/paging.js';
import type { Caller } from '../../auth/caller.js';
import { recordEvent, recordShifts, recordUpdate } from '../../events/outbox.js';
import { offeringsRepository } from '../offerings/offerings.repository.js';
import { offeringsOf } from '../offerings/offerings.service.js';
import { offeringCategoriesRepository, type NewOfferingCategory, type OfferingCategoryPatch } from './offering-categories.repository.js';
import type { CreateOfferingCategory, OfferingCategory, OfferingCategoryQuery, UpdateOfferingCategory } from './offering-categories.schemas.js';

function toResponse(row: NewOfferingCategory): OfferingCategory {
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

/** The organization's offering categories form one dense list. */
function categoriesInOrder(trx: UnitOfWork, orgId: string) {
  return denseOrder(trx, 'offering_categories', orgId);
}

/** Records the update event of each category a change of the list shifted. */
function recordShiftedCategories(trx: UnitOfWork, orgId: string, shifted: readonly ShiftedRow[]): Promise<void> {
  return recordShifts(trx, orgId, 'offeringcategory.updated', shifted, async (ids) =>
    (await offeringCategoriesRepository(trx).findMany(orgId, ids)).map(toResponse),
  );
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
      const { orgId } = caller;
      return orderedWrite(db, caller, async (trx) => {
        const repository = offeringCategoriesRepository(trx);
        if (await repository.nameTaken(orgId, input.name)) throw new Conflict(['name']);
        const at = changeTime(trx);
        const { position, shifted } = await categoriesInOrder(trx, orgId).openSlot(input.orderIndex);
        const row: NewOfferingCategory = {
          org_id: orgId,
          id: newId(),
          name: input.name,
          description: input.description || null,
          color: input.color || null,
          order_index: position,
          created_date: at,
          updated_date: at,
        };
        await repository.insert(row);
        recordEvent(trx, orgId, 'offeringcategory.created', toResponse(row));
        await recordShiftedCategories(trx, orgId, shifted);
        await caller.idempotentWrite?.settle(trx, row.id);
        return row.id;
      });
    },

    async update(caller: Caller, id: string, input: UpdateOfferingCategory): Promise<void> {
      const { orgId } = caller;
      await orderedWrite(db, caller, async (trx) => {
        const repository = offeringCategoriesRepository(trx);
        const row = await findById(id, (id) => repository.find(orgId, id));
        const requested: OfferingCategoryPatch = {};
        if (input.name !== undefined) {
          if (await repository.nameTaken(orgId, input.name, id)) throw new Conflict(['name']);
          requested.name = input.name;
        }
        if (input.description !== undefined) requested.description = input.description || null;
        if (input.color !== undefined) requested.color = input.color || null;
        // Only what differs is a change: a category PUT back as it was read keeps its updatedDate.
        const patch = changedColumns(row, requested);
        if (Object.keys(patch).length > 0) await repository.update(orgId, id, patch, changeTime(trx));
        const shifted = input.orderIndex === undefined ? [] : await categoriesInOrder(trx, orgId).move(id, row.order_index, input.orderIndex);
        recordUpdate(trx, orgId, 'offeringcategory.updated', toResponse(row), toResponse((await repository.find(orgId, id))!));
        await recordShiftedCategories(trx, orgId, shifted);
      });
    },

    /** Deletes the category; offerings lose it from their `offeringCategoryIds`, which moves their updatedDate (each with its update event). */
    async delete(caller: Caller, id: string): Promise<void> {
      const { orgId } = caller;
      await orderedWrite(db, caller, async (trx) => {
        const repository = offeringCategoriesRepository(trx);
        const row = await findById(id, (id) => repository.find(orgId, id));
        const offerings = offeringsRepository(trx);
        const offeringIds = await offerings.idsInCategory(orgId, id);
        const before = await offeringsOf(trx, orgId, offeringIds);
        await repository.delete(orgId, id);
        await offerings.touch(orgId, offeringIds, changeTime(trx));
        recordEvent(trx, orgId, 'offeringcategory.deleted', toResponse(row));
        await recordShiftedCategories(trx, orgId, await categoriesInOrder(trx, orgId).closeGap(row.order_index));
        const after = await offeringsOf(trx, orgId, offeringIds);
        after.forEach((offering, index) => recordUpdate(trx, orgId, 'offering.updated', before[index]!, offering));
      });
    },
  };
}

export type OfferingCategoriesService = ReturnType<typeof offeringCategoriesService>;
