import type { Kysely, Transaction } from 'kysely';
import { findInBatches } from '../../db/batches.js';
import { containsText, pageWindow, withinRange } from '../../db/filters.js';
import { lookupKey } from '../../db/keys.js';
import type { ChangeTime } from '../../db/unit-of-work.js';
import type { Database, OfferingCategoriesTable } from '../../db/schema.js';
import type { DateRange } from '../../lib/date-filter.js';
import type { Paging } from '../../lib/paging.js';

type OfferingCategoryRow = OfferingCategoriesTable;
/** A category as services write it; the repository derives the name's lookup key. */
export type NewOfferingCategory = Omit<OfferingCategoryRow, 'name_key'>;
export type OfferingCategoryPatch = Partial<Omit<NewOfferingCategory, 'org_id' | 'id' | 'created_date' | 'updated_date' | 'order_index'>>;

interface OfferingCategoryFilters {
  name?: string;
  createdDate?: DateRange;
  updatedDate?: DateRange;
}

export function offeringCategoriesRepository(db: Kysely<Database> | Transaction<Database>) {
  return {
    /** Up to `limit + 1` categories in list order, so the caller can tell whether a next page exists. */
    list(orgId: string, filters: OfferingCategoryFilters, paging: Paging): Promise<OfferingCategoryRow[]> {
      let query = db.selectFrom('offering_categories').selectAll().where('org_id', '=', orgId);
      if (filters.name !== undefined) query = query.where(containsText('name', filters.name));
      if (filters.createdDate) query = query.where(withinRange('created_date', filters.createdDate));
      if (filters.updatedDate) query = query.where(withinRange('updated_date', filters.updatedDate));
      return query
        .orderBy('order_index')
        .orderBy('id')
        .$call((q) => pageWindow(q, paging))
        .execute();
    },

    find(orgId: string, id: string): Promise<OfferingCategoryRow | undefined> {
      return db.selectFrom('offering_categories').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    },

    /** The categories with these ids, in list order. */
    findMany(orgId: string, ids: readonly string[]): Promise<OfferingCategoryRow[]> {
      return findInBatches(ids, (batch) =>
        db.selectFrom('offering_categories').selectAll().where('org_id', '=', orgId).where('id', 'in', batch).orderBy('order_index').execute(),
      );
    },

    /** Which of `ids` exist in the organization. */
    async existing(orgId: string, ids: readonly string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db.selectFrom('offering_categories').select('id').where('org_id', '=', orgId).where('id', 'in', ids).execute();
      return new Set(rows.map((row) => row.id));
    },

    /** Whether a category other than `exceptId` holds this name, case aside. */
    async nameTaken(orgId: string, name: string, exceptId?: string): Promise<boolean> {
      const row = await db
        .selectFrom('offering_categories')
        .select('id')
        .where('org_id', '=', orgId)
        .where('name_key', '=', lookupKey(name))
        .$if(exceptId !== undefined, (q) => q.where('id', '!=', exceptId!))
        .executeTakeFirst();
      return row !== undefined;
    },

    async insert(category: NewOfferingCategory): Promise<void> {
      await db
        .insertInto('offering_categories')
        .values({ ...category, name_key: lookupKey(category.name) })
        .execute();
    },

    /** Every change stamps updated_date (with `at`). */
    async update(orgId: string, id: string, patch: OfferingCategoryPatch, at: ChangeTime): Promise<void> {
      const keyed = { ...patch, ...(patch.name === undefined ? {} : { name_key: lookupKey(patch.name) }), updated_date: at };
      await db.updateTable('offering_categories').set(keyed).where('org_id', '=', orgId).where('id', '=', id).execute();
    },

    /** Removes the category; its links to offerings go with it (foreign key cascade). */
    async delete(orgId: string, id: string): Promise<void> {
      await db.deleteFrom('offering_categories').where('org_id', '=', orgId).where('id', '=', id).execute();
    },
  };
}
