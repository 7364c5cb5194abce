import type { Kysely, Transaction } from 'kysely';
import { pageWindow, withinRange } from '../../db/filters.js';
import { findInBatches } from '../../db/batches.js';
import { forShare, forUpdate } from '../../db/locking.js';
import { withBooleans, type Row } from '../../db/rows.js';
import type { ChangeTime } from '../../db/unit-of-work.js';
import type { Database, UserfieldsTable } from '../../db/schema.js';
import type { DateRange } from '../../lib/date-filter.js';
import type { Paging } from '../../lib/paging.js';
import { categoryTypeRank } from '../userfield-categories/userfield-categories.repository.js';
import type { CategoryType } from '../userfield-categories/userfield-categories.schemas.js';

export type UserfieldRow = Row<UserfieldsTable>;

function userfieldRow<T extends UserfieldsTable>(row: T): Row<T> {
  return withBooleans(row, ['required', 'read_only', 'prompt_missing_values']);
}
/** A field with the name and type of its category (null when it is in none). */
export type PlacedUserfieldRow = UserfieldRow & { category_name: string | null; category_type: CategoryType | null };
/** What an update may change directly; the place in a category changes only through `place`. */
export type UserfieldPatch = Partial<
  Omit<UserfieldRow, 'org_id' | 'id' | 'type' | 'read_only' | 'created_date' | 'updated_date' | 'category_id' | 'order_index'>
>;

interface UserfieldFilters {
  createdDate?: DateRange;
  updatedDate?: DateRange;
  categoryType?: CategoryType;
}

export function userfieldsRepository(db: Kysely<Database> | Transaction<Database>) {
  function placed(orgId: string) {
    return db
      .selectFrom('userfields as f')
      .leftJoin('userfield_categories as c', (join) => join.onRef('c.org_id', '=', 'f.org_id').onRef('c.id', '=', 'f.category_id'))
      .selectAll('f')
      .select(['c.name as category_name', 'c.type as category_type'])
      .where('f.org_id', '=', orgId);
  }

  return {
    /**
     * Up to `limit + 1` fields in the order of docs/behaviour.md (Lists): by category (public first, each type by the
     * category's orderIndex), then the field's orderIndex; predefined fields in no category last.
     */
    async list(orgId: string, filters: UserfieldFilters, paging: Paging): Promise<PlacedUserfieldRow[]> {
      let query = placed(orgId);
      if (filters.createdDate) query = query.where(withinRange('f.created_date', filters.createdDate));
      if (filters.updatedDate) query = query.where(withinRange('f.updated_date', filters.updatedDate));
      if (filters.categoryType) query = query.where('c.type', '=', filters.categoryType);
      const rows = await query
        .orderBy(categoryTypeRank('c.type'))
        .orderBy('c.order_index')
        .orderBy('f.order_index')
        .orderBy('f.id')
        .$call((q) => pageWindow(q, paging))
        .execute();
      return rows.map(userfieldRow);
    },

    async find(orgId: string, id: string): Promise<PlacedUserfieldRow | undefined> {
      const row = await placed(orgId).where('f.id', '=', id).executeTakeFirst();
      return row && userfieldRow(row);
    },

    /** Locks the field's row until the transaction ends: its values cannot be written meanwhile (see `findForValues`). */
    async lock(orgId: string, id: string): Promise<void> {
      await forUpdate(db, db.selectFrom('userfields').select('id').where('org_id', '=', orgId).where('id', '=', id)).execute();
    },

    /** The fields with these ids as `find` gives them. */
    async findPlaced(orgId: string, ids: readonly string[]): Promise<PlacedUserfieldRow[]> {
      const rows = await findInBatches(ids, (batch) => placed(orgId).where('f.id', 'in', batch).execute());
      return rows.map(userfieldRow);
    },

    /**
     * The fields about to receive values. On PostgreSQL they are share-locked until the transaction
     * ends, so they can neither change nor vanish between the check of a value and its write.
     */
    async findForValues(orgId: string, ids: readonly string[]): Promise<UserfieldRow[]> {
      const rows = await findInBatches(ids, (batch) =>
        forShare(db, db.selectFrom('userfields').selectAll().where('org_id', '=', orgId).where('id', 'in', batch)).execute(),
      );
      return rows.map(userfieldRow);
    },

    /** The fields with these ids, read without a lock. */
    async findMany(orgId: string, ids: readonly string[]): Promise<UserfieldRow[]> {
      const rows = await findInBatches(ids, (batch) =>
        db.selectFrom('userfields').selectAll().where('org_id', '=', orgId).where('id', 'in', batch).execute(),
      );
      return rows.map(userfieldRow);
    },

    async insert(row: UserfieldRow): Promise<void> {
      await db.insertInto('userfields').values(row).execute();
    },

    /** Every change stamps updated_date (with `at`). */
    async update(orgId: string, id: string, patch: UserfieldPatch, at: ChangeTime): Promise<void> {
      await db
        .updateTable('userfields')
        .set({ ...patch, updated_date: at })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .execute();
    },

    /** Puts the field at `orderIndex` of a category, or (both null) into no category. */
    async place(orgId: string, id: string, categoryId: string | null, orderIndex: number | null, at: ChangeTime): Promise<void> {
      await db
        .updateTable('userfields')
        .set({ category_id: categoryId, order_index: orderIndex, updated_date: at })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .execute();
    },

    /** The category's fields as `find` gives them. */
    async inCategory(orgId: string, categoryId: string): Promise<PlacedUserfieldRow[]> {
      const rows = await placed(orgId).where('f.category_id', '=', categoryId).orderBy('f.id').execute();
      return rows.map(userfieldRow);
    },

    /** Moves the updatedDate of the category's fields: they show a change made to their category. */
    async touchCategory(orgId: string, categoryId: string, at: ChangeTime): Promise<void> {
      await db.updateTable('userfields').set({ updated_date: at }).where('org_id', '=', orgId).where('category_id', '=', categoryId).execute();
    },

    /** Removes the field; its values go with it (foreign key cascade). */
    async delete(orgId: string, id: string): Promise<void> {
      await db.deleteFrom('userfields').where('org_id', '=', orgId).where('id', '=', id).execute();
    },
  };
}
