import { timingSafeEqual } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Caller } from './caller.js';
import { DEFAULT_SCOPES, type Scope } from './scopes.js';
import { hashSecret, isWellFormedAccessToken, newSecret, SECRET_PREFIXES } from './secrets.js';
import type { Database } from '../db/schema.js';
import { isPostgres } from '../db/locking.js';
import { inTransaction } from '../db/unit-of-work.js';
import type { RevocationWatch } from '../db/token-revocations.js';
import { SERVER_ACTOR, type Actor } from '../lib/actors.js';
import { Unauthenticated } from '../lib/domain-errors.js';
import { newId } from '../lib/ids.js';
import { now, toTimestamp } from '../lib/time.js';
import { tokensRepository, type AccessTokenRow } from './tokens.repository.js';

/** How stale `last_used_date` may get before a request writes it again (keeps GETs free of writes). */
const LAST_USED_RESOLUTION_MS = 60_000;
/**
 * How long the last uses noted are gathered before they are written, together: the request that notes one
 * does not wait for it, and a burst of first uses (every token of a fleet in the first seconds) costs a
 * commit a second rather than one each. Shown last uses stay within the resolution above plus this.
 */
const LAST_USED_GATHER_MS = 1000;
/** Most last uses written by one statement (PostgreSQL) or turn (SQLite). */
const LAST_USED_CHUNK = 500;
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

interface TokensServiceOptions {
  /** How long last uses are gathered before they are written (LAST_USED_GATHER_MS). */
  lastUseGatherMs?: number;
}

/** A last use noted and not yet written. */
interface PendingUse {
  orgId: string;
  id: string;
  stamp: string;
  /** Put back when the write fails, so that a later request notes the use again. */
  undo(): void;
}

/**
 * With a revocation watch, the token check keeps what it resolved (by hash) for as long as no token
 * has been revoked anywhere, so most requests cost no lookup; without one, every request looks up.
 * Last uses are written in the background, gathered (`flushLastUses` writes what is gathered at once).
 */
export function tokensService(db: Kysely<Database>, revocations?: RevocationWatch, options: TokensServiceOptions = {}) {
  const tokens = tokensRepository(db);
  const resolved = new Map<string, ResolvedToken>();
  let resolvedEpoch: number | undefined;
  const gatherMs = options.lastUseGatherMs ?? LAST_USED_GATHER_MS;
  /** Last uses to write, by token id. */
  let pending = new Map<string, PendingUse>();
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<unknown> = Promise.resolve();

  /**
   * Writes last uses together: on PostgreSQL one statement (an update joined to their values), on SQLite one
   * update each, issued in the same turn, so that they commit together (sqlite-dialect.ts).
   */
  async function touchAll(uses: readonly PendingUse[]): Promise<void> {
    if (uses.length === 1 || !isPostgres(db)) {
      await Promise.all(uses.map((use) => tokens.touch(use.orgId, use.id, use.stamp)));
      return;
    }
    const values = sql.join(uses.map((use) => sql`(${use.orgId}, ${use.id}, ${use.stamp})`));
    await sql`update access_tokens as t set last_used_date = v.stamp from (values ${values}) as v (org_id, id, stamp)
      where t.org_id = v.org_id and t.id = v.id`.execute(db);
  }

  /** Writes the gathered last uses, LAST_USED_CHUNK at a time in key order; resolves to how many were written. */
  async function flushLastUses(): Promise<number> {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    const uses = [...pending.values()].sort((a, b) => (a.orgId === b.orgId ? (a.id < b.id ? -1 : 1) : a.orgId < b.orgId ? -1 : 1));
    pending = new Map();
    // One flush at a time, so that two never lock the same rows in opposite orders.
    const written = flushing.then(async () => {
      let count = 0;
      for (let start = 0; start < uses.length; start += LAST_USED_CHUNK) {
        const chunk = uses.slice(start, start + LAST_USED_CHUNK);
        try {
          await touchAll(chunk);
          count += chunk.length;
        } catch {
          // Not written: the next request with each of these tokens notes its use again.
          for (const use of chunk) use.undo();
        }
      }
      return count;
    });
    flushing = written;
    return written;
  }

  /**
   * When this process last noted each token's use (written or waiting): concurrent first requests look the
   * row up apart, and a row is looked up again every few seconds, so the row's own figure is not enough.
   */
  const lastNoted = new Map<string, number>();

  /** Notes a token's use, to be written with the others gathered; the request does not wait for it. */
  function noteUse(row: AccessTokenRow, facts: RowFacts, at: number): void {
    const stamp = toTimestamp(new Date(at));
    if (lastNoted.size >= RESOLVED_TOKENS_MAX) {
      for (const [id, noted] of lastNoted) if (at - noted >= LAST_USED_RESOLUTION_MS) lastNoted.delete(id);
      if (lastNoted.size >= RESOLVED_TOKENS_MAX) lastNoted.clear();
    }
    lastNoted.set(row.id, at);
    row.last_used_date = stamp;
    facts.lastUsedAt = at;
    pending.set(row.id, {
      orgId: row.org_id,
      id: row.id,
      stamp,
      undo: () => {
        if (lastNoted.get(row.id) === at) lastNoted.delete(row.id);
      },
    });
    if (!flushTimer) {
      flushTimer = setTimeout(() => void flushLastUses(), gatherMs);
      flushTimer.unref();
    }
  }

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

  /** The caller of a usable token's row, or the Unauthenticated refusal that says why not; notes its use when the last one written is stale. */
  function callerOf(row: AccessTokenRow | undefined): Caller {
    if (!row) throw new Unauthenticated('The access token is invalid');
    if (row.revoked_date) throw new Unauthenticated('The access token has been revoked');
    const facts = factsOf(row);
    const at = Date.now();
    if (facts.expiresAt <= at) throw new Unauthenticated('The access token has expired');
    if (at - facts.lastUsedAt < LAST_USED_RESOLUTION_MS) return facts.caller;
    // Another row of the token (looked up apart) may have noted a later use; never used, lastUsedAt is NaN.
    const noted = lastNoted.get(row.id);
    if (noted !== undefined && !(noted <= facts.lastUsedAt)) facts.lastUsedAt = noted;
    if (!(at - facts.lastUsedAt < LAST_USED_RESOLUTION_MS)) noteUse(row, facts, at);
    return facts.caller;
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

    /** Writes the last uses gathered now (at shutdown, and in tests); resolves to how many tokens' were written. */
    flushLastUses,
  };
}
