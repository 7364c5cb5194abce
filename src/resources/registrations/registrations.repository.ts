import type { Kysely, Transaction } from 'kysely';
import { pageWindow, withinRange } from '../../db/filters.js';
import { batches } from '../../db/batches.js';
import { forUpdate } from '../../db/locking.js';
import type { ChangeTime } from '../../db/unit-of-work.js';
import type { Database, RegistrationsTable } from '../../db/schema.js';
import type { DateRange } from '../../lib/date-filter.js';
import type { Paging } from '../../lib/paging.js';
import { blocksNewRegistration } from './eligibility.js';

export type RegistrationRow = RegistrationsTable;
export type RegistrationStatus = RegistrationRow['status'];
export type RegistrationPatch = Partial<Pick<RegistrationRow, 'status' | 'grade' | 'grader_comment' | 'end_date'>>;

interface RegistrationFilters {
  status?: RegistrationStatus;
  userId?: string;
  offeringId?: string;
  createdDate?: DateRange;
  updatedDate?: DateRange;
  beginDate?: DateRange;
  lastActiveDate?: DateRange;
  endDate?: DateRange;
}

const DATE_FILTERS = [
  ['createdDate', 'created_date'],
  ['updatedDate', 'updated_date'],
  ['beginDate', 'begin_date'],
  ['lastActiveDate', 'last_active_date'],
  ['endDate', 'end_date'],
] as const;

export function registrationsRepository(db: Kysely<Database> | Transaction<Database>) {
  return {
    /** Up to `limit + 1` registrations in creation order, so the caller can tell whether a next page exists. */
    list(orgId: string, filters: RegistrationFilters, paging: Paging): Promise<RegistrationRow[]> {
      let query = db.selectFrom('registrations').selectAll().where('org_id', '=', orgId);
      if (filters.status !== undefined) query = query.where('status', '=', filters.status);
      if (filters.userId !== undefined) query = query.where('user_id', '=', filters.userId);
      if (filters.offeringId !== undefined) query = query.where('offering_id', '=', filters.offeringId);
      for (const [filter, column] of DATE_FILTERS) {
        const range = filters[filter];
        if (range) query = query.where(withinRange(column, range));
      }
      return query
        .orderBy('created_date')
        .orderBy('id')
        .$call((q) => pageWindow(q, paging))
        .execute();
    },

    /** The offerings the user has an active registration for (what a course player checks at each launch). */
    async activeOfferingIds(orgId: string, userId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('registrations')
        .select('offering_id')
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .where('status', '=', 'active')
        .orderBy('offering_id')
        .execute();
      return rows.map((row) => row.offering_id);
    },

    find(orgId: string, id: string): Promise<RegistrationRow | undefined> {
      return db.selectFrom('registrations').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
    },

    /** Reads and locks the registration until the transaction ends, so status changes serialize. */
    lock(orgId: string, id: string): Promise<RegistrationRow | undefined> {
      const query = db.selectFrom('registrations').selectAll().where('org_id', '=', orgId).where('id', '=', id);
      return forUpdate(db, query).executeTakeFirst();
    },

    /** Status of a registration of the user that keeps them from registering for the offering again, if any. */
    async blockingStatus(orgId: string, userId: string, offeringId: string): Promise<RegistrationStatus | undefined> {
      const row = await db
        .selectFrom('registrations')
        .innerJoin('offerings', (join) =>
          join.onRef('offerings.org_id', '=', 'registrations.org_id').onRef('offerings.id', '=', 'registrations.offering_id'),
        )
        .select('registrations.status')
        .where('registrations.org_id', '=', orgId)
        .where('registrations.user_id', '=', userId)
        .where('registrations.offering_id', '=', offeringId)
        .where(blocksNewRegistration('registrations', 'offerings'))
        .orderBy('registrations.status') // 'active' first: the more telling refusal
        .executeTakeFirst();
      return row?.status;
    },

    /** Statuses of the offering's registrations, locked until the transaction ends. */
    async lockStatusesOfOffering(orgId: string, offeringId: string): Promise<RegistrationStatus[]> {
      const query = db.selectFrom('registrations').select('status').where('org_id', '=', orgId).where('offering_id', '=', offeringId);
      return (await forUpdate(db, query).execute()).map((row) => row.status);
    },

    async deleteOfOffering(orgId: string, offeringId: string): Promise<void> {
      await db.deleteFrom('registrations').where('org_id', '=', orgId).where('offering_id', '=', offeringId).execute();
    },

    async insert(row: RegistrationRow): Promise<void> {
      await db.insertInto('registrations').values(row).execute();
    },

    async insertMany(rows: readonly RegistrationRow[]): Promise<void> {
      for (const batch of batches(rows)) await db.insertInto('registrations').values(batch).execute();
    },

    /** Every change stamps updated_date (with `at`). */
    async update(orgId: string, id: string, patch: RegistrationPatch, at: ChangeTime): Promise<void> {
      await db
        .updateTable('registrations')
        .set({ ...patch, updated_date: at })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .execute();
    },
  };
}
