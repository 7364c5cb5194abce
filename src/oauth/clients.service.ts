import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DEFAULT_SCOPES, type Scope } from '../auth/scopes.js';
import { hashSecret, newSecret, SECRET_PREFIXES } from '../auth/secrets.js';
import type { Database } from '../db/schema.js';
import { isId, newId } from '../lib/ids.js';
import { now } from '../lib/time.js';
import { tokensRepository } from '../auth/tokens.repository.js';
import { tokensService } from '../auth/tokens.service.js';
import { clientsRepository, type OAuthClientRow } from './clients.repository.js';
import { oauthErrors } from './oauth-errors.js';

export interface ClientInfo {
  /** The `client_id` of RFC 6749. */
  id: string;
  orgId: string;
  name: string;
  /** What its tokens may carry; a token request may narrow it. */
  scopes: Scope[];
  createdDate: string;
  lastUsedDate?: string;
  revokedDate?: string;
}

function toInfo(row: OAuthClientRow): ClientInfo {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    scopes: row.scopes.split(',') as Scope[],
    createdDate: row.created_date,
    ...(row.last_used_date ? { lastUsedDate: row.last_used_date } : {}),
    ...(row.revoked_date ? { revokedDate: row.revoked_date } : {}),
  };
}

interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  scopes: readonly Scope[];
}

/** The same refusal whether the client is unknown, revoked or its secret wrong: nothing to probe. */
const CLIENT_REFUSED = 'Client authentication failed';

export function clientsService(db: Kysely<Database>) {
  const clients = clientsRepository(db);
  return {
    /** Creates a client; its secret is returned this once and only its SHA-256 hash is kept. */
    async create(orgId: string, options: { name?: string; scopes?: readonly Scope[] } = {}): Promise<{ secret: string; info: ClientInfo }> {
      const secret = newSecret(SECRET_PREFIXES.clientSecret);
      const row: OAuthClientRow = {
        org_id: orgId,
        id: newId(),
        name: options.name ?? 'OAuth client',
        secret_hash: hashSecret(secret),
        scopes: (options.scopes ?? DEFAULT_SCOPES).join(','),
        created_date: now(),
        last_used_date: null,
        revoked_date: null,
      };
      await clients.insert(row);
      return { secret, info: toInfo(row) };
    },

    async list(orgId: string): Promise<ClientInfo[]> {
      return (await clients.list(orgId)).map(toInfo);
    },

    /** Revokes the client and, in the same transaction, every token issued to it: they fail from their next request. */
    async revoke(clientId: string): Promise<ClientInfo | undefined> {
      const row = await clients.findById(clientId);
      if (!row) return undefined;
      await db.transaction().execute(async (trx) => {
        const at = now();
        await clientsRepository(trx).revoke(row.org_id, row.id, at);
        await tokensRepository(trx).revokeClientTokens(row.org_id, row.id, at);
      });
      return toInfo((await clients.findById(clientId))!);
    },

    /** The client whose id and secret these are, or the `invalid_client` refusal. */
    async authenticate(clientId: string, secret: string): Promise<ClientInfo> {
      // An id of another form names no client, and is not sent to the database (PostgreSQL refuses a NUL in it).
      const row = isId(clientId) ? await clients.findById(clientId) : undefined;
      const hash = Buffer.from(hashSecret(secret));
      if (!row || !timingSafeEqual(Buffer.from(row.secret_hash), hash) || row.revoked_date) throw oauthErrors.invalidClient(CLIENT_REFUSED);
      return toInfo(row);
    },

    /** Issues an expiring access token to an authenticated client, with `scopes` (already checked against the client's). */
    async issueToken(client: ClientInfo, scopes: readonly Scope[], lifetimeSeconds: number): Promise<IssuedToken> {
      const at = new Date();
      const issued = await db.transaction().execute(async (trx) => {
        await tokensRepository(trx).deleteExpiredClientTokens(client.orgId, client.id, now());
        await clientsRepository(trx).touch(client.orgId, client.id, now());
        return tokensService(trx).create(client.orgId, {
          name: client.name,
          scopes,
          expiresDate: new Date(at.getTime() + lifetimeSeconds * 1000),
          clientId: client.id,
        });
      });
      return { accessToken: issued.token, expiresIn: lifetimeSeconds, scopes };
    },
  };
}
