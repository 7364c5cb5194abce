import type { Kysely } from 'kysely';
import type { AccessTokensTable, Database } from '../../db/schema.js';

export type AccessTokenRow = AccessTokensTable;

export function tokensRepository(db: Kysely<Database>) {
  return {
    async insert(row: AccessTokenRow): Promise<void> {
      await db.insertInto('access_tokens').values(row).execute();
    },
    /** The one lookup without an organization id: the token is what tells the organization. */
    findByHash(tokenHash: string): Promise<AccessTokenRow | undefined> {
      return db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    },
    list(orgId: string): Promise<AccessTokenRow[]> {
      return db.selectFrom('access_tokens').selectAll().where('org_id', '=', orgId).orderBy('created_date').orderBy('id').execute();
    },
    findById(tokenId: string): Promise<AccessTokenRow | undefined> {
      return db.selectFrom('access_tokens').selectAll().where('id', '=', tokenId).executeTakeFirst();
    },
    async revoke(orgId: string, tokenId: string, at: string): Promise<void> {
      await db
        .updateTable('access_tokens')
        .set({ revoked_date: at })
        .where('org_id', '=', orgId)
        .where('id', '=', tokenId)
        .where('revoked_date', 'is', null)
        .execute();
    },
    async touch(orgId: string, tokenId: string, at: string): Promise<void> {
      await db.updateTable('access_tokens').set({ last_used_date: at }).where('org_id', '=', orgId).where('id', '=', tokenId).execute();
    },
  };
}
