import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.js';
import { DEFAULT_SCOPES, type Scope } from '../../auth/scopes.js';
import { hashSecret, isWellFormedAccessToken, newSecret, SECRET_PREFIXES } from '../../auth/secrets.js';
import type { Database } from '../../db/schema.js';
import { errors } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { now, toTimestamp } from '../../lib/time.js';
import { tokensRepository, type AccessTokenRow } from './tokens.repository.js';

/** How stale `last_used_date` may get before a request writes it again (keeps GETs free of writes). */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface TokenInfo {
  id: string;
  orgId: string;
  name: string;
  scopes: Scope[];
  createdDate: string;
  lastUsedDate?: string;
  expiresDate?: string;
  revokedDate?: string;
}

function toInfo(row: AccessTokenRow): TokenInfo {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    scopes: row.scopes.split(',') as Scope[],
    createdDate: row.created_date,
    ...(row.last_used_date ? { lastUsedDate: row.last_used_date } : {}),
    ...(row.expires_date ? { expiresDate: row.expires_date } : {}),
    ...(row.revoked_date ? { revokedDate: row.revoked_date } : {}),
  };
}

export interface NewToken {
  name?: string;
  scopes?: readonly Scope[];
  expiresDate?: Date;
  /** Issued to this OAuth client (an `tpo_` token, revoked with the client). */
  clientId?: string;
}

export function tokensService(db: Kysely<Database>) {
  const tokens = tokensRepository(db);
  return {
    /** Creates a token; the secret is returned this once and only its SHA-256 hash is kept. */
    async create(orgId: string, options: NewToken = {}): Promise<{ token: string; info: TokenInfo }> {
      const token = newSecret(options.clientId ? SECRET_PREFIXES.oauthToken : SECRET_PREFIXES.apiToken);
      const row: AccessTokenRow = {
        org_id: orgId,
        id: newId(),
        name: options.name ?? 'API token',
        token_hash: hashSecret(token),
        scopes: (options.scopes ?? DEFAULT_SCOPES).join(','),
        created_date: now(),
        last_used_date: null,
        expires_date: options.expiresDate ? toTimestamp(options.expiresDate) : null,
        revoked_date: null,
        client_id: options.clientId ?? null,
      };
      await tokens.insert(row);
      return { token, info: toInfo(row) };
    },

    async list(orgId: string): Promise<TokenInfo[]> {
      return (await tokens.list(orgId)).map(toInfo);
    },

    /** Revokes by id; returns undefined when no such token exists. Effective on the next request. */
    async revoke(tokenId: string): Promise<TokenInfo | undefined> {
      const row = await tokens.findById(tokenId);
      if (!row) return undefined;
      await tokens.revoke(row.org_id, row.id, now());
      return toInfo((await tokens.findById(tokenId))!);
    },

    /**
     * Resolves a bearer token to its caller, or throws the 401 that says why not. A token that cannot
     * be one of ours is refused without a lookup; any other costs exactly one, by its hash.
     */
    async authenticate(token: string): Promise<Caller> {
      if (!isWellFormedAccessToken(token)) throw errors.invalidToken('The access token is invalid');
      const hash = hashSecret(token);
      const row = await tokens.findByHash(hash);
      if (!row || !timingSafeEqual(Buffer.from(row.token_hash), Buffer.from(hash))) {
        throw errors.invalidToken('The access token is invalid');
      }
      const at = now();
      if (row.revoked_date) throw errors.invalidToken('The access token has been revoked');
      if (row.expires_date && row.expires_date <= at) throw errors.invalidToken('The access token has expired');
      if (!row.last_used_date || Date.parse(at) - Date.parse(row.last_used_date) >= LAST_USED_RESOLUTION_MS) {
        await tokens.touch(row.org_id, row.id, at);
      }
      return {
        orgId: row.org_id,
        tokenId: row.id,
        ...(row.client_id ? { clientId: row.client_id } : {}),
        scopes: row.scopes.split(',') as Scope[],
      };
    },
  };
}

export type TokensService = ReturnType<typeof tokensService>;
