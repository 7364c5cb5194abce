import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Actor } from '../lib/actors.js';
import { NotFound, PreconditionFailed } from '../lib/domain-errors.js';
import { sendJsonText } from './json-text.js';

/**
 * Conditional requests (RFC 9110 §13): a single item's GET carries a strong `ETag`, `If-None-Match`
 * turns it into a 304, and `If-Match` / `If-None-Match` make a PUT or DELETE apply only to the state
 * the client last read, so that two jobs changing one item never overwrite each other unknowingly.
 *
 * The entity tag is a hash of the item as the API renders it: the same function gives it for a GET
 * and, inside a write's transaction, for the item as it stands before the write.
 */

/** The strong entity tag of an item as the API renders it: any change of the representation changes it. */
export function entityTagOf(item: unknown): string {
  return entityTagOfJson(JSON.stringify(item));
}

/** The entity tag of an item answered as JSON text: the same as `entityTagOf` gives the item those bytes serialize. */
function entityTagOfJson(json: string): string {
  return `"${hash('sha256', json, 'base64url').slice(0, 27)}"`;
}

interface EntityTag {
  weak: boolean;
  /** With its quotes, as in the ETag header. */
  opaque: string;
}

/** `*`, or the entity tags listed; anything that is not an entity tag is skipped (and so matches nothing). */
function parseList(header: string): '*' | EntityTag[] {
  if (header.trim() === '*') return '*';
  return [...header.matchAll(/(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g)].map((match) => ({ weak: match[1] !== undefined, opaque: match[2]! }));
}

/** If-Match compares strongly: a weak tag never matches. `current` is undefined when the item does not exist. */
function ifMatchHolds(header: string, current: string | undefined): boolean {
  const list = parseList(header);
  if (current === undefined) return false;
  return list === '*' || list.some((tag) => !tag.weak && tag.opaque === current);
}

/**
 * Whether an If-Match header names `current` compared weakly (`*`, or a listed tag of the same opaque
 * value, weak or not): SCIM's rule for its versions, which are weak (RFC 7644 §3.14).
 */
export function ifMatchNamesWeakly(header: string, current: string): boolean {
  const list = parseList(header);
  const opaque = current.replace(/^W\//, '');
  return list === '*' || list.some((tag) => tag.opaque === opaque);
}

/** If-None-Match compares weakly: it holds when no listed tag names the current representation. */
function ifNoneMatchHolds(header: string, current: string | undefined): boolean {
  const list = parseList(header);
  if (current === undefined) return true;
  return list !== '*' && !list.some((tag) => tag.opaque === current);
}

/** A precondition header of the request, its repeated lines joined as one list. */
export function preconditionHeader(request: FastifyRequest, name: 'if-match' | 'if-none-match'): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * Answers a GET of one item: 200 with its ETag, or 304 with the ETag alone when the client's
 * If-None-Match names the representation it already holds.
 */
export function sendItem<T>(request: FastifyRequest, reply: FastifyReply, item: T): FastifyReply | T {
  return notModified(request, reply, entityTagOf(item)) ?? item;
}

/** `sendItem` for an item as JSON text (written by the database): answered as it is, without serializing it again. */
export function sendItemJson(request: FastifyRequest, reply: FastifyReply, json: string): FastifyReply {
  return notModified(request, reply, entityTagOfJson(json)) ?? sendJsonText(reply, json);
}

/** Sets the ETag; the 304 when the client's If-None-Match names it, otherwise undefined. */
function notModified(request: FastifyRequest, reply: FastifyReply, tag: string): FastifyReply | undefined {
  // Lower case, as Fastify keeps header names (plugins/security-headers.ts says why).
  reply.header('etag', tag);
  const ifNoneMatch = preconditionHeader(request, 'if-none-match');
  return ifNoneMatch !== undefined && !ifNoneMatchHolds(ifNoneMatch, tag) ? reply.code(304).send() : undefined;
}

/** Runs `work` with the resource's service and repositories over one unit of work of `actor`'s (the item read, compared and written in it). */
export type WithinTransaction<S> = <T>(actor: Actor, work: (service: S, trx: Kysely<Database>) => Promise<T>) => Promise<T>;

interface ConditionalWrite<S> {
  /** The plain service, for a write without preconditions: exactly what it does without this module. */
  service: S;
  transaction: WithinTransaction<S>;
  /** Locks what serializes writes to the item (its row) until the transaction ends. */
  lock: (trx: Kysely<Database>) => Promise<void>;
  /** The item as a GET answers it; a 404 means that it does not exist. */
  read: (service: S) => Promise<unknown>;
  write: (service: S) => Promise<void>;
  /** The write creates the item when it does not exist (a PUT that defines it), instead of answering 404. */
  createsMissing?: boolean;
}

/** The item, or undefined when its GET would answer 404. */
async function currentTagOf(read: () => Promise<unknown>): Promise<string | undefined> {
  try {
    return entityTagOf(await read());
  } catch (error) {
    if (error instanceof NotFound) return undefined;
    throw error;
  }
}

/**
 * A PUT or DELETE under the client's preconditions. Without If-Match and If-None-Match it is the
 * plain write. With them, the item is locked, read and compared, then written, all in one
 * transaction: of two writers holding the same ETag, exactly one succeeds and the other gets 412.
 * As RFC 9110 §13.2.1 asks, the preconditions of a write that would answer 404 anyway are ignored.
 */
export async function writeIfUnchanged<S>(request: FastifyRequest, conditional: ConditionalWrite<S>): Promise<void> {
  const ifMatch = preconditionHeader(request, 'if-match');
  const ifNoneMatch = preconditionHeader(request, 'if-none-match');
  if (ifMatch === undefined && ifNoneMatch === undefined) return conditional.write(conditional.service);
  await conditional.transaction(request.caller.actor, async (service, trx) => {
    await conditional.lock(trx);
    const current = await currentTagOf(() => conditional.read(service));
    if (current === undefined && !conditional.createsMissing) throw new NotFound();
    if (ifMatch !== undefined && !ifMatchHolds(ifMatch, current)) throw new PreconditionFailed(ifMatchRefusal(current));
    if (ifNoneMatch !== undefined && !ifNoneMatchHolds(ifNoneMatch, current)) throw new PreconditionFailed(IF_NONE_MATCH_REFUSAL);
    await conditional.write(service);
  });
}

const IF_NONE_MATCH_REFUSAL = 'If-None-Match names the current version of the item: it exists and was not changed';

function ifMatchRefusal(current: string | undefined): string {
  return current === undefined
    ? 'If-Match asks for an existing item, and it does not exist'
    : `If-Match does not name the current version of the item: it changed since it was read (its ETag is now ${current})`;
}
