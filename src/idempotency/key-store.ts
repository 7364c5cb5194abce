import type { Kysely } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../db/schema.js';
import { errors } from '../lib/errors.js';
import { newId } from '../lib/ids.js';

/** How long a key is remembered: a retry within this replays the first answer. */
export const KEY_RETENTION_MS = 24 * 3_600_000;
/**
 * How long a claim holds off others without an answer. A request still running after this (or one
 * whose server died) loses its key to the next retry; its own write then rolls back (see `settle`).
 */
export const CLAIM_LEASE_MS = 60_000;

/** What a POST answered, as kept for its replays. */
export interface StoredAnswer {
  status: number;
  location?: string;
  /** JSON text. */
  body?: string;
}

/** A request that holds its key: it runs, and stores its answer in the end. */
export interface Claim {
  orgId: string;
  key: string;
  claimId: string;
}

/** What a key says about a request that presents it. */
export type KeyState =
  | { kind: 'claimed'; claim: Claim }
  | { kind: 'answered'; answer: StoredAnswer }
  /** The key named another request. */
  | { kind: 'mismatch' }
  /** Another request with the key is still running. */
  | { kind: 'running' };

const instant = (ms: number) => new Date(ms).toISOString();

function answerOf(row: IdempotencyKeysTable): StoredAnswer {
  return { status: row.status!, ...(row.location ? { location: row.location } : {}), ...(row.body ? { body: row.body } : {}) };
}

/**
 * The keys of one database. Every query names the organization: another organization's key of the
 * same text is another key. `clock` gives the time in milliseconds (tests move it forward).
 */
export function idempotencyKeyStore(db: Kysely<Database>, clock: () => number = Date.now) {
  const keyRow = (orgId: string, key: string) => db.selectFrom('idempotency_keys').selectAll().where('org_id', '=', orgId).where('key', '=', key);

  /** Takes the key for this request if it is free, expired or abandoned; else says why not. */
  async function claim(orgId: string, key: string, requestHash: string): Promise<KeyState> {
    const now = clock();
    const fresh = { request_hash: requestHash, claim_id: newId(), claimed_at: instant(now), created_at: instant(now) };
    const claimed: KeyState = { kind: 'claimed', claim: { orgId, key, claimId: fresh.claim_id } };
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({ org_id: orgId, key, ...fresh, status: null, location: null, body: null })
      .onConflict((conflict) => conflict.columns(['org_id', 'key']).doNothing())
      .executeTakeFirst();
    if (inserted.numInsertedOrUpdatedRows === 1n) return claimed;

    const row = await keyRow(orgId, key).executeTakeFirst();
    if (!row) return claim(orgId, key, requestHash); // released meanwhile
    const expired = row.created_at < instant(now - KEY_RETENTION_MS);
    if (!expired && row.request_hash !== requestHash) return { kind: 'mismatch' };
    if (!expired && row.status !== null) return { kind: 'answered', answer: answerOf(row) };
    if (!expired && row.claimed_at >= instant(now - CLAIM_LEASE_MS)) return { kind: 'running' };
    // Expired, or abandoned by a request that never answered: taken over, by one request only (the
    // claim id changes with every claim).
    const replacement = expired ? fresh : { claim_id: fresh.claim_id, claimed_at: fresh.claimed_at };
    const taken = await db
      .updateTable('idempotency_keys')
      .set({ ...replacement, status: null, location: null, body: null })
      .where('org_id', '=', orgId)
      .where('key', '=', key)
      .where('claim_id', '=', row.claim_id)
      .executeTakeFirst();
    return taken.numUpdatedRows === 1n ? claimed : claim(orgId, key, requestHash);
  }

  /**
   * Stores the answer of a claimed request, in the transaction `trx` of the write it made when it
   * made one: the key then holds its answer exactly when the write committed. Fails (and so rolls
   * back the write) when the claim was lost to a retry meanwhile.
   */
  async function settle(trx: Kysely<Database>, claim: Claim, answer: StoredAnswer): Promise<void> {
    const result = await trx
      .updateTable('idempotency_keys')
      .set({ status: answer.status, location: answer.location ?? null, body: answer.body ?? null })
      .where('org_id', '=', claim.orgId)
      .where('key', '=', claim.key)
      .where('claim_id', '=', claim.claimId)
      .where('status', 'is', null)
      .executeTakeFirst();
    if (result.numUpdatedRows !== 1n) throw errors.idempotencyKeyInUse();
  }

  /** Frees the key of a request that failed on the server's side, for the client to try again. */
  async function release(claim: Claim): Promise<void> {
    await db
      .deleteFrom('idempotency_keys')
      .where('org_id', '=', claim.orgId)
      .where('key', '=', claim.key)
      .where('claim_id', '=', claim.claimId)
      .where('status', 'is', null)
      .execute();
  }

  return { claim, settle, release };
}

export type IdempotencyKeyStore = ReturnType<typeof idempotencyKeyStore>;

/** Deletes the keys older than the retention period, every organization's (a periodic job). */
export async function pruneIdempotencyKeys(db: Kysely<Database>, now = Date.now()): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', instant(now - KEY_RETENTION_MS))
    .execute();
}
