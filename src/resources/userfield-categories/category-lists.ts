import type { Transaction } from 'kysely';
import { denseOrder } from '../../db/dense-order.js';
import type { Database } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { now } from '../../lib/time.js';
import { userfieldCategoriesRepository, type NewCategory } from './userfield-categories.repository.js';
import type { CategoryType } from './userfield-categories.schemas.js';

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
): Promise<NewCategory> {
  const at = now();
  const row: NewCategory = {
    org_id: orgId,
    id: newId(),
    name: input.name,
    type: input.type,
    order_index: await categoriesOfType(trx, orgId, input.type).openSlot(input.orderIndex),
    created_date: at,
    updated_date: at,
  };
  await userfieldCategoriesRepository(trx).insert(row);
  return row;
}
