import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import { stringify } from 'safe-stable-stringify';
import type { Caller } from '../auth/caller.js';
import type { Database } from '../db/schema.js';
import { errors } from '../lib/errors.js';
import { SpooledUpload } from '../lib/spooled-upload.js';
import { idempotencyKeyStore, type Claim, type IdempotencyKeyStore, type KeyState, type StoredAnswer } from './key-store.js';

/**
 * `Idempotency-Key` on every POST of the API, as Stripe has it: a retry with the same key and the
 * same request (method, path, canonical body) within 24 hours gets the first answer again, with
 * `Idempotent-Replayed: true`, and writes nothing; the same key with another request is a 400. A
 * duplicate that arrives while the first request runs waits for its answer (up to `waitMs`, then 409
 * with Retry-After). Keys belong to the organization of the token.
 *
 * What is kept: the answer of a request that reached its handler, success or refusal (a 400 "is
 * already in use" replays as such). A request refused before (its body fails the schema, its token
 * is wrong, ...) keeps nothing, nor does one that fails on the server's side (5xx): the key is free
 * for the retry, corrected or not.
 */

const IDEMPOTENCY_HEADER = 'idempotency-key';
const REPLAYED_HEADER = 'Idempotent-Replayed';
const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;
const FIRST_PAUSE_MS = 20;
const LONGEST_PAUSE_MS = 250;
const DEFAULT_WAIT_MS = 10_000;

export interface IdempotencySettings {
  /** How long a duplicate waits for the request that holds its key before its 409; 10 s when absent. */
  waitMs?: number;
  /** The time in milliseconds; the system's when absent (tests move it past the 24 hours). */
  clock?: () => number;
}

/** What a POST answers: kept as it is for the replays of its key. */
export interface Answer<B = unknown> {
  status: number;
  location?: string;
  body?: B;
}

interface KeyedRequest {
  store: IdempotencyKeyStore;
  claim: Claim;
  settled: boolean;
}

const keyedRequests = new WeakMap<FastifyRequest, KeyedRequest>();

function requestHash(request: FastifyRequest): string {
  const { method, params, query, body } = request;
  // A file sent as it is (POST /imports, written to a temporary file as it arrived) counts by its bytes'
  // digest, and with its options, which are in the query; a JSON body's request has none.
  const file = body instanceof SpooledUpload;
  const content = file ? body.sha256 : (body ?? null);
  return createHash('sha256')
    .update(stringify([method, request.routeOptions.url, params ?? {}, content, ...(file ? [query] : [])]))
    .digest('hex');
}

/** The key's state for this request, once it is no longer held by another running request or `waitMs` have passed. */
async function claimWhenFree(store: IdempotencyKeyStore, orgId: string, key: string, hash: string, waitMs: number): Promise<KeyState> {
  const deadline = Date.now() + waitMs;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    const state = await store.claim(orgId, key, hash);
    if (state.kind !== 'running' || Date.now() + pause > deadline) return state;
    await sleep(pause);
  }
}

function replay(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  reply.code(answer.status).header(REPLAYED_HEADER, 'true');
  if (answer.location) reply.header('Location', answer.location);
  return answer.body === undefined ? reply.send() : reply.type('application/json; charset=utf-8').send(answer.body);
}

function keyOf(request: FastifyRequest): string | undefined {
  const key = request.headers[IDEMPOTENCY_HEADER];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY_FORMAT.test(key)) throw errors.invalidIdempotencyKey();
  return key;
}

/**
 * Adds the key's handling to every POST whose route `isApiPath` accepts (passed in from where the app is
 * assembled, which knows the API's prefixes): claim or replay before the handler, keep or free the key after.
 */
export function registerIdempotency(
  app: FastifyInstance,
  db: Kysely<Database>,
  isApiPath: (url: string) => boolean,
  settings: IdempotencySettings = {},
): void {
  const store = idempotencyKeyStore(db, settings.clock);
  const waitMs = settings.waitMs ?? DEFAULT_WAIT_MS;

  const claimKey: preHandlerAsyncHookHandler = async (request, reply) => {
    const key = keyOf(request);
    if (key === undefined) return;
    const state = await claimWhenFree(store, request.caller.orgId, key, requestHash(request), waitMs);
    if (state.kind === 'mismatch') throw errors.idempotencyKeyReused();
    if (state.kind === 'running') throw errors.idempotencyKeyInUse();
    if (state.kind === 'answered') return replay(reply, state.answer);
    keyedRequests.set(request, { store, claim: state.claim, settled: false });
  };

  // A refusal by the handler is kept like a success; a failure of the server frees the key.
  const settleKey: onSendAsyncHookHandler = async (request, reply, payload) => {
    const keyed = keyedRequests.get(request);
    if (!keyed) return payload;
    keyedRequests.delete(request);
    const status = reply.statusCode;
    if (status < 400 && keyed.settled) return payload;
    try {
      if (status >= 400 && status < 500) {
        await keyed.store.settle(db, keyed.claim, { status, ...(typeof payload === 'string' && payload ? { body: payload } : {}) });
      } else {
        if (status < 400) request.log.error('a POST answered without storing its Idempotency-Key; the key is freed');
        await keyed.store.release(keyed.claim);
      }
    } catch (error) {
      // The key stays claimed until its lease ends; the answer goes out all the same.
      request.log.warn({ err: error }, 'the Idempotency-Key could not be kept or freed');
    }
    return payload;
  };

  // Only a POST can carry a key: other routes do not pay for these hooks.
  app.addHook('onRoute', (route) => {
    if (route.method !== 'POST' || !isApiPath(route.url)) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), claimKey];
    route.onSend = [...[route.onSend ?? []].flat(), settleKey];
  });
}

/**
 * Runs a POST's work with the caller that carries its key (when the request has one), and returns
 * the answer made from the work's result. The service stores that answer with its write through
 * `caller.idempotentWrite`, in the write's transaction; `replayOf` makes what is stored for the
 * replays when they must not get all of it (a secret shown once).
 */
export async function idempotent<R, B>(
  request: FastifyRequest,
  answerOf: (result: R) => Answer<B>,
  work: (caller: Caller) => Promise<R>,
  replayOf: (answer: Answer<B>) => Answer = (answer) => answer,
): Promise<Answer<B>> {
  const keyed = keyedRequests.get(request);
  if (!keyed) return answerOf(await work(request.caller));
  const idempotentWrite = {
    async settle(trx: Kysely<Database>, result: unknown) {
      if (!trx.isTransaction) throw new Error('An Idempotency-Key must be stored in the transaction of its write');
      const { status, location, body } = replayOf(answerOf(result as R));
      await keyed.store.settle(trx, keyed.claim, {
        status,
        ...(location ? { location } : {}),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      keyed.settled = true;
    },
  };
  return answerOf(await work({ ...request.caller, idempotentWrite }));
}

export function sendAnswer(reply: FastifyReply, answer: Answer): FastifyReply {
  reply.code(answer.status);
  if (answer.location) reply.header('Location', answer.location);
  return answer.body === undefined ? reply.send() : reply.send(answer.body);
}
