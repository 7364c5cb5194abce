import type { Kysely } from 'kysely';
import type { Database, OAuthClientsTable } from '../db/schema.js';

export type OAuthClientRow = OAuthClientsTable;

export function clientsRepository(db: Kysely<Database>) {
  return {
    async insert(row: OAuthClientRow): Promise<void> {
      await db.insertInto('oauth_clients').values(row).execute();
    },
    /** A client names itself by its id alone: the id is what tells the organization. */
    findById(clientId: string): Promise<OAuthClientRow | undefined> {
      return db.selectFrom('oauth_clients').selectAll().where('id', '=', clientId).executeTakeFirst();
    },
    list(orgId: string): Promise<OAuthClientRow[]> {
      return db.selectFrom('oauth_clients').selectAll().where('org_id', '=', orgId).orderBy('created_date').orderBy('id').execute();
    },
    async revoke(orgId: string, clientId: string, at: string): Promise<void> {
      await db
        .updateTable('oauth_clients')
        .set({ revoked_date: at })
        .where('org_id', '=', orgId)
        .where('id', '=', clientId)
        .where('revoked_date', 'is', null)
        .execute();
    },
    async setSecretHash(orgId: string, clientId: string, secretHash: string): Promise<void> {
      await db.updateTable('oauth_clients').set({ secret_hash: secretHash }).where('org_id', '=', orgId).where('id', '=', clientId).execute();
    },
    async touch(orgId: string, clientId: string, at: string): Promise<void> {
      await db.updateTable('oauth_clients').set({ last_used_date: at }).where('org_id', '=', orgId).where('id', '=', clientId).execute();
    },
  };
}
