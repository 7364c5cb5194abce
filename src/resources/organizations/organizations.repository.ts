import type { Kysely } from 'kysely';
import type { Database, OrganizationsTable } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { now } from '../../lib/time.js';
import { provisioners } from './provisioning.js';

export type Organization = OrganizationsTable;

/** Organizations are the tenants; they are managed from the command line, not the API. */
export function organizationsRepository(db: Kysely<Database>) {
  return {
    /**
     * Creates the organization with everything every organization starts with, in one transaction:
     * the caller's when it has one open (bootstrap decides and creates in the same), else its own.
     */
    create(name: string): Promise<Organization> {
      const insert = async (trx: Kysely<Database>) => {
        const organization = { id: newId(), name, created_date: now() };
        await trx.insertInto('organizations').values(organization).execute();
        for (const provision of provisioners) await provision(trx, organization.id);
        return organization;
      };
      return db.isTransaction ? insert(db) : db.transaction().execute(insert);
    },
    list(): Promise<Organization[]> {
      return db.selectFrom('organizations').selectAll().orderBy('created_date').orderBy('id').execute();
    },
    find(id: string): Promise<Organization | undefined> {
      return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
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
