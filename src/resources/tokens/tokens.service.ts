import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.js';
import { SCOPES, type Scope } from '../../auth/scopes.js';
import type { Database } from '../../db/schema.js';
import { errors } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { now, toTimestamp } from '../../lib/time.js';
import { tokensRepository, type AccessTokenRow } from './tokens.repository.js';

/** How stale `last_used_date` may get before a request writes it again (keeps GETs free of writes). */
const LAST_USED_RESOLUTION_MS = 60_000;

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

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

export function tokensService(db: Kysely<Database>) {
  const tokens = tokensRepository(db);
  return {
    /** Creates a token; the secret is returned this once and only its SHA-256 hash is kept. */
    async create(orgId: string, options: { name?: string; scopes?: Scope[]; expiresDate?: Date } = {}): Promise<{ token: string; info: TokenInfo }> {
      const token = `tpa_${randomBytes(32).toString('base64url')}`;
      const row: AccessTokenRow = {
        org_id: orgId,
        id: newId(),
        name: options.name ?? 'API token',
        token_hash: hashToken(token),
        scopes: (options.scopes ?? [...SCOPES]).join(','),
        created_date: now(),
        last_used_date: null,
        expires_date: options.expiresDate ? toTimestamp(options.expiresDate) : null,
        revoked_date: null,
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

    /** Resolves a bearer token to its caller, or throws the 401 that says why not. */
    async authenticate(token: string): Promise<Caller> {
      const hash = hashToken(token);
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
      return { orgId: row.org_id, tokenId: row.id, scopes: row.scopes.split(',') as Scope[] };
    },
  };
}

export type TokensService = ReturnType<typeof tokensService>;
