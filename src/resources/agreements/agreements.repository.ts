import { sql, type Kysely, type Transaction } from 'kysely';
import { pageWindow, withinRange } from '../../db/filters.js';
import { forUpdate } from '../../db/locking.js';
import { withBooleans, type Row } from '../../db/rows.js';
import type { AgreementsTable, Database, UserAgreementsTable } from '../../db/schema.js';
import type { DateRange } from '../../lib/date-filter.js';
import type { Paging } from '../../lib/paging.js';

export type AgreementRow = Row<AgreementsTable>;
export type AgreementPatch = Partial<Pick<AgreementRow, 'title' | 'text' | 'required' | 'updated_date'>>;
type UserAgreementRow = UserAgreementsTable;

interface AgreementFilters {
  updatedDate?: DateRange;
}

/** An agreement as one user sees it: with what they agreed to, when they did. */
export interface AgreementOfUser extends AgreementRow {
  agreed_title: string | null;
  agreed_text: string | null;
  agreed_date: string | null;
}

export function agreementsRepository(db: Kysely<Database> | Transaction<Database>) {
  return {
    /** Up to `limit + 1` agreements, standard then custom, so the caller can tell whether a next page exists. */
    async list(orgId: string, filters: AgreementFilters, paging: Paging): Promise<AgreementRow[]> {
      const rows = await db
        .selectFrom('agreements')
        .selectAll()
        .where('org_id', '=', orgId)
        // An agreement never revised last changed when it was defined.
        .$if(filters.updatedDate !== undefined, (q) => q.where(withinRange(sql<string>`coalesce(updated_date, created_date)`, filters.updatedDate!)))
        .orderBy('type', 'desc')
        .$call((q) => pageWindow(q, paging))
        .execute();
      return rows.map((row) => withBooleans(row, ['required']));
    },

    async find(orgId: string, type: AgreementRow['type']): Promise<AgreementRow | undefined> {
      const row = await db.selectFrom('agreements').selectAll().where('org_id', '=', orgId).where('type', '=', type).executeTakeFirst();
      return row && withBooleans(row, ['required']);
    },

    /** Locks the agreement's row, when it is defined, until the transaction ends. */
    async lock(orgId: string, type: AgreementRow['type']): Promise<void> {
      await forUpdate(db, db.selectFrom('agreements').select('type').where('org_id', '=', orgId).where('type', '=', type)).execute();
    },

    /** Defines the agreement; false when a concurrent request defined it first (and this one wrote nothing). */
    async define(row: AgreementRow): Promise<boolean> {
      const result = await db
        .insertInto('agreements')
        .values(row)
        .onConflict((conflict) => conflict.columns(['org_id', 'type']).doNothing())
        .executeTakeFirst();
      return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
    },

    async update(orgId: string, type: AgreementRow['type'], patch: AgreementPatch): Promise<void> {
      await db.updateTable('agreements').set(patch).where('org_id', '=', orgId).where('type', '=', type).execute();
    },

    /**
     * The organization's agreements (or the one of `type`) joined with the user's agreement to each,
     * standard then custom; up to `limit + 1` of them with `paging`.
     */
    async ofUser(orgId: string, userId: string, type?: AgreementRow['type'], paging?: Paging): Promise<AgreementOfUser[]> {
      const rows = await db
        .selectFrom('agreements')
        .leftJoin('user_agreements', (join) =>
          join
            .onRef('user_agreements.org_id', '=', 'agreements.org_id')
            .onRef('user_agreements.type', '=', 'agreements.type')
            .on('user_agreements.user_id', '=', userId),
        )
        .selectAll('agreements')
        .select(['user_agreements.title as agreed_title', 'user_agreements.text as agreed_text', 'user_agreements.agreed_date'])
        .where('agreements.org_id', '=', orgId)
        .$if(type !== undefined, (q) => q.where('agreements.type', '=', type!))
        .orderBy('agreements.type', 'desc')
        .$if(paging !== undefined, (q) => pageWindow(q, paging!))
        .execute();
      return rows.map((row) => withBooleans(row, ['required']));
    },

    /**
     * The organization's active users (`active`) and, for each agreement, how many of them agreed to it as
     * it reads now (`current`) or to an earlier revision (`earlier`): one reading of the users for both.
     */
    async agreementCounts(orgId: string): Promise<{ active: number } & Record<AgreementRow['type'], { current: number; earlier: number }>> {
      const row = await db
        .selectFrom('users as u')
        .leftJoin('user_agreements as s', (join) =>
          join.onRef('s.org_id', '=', 'u.org_id').onRef('s.user_id', '=', 'u.id').on('s.type', '=', 'standard'),
        )
        .leftJoin('agreements as sa', (join) => join.onRef('sa.org_id', '=', 's.org_id').onRef('sa.type', '=', 's.type'))
        .leftJoin('user_agreements as c', (join) =>
          join.onRef('c.org_id', '=', 'u.org_id').onRef('c.user_id', '=', 'u.id').on('c.type', '=', 'custom'),
        )
        .leftJoin('agreements as ca', (join) => join.onRef('ca.org_id', '=', 'c.org_id').onRef('ca.type', '=', 'c.type'))
        .select((eb) => [
          eb.fn.countAll<number | string>().as('active'),
          eb.fn.count<number | string>('s.user_id').as('standard_agreed'),
          eb.fn.sum<number | string | null>(sql`case when s.title = sa.title and s.text = sa.text then 1 else 0 end`).as('standard_current'),
          eb.fn.count<number | string>('c.user_id').as('custom_agreed'),
          eb.fn.sum<number | string | null>(sql`case when c.title = ca.title and c.text = ca.text then 1 else 0 end`).as('custom_current'),
        ])
        .where('u.org_id', '=', orgId)
        .where('u.active', '=', true)
        .executeTakeFirstOrThrow();
      const counts = (agreed: number | string, current: number | string | null) => ({
        current: Number(current ?? 0),
        earlier: Number(agreed) - Number(current ?? 0),
      });
      return {
        active: Number(row.active),
        standard: counts(row.standard_agreed, row.standard_current),
        custom: counts(row.custom_agreed, row.custom_current),
      };
    },

    /** Records (or renews) the user's agreement with the title and text they agreed to. */
    async agree(row: UserAgreementRow): Promise<void> {
      await db
        .insertInto('user_agreements')
        .values(row)
        .onConflict((conflict) =>
          conflict.columns(['org_id', 'user_id', 'type']).doUpdateSet({ title: row.title, text: row.text, agreed_date: row.agreed_date }),
        )
        .execute();
    },

    async withdraw(orgId: string, userId: string, type: AgreementRow['type']): Promise<void> {
      await db.deleteFrom('user_agreements').where('org_id', '=', orgId).where('user_id', '=', userId).where('type', '=', type).execute();
    },
  };
}
