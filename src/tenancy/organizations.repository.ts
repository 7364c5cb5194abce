import type { Kysely, Selectable } from 'kysely';
import { withBooleans, type Row } from '../db/rows.js';
import type { Database, OrganizationsTable } from '../db/schema.js';
import { changeTime, inTransaction } from '../db/unit-of-work.js';
import { newId } from '../lib/ids.js';
import { SERVER_ACTOR } from '../lib/actors.js';
import { provisioners } from './provisioning.js';

export type Organization = Row<Selectable<OrganizationsTable>>;

/** Organizations are the tenants; they are managed from the command line, not the API. */
export function organizationsRepository(db: Kysely<Database>) {
  return {
    /**
     * Creates the organization with everything every organization starts with, in one transaction:
     * the caller's unit of work when it has one open (bootstrap decides and creates in the same), else its own.
     */
    create(name: string, { sandbox = false } = {}): Promise<Organization> {
      // The server's own rows: no request asks for them.
      return inTransaction(db, SERVER_ACTOR, async (trx) => {
        const organization = { id: newId(), name, created_date: changeTime(trx), sandbox };
        await trx.insertInto('organizations').values(organization).execute();
        for (const provision of provisioners) await provision(trx, organization.id);
        return organization;
      });
    },
    async list(): Promise<Organization[]> {
      const rows = await db.selectFrom('organizations').selectAll().orderBy('created_date').orderBy('id').execute();
      return rows.map((row) => withBooleans(row, ['sandbox']));
    },
    async find(id: string): Promise<Organization | undefined> {
      const row = await db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
      return row && withBooleans(row, ['sandbox']);
    },
    async rename(id: string, name: string): Promise<void> {
      await db.updateTable('organizations').set({ name }).where('id', '=', id).execute();
    },
    /** Every table's rows of the organization go with it (foreign keys cascade). */
    async delete(id: string): Promise<void> {
      await db.deleteFrom('organizations').where('id', '=', id).execute();
    },
  };
}
