import { sql, type Kysely, type Transaction } from 'kysely';
import { findInBatches } from '../../db/batches.js';
import { containsText, pageWindow, withinRange } from '../../db/filters.js';
import { lookupKey } from '../../db/keys.js';
import type { ChangeTime } from '../../db/unit-of-work.js';
import type { Database, UserfieldCategoriesTable } from '../../db/schema.js';
import type { DateRange } from '../../lib/date-filter.js';
import type { Paging } from '../../lib/paging.js';
import type { CategoryType } from './userfield-categories.schemas.js';

export type CategoryRow = UserfieldCategoriesTable;
/** A category as services write it; the repository derives the name's lookup key. */
export type NewCategory = Omit<CategoryRow, 'name_key'>;

interface CategoryFilters {
  name?: string;
  type?: CategoryType;
  createdDate?: DateRange;
  updatedDate?: DateRange;
}

/** Sort key of docs/behaviour.md (Lists): public categories first, then private, then no category at all. */
export function categoryTypeRank(column: string) {
  return sql<number>`case ${sql.ref(column)} when 'public' then 0 when 'private' then 1 else 2 end`;
}

export function userfieldCategoriesRepository(db: Kysely<Database> | Transaction<Database>) {
  return {
    /** Up to `limit + 1` categories: public first, then private, each by orderIndex. */
    list(orgId: string, filters: CategoryFilters, paging: Paging): Promise<CategoryRow[]> {
      let query = db.selectFrom('userfield_categories').selectAll().where('org_id', '=', orgId);
      if (filters.name !== undefined) query = query.where(containsText('name', filters.name));
      if (filters.type !== undefined) query = query.where('type', '=', filters.type);
      if (filters.createdDate) query = query.where(withinRange('created_date', filters.createdDate));
      if (filters.updatedDate) query = query.where(withinRange('updated_date', filters.updatedDate));
      return query
        .orderBy(categoryTypeRank('type'))
        .orderBy('order_index')
        .orderBy('id')
        .$call((q) => pageWindow(q, paging))
        .execute();
    },

    find(orgId: string, id: string): Promise<CategoryRow | undefined> {
      return db.selectFrom('userfield_categories').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    },

    /** The categories with these ids, in list order. */
    findMany(orgId: string, ids: readonly string[]): Promise<CategoryRow[]> {
      return findInBatches(ids, (batch) =>
        db.selectFrom('userfield_categories').selectAll().where('org_id', '=', orgId).where('id', 'in', batch).orderBy('order_index').execute(),
      );
    },

    /** The category of this name, case aside. */
    findByName(orgId: string, name: string): Promise<CategoryRow | undefined> {
      return db.selectFrom('userfield_categories').selectAll().where('org_id', '=', orgId).where('name_key', '=', lookupKey(name)).executeTakeFirst();
    },

    async hasUserfields(orgId: string, id: string): Promise<boolean> {
      const row = await db.selectFrom('userfields').select('id').where('org_id', '=', orgId).where('category_id', '=', id).executeTakeFirst();
      return row !== undefined;
    },

    async insert(category: NewCategory): Promise<void> {
      await db
        .insertInto('userfield_categories')
        .values({ ...category, name_key: lookupKey(category.name) })
        .execute();
    },

    async rename(orgId: string, id: string, name: string, at: ChangeTime): Promise<void> {
      await db
        .updateTable('userfield_categories')
        .set({ name, name_key: lookupKey(name), updated_date: at })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .execute();
    },

    async delete(orgId: string, id: string): Promise<void> {
      await db.deleteFrom('userfield_categories').where('org_id', '=', orgId).where('id', '=', id).execute();
    },
  };
}
