import { changeTime, type UnitOfWork } from '../../db/unit-of-work.js';
import { denseOrder, type ShiftedRow } from '../../db/dense-order.js';
import { newId } from '../../lib/ids.js';
import { recordEvent, recordShifts } from '../../events/outbox.js';
import { userfieldCategoriesRepository, type CategoryRow, type NewCategory } from './userfield-categories.repository.js';
import type { CategoryType, UserfieldCategory } from './userfield-categories.schemas.js';

export function toResponse(row: Omit<CategoryRow, 'name_key'>): UserfieldCategory {
  return { id: row.id, type: row.type, name: row.name, orderIndex: row.order_index, createdDate: row.created_date, updatedDate: row.updated_date };
}

/** The categories of one type form one dense list. */
export function categoriesOfType(trx: UnitOfWork, orgId: string, type: CategoryType) {
  return denseOrder(trx, 'userfield_categories', orgId, { column: 'type', value: type });
}

/** Records the update event of each category a change of its list shifted. */
export function recordShiftedCategories(trx: UnitOfWork, orgId: string, shifted: readonly ShiftedRow[]): Promise<void> {
  return recordShifts(trx, orgId, 'userfieldcategory.updated', shifted, async (ids) =>
    (await userfieldCategoriesRepository(trx).findMany(orgId, ids)).map(toResponse),
  );
}

/**
 * Adds a category at `orderIndex` among those of its type (omitted or beyond the end: the end), with
 * its event and those of the categories it shifts. The caller holds the ordering lock and has checked
 * that the name is free.
 */
export async function addCategory(
  trx: UnitOfWork,
  orgId: string,
  input: { name: string; type: CategoryType; orderIndex?: number },
): Promise<NewCategory> {
  const at = changeTime(trx);
  const { position, shifted } = await categoriesOfType(trx, orgId, input.type).openSlot(input.orderIndex);
  const row: NewCategory = {
    org_id: orgId,
    id: newId(),
    name: input.name,
    type: input.type,
    order_index: position,
    created_date: at,
    updated_date: at,
  };
  await userfieldCategoriesRepository(trx).insert(row);
  recordEvent(trx, orgId, 'userfieldcategory.created', toResponse(row));
  await recordShiftedCategories(trx, orgId, shifted);
  return row;
}
