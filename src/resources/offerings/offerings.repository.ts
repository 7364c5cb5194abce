import type { Kysely, Transaction } from 'kysely';
import { batches, findInBatches } from '../../db/batches.js';
import { containsText, hasWord, pageWindow, withinRange } from '../../db/filters.js';
import { forUpdate } from '../../db/locking.js';
import { withBooleans, type Row } from '../../db/rows.js';
import type { ChangeTime } from '../../db/unit-of-work.js';
import type { Database, OfferingsTable } from '../../db/schema.js';
import type { DateRange } from '../../lib/date-filter.js';
import type { Paging } from '../../lib/paging.js';
import { blocksNewRegistration, openForRegistration } from '../registrations/eligibility.js';

export type OfferingRow = Row<OfferingsTable>;

const offeringRow = (row: OfferingsTable): OfferingRow => withBooleans(row, ['allow_retake']);
export type OfferingPatch = Partial<Omit<OfferingRow, 'org_id' | 'id' | 'created_date' | 'updated_date' | 'order_index'>>;

interface OfferingFilters {
  title?: string;
  categoryId?: string;
  tags?: string[];
  createdDate?: DateRange;
  updatedDate?: DateRange;
  /** Only offerings this user may register for at `at`. */
  openFor?: { userId: string; at: string };
}

export function offeringsRepository(db: Kysely<Database> | Transaction<Database>) {
  return {
    /** Up to `limit + 1` offerings in list order, so the caller can tell whether a next page exists. */
    async list(orgId: string, filters: OfferingFilters, paging: Paging): Promise<OfferingRow[]> {
      let query = db.selectFrom('offerings').selectAll('offerings').where('offerings.org_id', '=', orgId);
      if (filters.title !== undefined) query = query.where(containsText('offerings.title', filters.title));
      for (const tag of filters.tags ?? []) query = query.where(hasWord('offerings.tags', tag));
      if (filters.createdDate) query = query.where(withinRange('offerings.created_date', filters.createdDate));
      if (filters.updatedDate) query = query.where(withinRange('offerings.updated_date', filters.updatedDate));
      const { categoryId, openFor } = filters;
      if (categoryId !== undefined) {
        query = query.where(({ exists, selectFrom }) =>
          exists(
            selectFrom('offering_category_links as link')
              .select('link.offering_id')
              .where('link.org_id', '=', orgId)
              .whereRef('link.offering_id', '=', 'offerings.id')
              .where('link.category_id', '=', categoryId),
          ),
        );
      }
      if (openFor) {
        // Nothing is open to a deactivated user, as POST /registrations refuses to register one.
        query = query.where(({ exists, selectFrom }) =>
          exists(
            selectFrom('users')
              .select('users.id')
              .where('users.org_id', '=', orgId)
              .where('users.id', '=', openFor.userId)
              .where('users.active', '=', true),
          ),
        );
        query = query
          .where(openForRegistration('offerings', openFor.at))
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('registrations')
                  .select('registrations.id')
                  .where('registrations.org_id', '=', orgId)
                  .where('registrations.user_id', '=', openFor.userId)
                  .whereRef('registrations.offering_id', '=', 'offerings.id')
                  .where(blocksNewRegistration('registrations', 'offerings')),
              ),
            ),
          );
      }
      const rows = await query
        .orderBy('offerings.order_index')
        .orderBy('offerings.id')
        .$call((q) => pageWindow(q, paging))
        .execute();
      return rows.map(offeringRow);
    },

    async find(orgId: string, id: string): Promise<OfferingRow | undefined> {
      const row = await db.selectFrom('offerings').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return row && offeringRow(row);
    },

    /** The offerings with these ids, in no particular order. */
    async findMany(orgId: string, ids: readonly string[]): Promise<OfferingRow[]> {
      const rows = await findInBatches(ids, (batch) =>
        db.selectFrom('offerings').selectAll().where('org_id', '=', orgId).where('id', 'in', batch).execute(),
      );
      return rows.map(offeringRow);
    },

    /** Moves the listed offerings' updatedDate: a change made to them through something else (their category deleted). */
    async touch(orgId: string, ids: readonly string[], at: ChangeTime): Promise<void> {
      for (const batch of batches(ids)) {
        await db.updateTable('offerings').set({ updated_date: at }).where('org_id', '=', orgId).where('id', 'in', batch).execute();
      }
    },

    /** The ids of the offerings in the category. */
    async idsInCategory(orgId: string, categoryId: string): Promise<string[]> {
      const links = await db
        .selectFrom('offering_category_links')
        .select('offering_id')
        .where('org_id', '=', orgId)
        .where('category_id', '=', categoryId)
        .orderBy('offering_id')
        .execute();
      return links.map((link) => link.offering_id);
    },

    /**
     * Reads and locks the offering until the transaction ends (registrations for it, its updates and
     * its deletion serialize on this row), telling whether it is open for registration at `at`.
     */
    async lockForRegistration(orgId: string, id: string, at: string): Promise<{ title: string; open: boolean } | undefined> {
      const query = db
        .selectFrom('offerings')
        .select(['title', openForRegistration('offerings', at).as('open')])
        .where('org_id', '=', orgId)
        .where('id', '=', id);
      const row = await forUpdate(db, query).executeTakeFirst();
      return row && withBooleans(row, ['open']);
    },

    /** Reads and locks the offering until the transaction ends (see `lockForRegistration`). */
    async lock(orgId: string, id: string): Promise<OfferingRow | undefined> {
      const row = await forUpdate(db, db.selectFrom('offerings').selectAll().where('org_id', '=', orgId).where('id', '=', id)).executeTakeFirst();
      return row && offeringRow(row);
    },

    /** Category ids of each of `offeringIds`, in the order they were given. */
    async categoryIds(orgId: string, offeringIds: readonly string[]): Promise<Map<string, string[]>> {
      const byOffering = new Map<string, string[]>();
      if (offeringIds.length === 0) return byOffering;
      const links = await findInBatches(offeringIds, (batch) =>
        db
          .selectFrom('offering_category_links')
          .select(['offering_id', 'category_id'])
          .where('org_id', '=', orgId)
          .where('offering_id', 'in', batch)
          .orderBy('offering_id')
          .orderBy('position')
          .execute(),
      );
      for (const link of links) {
        const ids = byOffering.get(link.offering_id) ?? [];
        ids.push(link.category_id);
        byOffering.set(link.offering_id, ids);
      }
      return byOffering;
    },

    async replaceCategories(orgId: string, offeringId: string, categoryIds: readonly string[]): Promise<void> {
      await db.deleteFrom('offering_category_links').where('org_id', '=', orgId).where('offering_id', '=', offeringId).execute();
      if (categoryIds.length === 0) return;
      await db
        .insertInto('offering_category_links')
        .values(categoryIds.map((categoryId, position) => ({ org_id: orgId, offering_id: offeringId, category_id: categoryId, position })))
        .execute();
    },

    async insert(row: OfferingRow): Promise<void> {
      await db.insertInto('offerings').values(row).execute();
    },

    /** Every change stamps updated_date (with `at`); an empty patch only that. */
    async update(orgId: string, id: string, patch: OfferingPatch, at: ChangeTime): Promise<void> {
      await db
        .updateTable('offerings')
        .set({ ...patch, updated_date: at })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .execute();
    },

    /** Removes the offering and its category links; its registrations must be gone already. */
    async delete(orgId: string, id: string): Promise<void> {
      await db.deleteFrom('offerings').where('org_id', '=', orgId).where('id', '=', id).execute();
    },
  };
}
