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
