import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Caller } from './caller.js';
import { DEFAULT_SCOPES, type Scope } from './scopes.js';
import { hashSecret, isWellFormedAccessToken, newSecret, SECRET_PREFIXES } from './secrets.js';
import type { Database } from '../db/schema.js';
import { inTransaction } from '../db/unit-of-work.js';
import type { RevocationWatch } from '../db/token-revocations.js';
import { SERVER_ACTOR, type Actor } from '../lib/actors.js';
import { Unauthenticated } from '../lib/domain-errors.js';
import { newId } from '../lib/ids.js';
import { now, toTimestamp } from '../lib/time.js';
import { tokensRepository, type AccessTokenRow } from './tokens.repository.js';

/** How stale `last_used_date` may get before a request writes it again (keeps GETs free of writes). */
const LAST_USED_RESOLUTION_MS = 60_000;
/** How long a resolved token is kept at most, should a revocation notice ever be missed. */
const RESOLVED_TOKEN_MAX_AGE_MS = 10_000;
/** Most tokens kept; beyond it the oldest are forgotten (they are simply looked up again). */
const RESOLVED_TOKENS_MAX = 10_000;

interface TokenInfo {
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

interface NewToken {
  name?: string;
  scopes?: readonly Scope[];
  expiresDate?: Date;
  /** Issued to this OAuth client (an `tpo_` token, revoked with the client). */
  clientId?: string;
}

interface ResolvedToken {
  row: AccessTokenRow;
  resolvedAt: number;
}

/** What every request with a token reads of its row, worked out once per row (a kept row serves many requests). */
interface RowFacts {
  /** Frozen, since requests share it. */
  caller: Caller;
  /** In ms since the epoch; Infinity for a token that never expires. */
  expiresAt: number;
  /** In ms since the epoch; NaN when never used. */
  lastUsedAt: number;
}

/**
 * Who acts with the token: the token itself, by its name, or the OAuth client it was issued to (its
 * tokens carry the client's name). SCIM's requests name the token as SCIM (scim.plugin.ts).
 */
function actorOfToken(row: AccessTokenRow): Actor {
  return row.client_id ? { type: 'oauthClient', id: row.client_id, name: row.name } : { type: 'token', id: row.id, name: row.name };
}

const rowFacts = new WeakMap<AccessTokenRow, RowFacts>();
function factsOf(row: AccessTokenRow): RowFacts {
  let facts = rowFacts.get(row);
  if (!facts) {
    const caller = Object.freeze({
      orgId: row.org_id,
      tokenId: row.id,
      ...(row.client_id ? { clientId: row.client_id } : {}),
      scopes: Object.freeze(row.scopes.split(',') as Scope[]),
      actor: Object.freeze(actorOfToken(row)),
    });
    const expiresAt = row.expires_date ? Date.parse(row.expires_date) : Number.POSITIVE_INFINITY;
    facts = { caller, expiresAt, lastUsedAt: row.last_used_date ? Date.parse(row.last_used_date) : Number.NaN };
    rowFacts.set(row, facts);
  }
  return facts;
}

/**
 * With a revocation watch, the token check keeps what it resolved (by hash) for as long as no token
 * has been revoked anywhere, so most requests cost no lookup; without one, every request looks up.
 */
export function tokensService(db: Kysely<Database>, revocations?: RevocationWatch) {
  const tokens = tokensRepository(db);
  const resolved = new Map<string, ResolvedToken>();
  let resolvedEpoch: number | undefined;

  /** The token's row if it is kept (resolved before, and no token revoked anywhere since). */
  function keptRow(hash: string): AccessTokenRow | undefined {
    const epoch = revocations?.epoch();
    if (epoch !== resolvedEpoch) {
      resolved.clear();
      resolvedEpoch = epoch;
    }
    const kept = resolved.get(hash);
    return kept && Date.now() - kept.resolvedAt < RESOLVED_TOKEN_MAX_AGE_MS ? kept.row : undefined;
  }

  /** The token's row, looked up (and kept when a watch says when to forget it). */
  async function lookUp(hash: string): Promise<AccessTokenRow | undefined> {
    // The epoch as read just before the lookup (keptRow). A revocation noticed while the lookup ran moved
    // it: the row read may predate that revocation, and is not kept (the next request looks it up again).
    const epoch = resolvedEpoch;
    const row = await tokens.findByHash(hash);
    if (!row || !timingSafeEqual(Buffer.from(row.token_hash), Buffer.from(hash))) return undefined;
    if (epoch !== undefined && epoch === resolvedEpoch && !row.revoked_date) {
      resolved.delete(hash);
      if (resolved.size >= RESOLVED_TOKENS_MAX) resolved.delete(resolved.keys().next().value!);
      resolved.set(hash, { row, resolvedAt: Date.now() });
    }
    return row;
  }

  /** The caller of a usable token's row, or the Unauthenticated refusal that says why not; waits only when the last use must be written. */
  function callerOf(row: AccessTokenRow | undefined): Caller | Promise<Caller> {
    if (!row) throw new Unauthenticated('The access token is invalid');
    if (row.revoked_date) throw new Unauthenticated('The access token has been revoked');
    const facts = factsOf(row);
    const at = Date.now();
    if (facts.expiresAt <= at) throw new Unauthenticated('The access token has expired');
    if (at - facts.lastUsedAt < LAST_USED_RESOLUTION_MS) return facts.caller;
    const stamp = now();
    return tokens.touch(row.org_id, row.id, stamp).then(() => {
      row.last_used_date = stamp;
      facts.lastUsedAt = Date.parse(stamp);
      return facts.caller;
    });
  }

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

    async find(tokenId: string): Promise<TokenInfo | undefined> {
      const row = await tokens.findById(tokenId);
      return row && toInfo(row);
    },

    /**
     * Replaces a token by a new one with its organization, name, scopes and expiry, and revokes it, in one
     * transaction. A revoked token is not brought back to life this way.
     */
    async rotate(tokenId: string): Promise<{ token: string; info: TokenInfo } | 'unknown' | 'revoked'> {
      // Its units of work record no change of the change stream: the actor is the server's.
      return inTransaction(db, SERVER_ACTOR, async (trx) => {
        const row = await tokensRepository(trx).findById(tokenId);
        if (!row) return 'unknown';
        if (row.revoked_date) return 'revoked';
        const replacement = await tokensService(trx).create(row.org_id, {
          name: row.name,
          scopes: row.scopes.split(',') as Scope[],
          ...(row.expires_date ? { expiresDate: new Date(row.expires_date) } : {}),
        });
        await tokensRepository(trx).revoke(row.org_id, row.id, now());
        return replacement;
      });
    },

    /**
     * Revokes by id; returns undefined when no such token exists (in `orgId`, when given: the console's
     * administrators revoke their organization's tokens only). Effective on the next request.
     */
    async revoke(tokenId: string, orgId?: string): Promise<TokenInfo | undefined> {
      const row = await tokens.findById(tokenId);
      if (!row || (orgId !== undefined && row.org_id !== orgId)) return undefined;
      await tokens.revoke(row.org_id, row.id, now());
      return toInfo((await tokens.findById(tokenId))!);
    },

    /**
     * Resolves a bearer token to its caller, or throws the Unauthenticated refusal that says why not. A token that cannot
     * be one of ours is refused without a lookup; a kept one is answered at once, without a promise
     * (the common case: most requests come with a token already seen); any other costs exactly one
     * lookup, by its hash.
     */
    authenticate(token: string): Caller | Promise<Caller> {
      if (!isWellFormedAccessToken(token)) throw new Unauthenticated('The access token is invalid');
      const hash = hashSecret(token);
      const kept = keptRow(hash);
      return kept ? callerOf(kept) : lookUp(hash).then(callerOf);
    },
  };
}
