import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Actor } from '../lib/actors.js';
import type { Scope } from './scopes.js';

/**
 * The Idempotency-Key of the request, when it carries one: the service that makes the request's
 * write calls `settle` last in the write's transaction with what it returns (the new id), and the
 * key's answer is stored and committed (or rolled back) with the write.
 */
interface IdempotentWrite {
  settle(trx: Kysely<Database>, result: unknown): Promise<void>;
}

/** Who is calling: every service method takes this first, and every query is scoped by its orgId. */
export interface Caller {
  orgId: string;
  tokenId: string;
  /** The OAuth client the token was issued to, when it came from POST /oauth/token. */
  clientId?: string;
  scopes: readonly Scope[];
  /** Who acts, as the change stream records it with each event the caller's changes make. */
  actor: Actor;
  /** Set on a POST that carries an Idempotency-Key (see idempotency/idempotency.plugin.ts). */
  idempotentWrite?: IdempotentWrite;
}

/**
 * Turns the secret a request presents into its caller, or throws (or rejects with) the 401 that says
 * why not; answers at once, without a promise, when it can.
 */
export interface Authenticator {
  authenticate(token: string): Caller | Promise<Caller>;
}
