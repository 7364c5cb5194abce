import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { NotFound } from '../lib/domain-errors.js';
import { organizationsRepository, type Organization as OrganizationRow } from './organizations.repository.js';

/** An organization as the command line shows it (a type, not an interface, so that tables take it as a record). */
export type Organization = {
  id: string;
  name: string;
  createdDate: string;
  /** Made to be tried out: filled with sample data, and reset to it on demand. */
  sandbox: boolean;
};

function toOrganization(row: OrganizationRow): Organization {
  return { id: row.id, name: row.name, createdDate: row.created_date, sandbox: row.sandbox };
}

/** The tenants: created, renamed and deleted by the operator (the command line), not through the API. */
export function organizationsService(db: Kysely<Database>) {
  const organizations = organizationsRepository(db);

  async function get(id: string): Promise<Organization> {
    const row = await organizations.find(id);
    if (!row) throw new NotFound();
    return toOrganization(row);
  }

  return {
    get,
    async create(name: string, options: { sandbox?: boolean } = {}): Promise<Organization> {
      return toOrganization(await organizations.create(name, options));
    },
    async list(): Promise<Organization[]> {
      return (await organizations.list()).map(toOrganization);
    },
    /** Renames the organization; it as it was. */
    async rename(id: string, name: string): Promise<Organization> {
      const before = await get(id);
      await organizations.rename(id, name);
      return before;
    },
    /** Deletes the organization with all its data; it as it was. */
    async delete(id: string): Promise<Organization> {
      const organization = await get(id);
      await organizations.delete(id);
      return organization;
    },
  };
}
