import type { Kysely } from 'kysely';
import type { AccessTokensTable, Database } from '../db/schema.js';
import { compiledOnce } from '../db/compiled.js';
import { noteTokensRevoked } from '../db/token-revocations.js';

export type AccessTokenRow = AccessTokensTable;

/**
 * The columns by name, not `*`: the statement is prepared once per connection (named statements), and a
 * column a migration adds would make PostgreSQL refuse the prepared `*` of instances still running.
 */
const TOKEN_COLUMNS = [
  'org_id',
  'id',
  'name',
  'token_hash',
  'scopes',
  'created_date',
  'last_used_date',
  'expires_date',
  'revoked_date',
  'client_id',
] as const satisfies readonly (keyof AccessTokensTable)[];

const findTokenByHash = compiledOnce(1, (db, tokenHash) => db.selectFrom('access_tokens').select(TOKEN_COLUMNS).where('token_hash', '=', tokenHash));

export function tokensRepository(db: Kysely<Database>) {
  /** The organization's tokens not yet revoked whose `column` is `value` are revoked at `at`. */
  async function revokeWhere(orgId: string, column: 'id' | 'client_id', value: string, at: string): Promise<void> {
    await db
      .updateTable('access_tokens')
      .set({ revoked_date: at })
      .where('org_id', '=', orgId)
      .where(column, '=', value)
      .where('revoked_date', 'is', null)
      .execute();
    noteTokensRevoked();
  }

  return {
    async insert(row: AccessTokenRow): Promise<void> {
      await db.insertInto('access_tokens').values(row).execute();
    },
    /** The one lookup without an organization id: the token is what tells the organization. */
    async findByHash(tokenHash: string): Promise<AccessTokenRow | undefined> {
      const [row] = await findTokenByHash(db, tokenHash);
      return row;
    },
    /** The tokens made on the command line (those issued to OAuth clients belong to their client). */
    list(orgId: string): Promise<AccessTokenRow[]> {
      return db
        .selectFrom('access_tokens')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('client_id', 'is', null)
        .orderBy('created_date')
        .orderBy('id')
        .execute();
    },
    findById(tokenId: string): Promise<AccessTokenRow | undefined> {
      return db.selectFrom('access_tokens').selectAll().where('id', '=', tokenId).where('client_id', 'is', null).executeTakeFirst();
    },
    revoke(orgId: string, tokenId: string, at: string): Promise<void> {
      return revokeWhere(orgId, 'id', tokenId, at);
    },
    /** Every token issued to a client stops working with it. */
    revokeClientTokens(orgId: string, clientId: string, at: string): Promise<void> {
      return revokeWhere(orgId, 'client_id', clientId, at);
    },
    /** A client's tokens that expired before `before`: they can never be used again, so nothing is lost. */
    async deleteExpiredClientTokens(orgId: string, clientId: string, before: string): Promise<void> {
      await db.deleteFrom('access_tokens').where('org_id', '=', orgId).where('client_id', '=', clientId).where('expires_date', '<', before).execute();
      noteTokensRevoked();
    },
    async touch(orgId: string, tokenId: string, at: string): Promise<void> {
      await db.updateTable('access_tokens').set({ last_used_date: at }).where('org_id', '=', orgId).where('id', '=', tokenId).execute();
    },
  };
}
