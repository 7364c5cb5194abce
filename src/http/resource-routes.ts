import type { Static, TNever, TSchema } from '@sinclair/typebox';
import type { FastifyRequest, FastifySchema, RouteShorthandOptions } from 'fastify';
import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import type { Scope } from '../auth/scopes.js';
import type { Database } from '../db/schema.js';
import { Page, pagingOf, type JsonItems, type Paging } from '../lib/paging.js';
import type { ApiTag } from '../lib/openapi.js';
import { CREATED, ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE, NOT_MODIFIED, NO_CONTENT, PRECONDITION_FAILED } from '../lib/schema.js';
import { idempotent, sendAnswer } from '../idempotency/idempotency.plugin.js';
import type { ApiInstance } from './api-instance.js';
import { sendItem, sendItemJson, writeIfUnchanged, type WithinTransaction } from './conditional-requests.js';
import { sendJsonText } from './json-text.js';
import { pageJsonOf, pageOf } from './paging.js';
import { itemUrl } from './urls.js';
import { filtersByUpdatedDate, WATERMARK_HEADER } from './watermark.js';

/**
 * The routes every resource spells the same way, registered from a definition so that each one
 * keeps the same URLs, status codes, headers and documented responses:
 *
 * - `collectionRoutes`: a collection under `/{collection}` (list, get, create, update, delete);
 * - `itemRoutes`: one thing at a fixed URL that is read with GET and, optionally, written with PUT
 *   (`/agreements/{type}`, `/users/{id}/userfieldvalues`, ...).
 *
 * Each route's OpenAPI `operationId` is the definition's `name` and the route's verb: `users.list`,
 * `users.get`, `users.create`, `users.update`, `users.delete` for a collection, `userfieldValues.get`
 * and `userfieldValues.replace` for one thing at a fixed URL. Routes written by hand name theirs the
 * same way (`webhooks.test`).
 *
 * Single items carry an ETag and honour If-None-Match on GET, If-Match and If-None-Match on PUT and
 * DELETE (see conditional-requests.ts).
 *
 * Each route of a definition says what it needs of a token (`scope`), which becomes its `config.scope`:
 * the authentication plugin checks it, and the OpenAPI document states it as the operation's `security`.
 *
 * Request types flow from the schemas (`Static<>`) into the service calls; the casts below only
 * hand those types over from Fastify's type provider, which cannot resolve generic schemas.
 */

type SchemaErrorFormatter = NonNullable<RouteShorthandOptions['schemaErrorFormatter']>;

/** What a route declares of itself: what the OpenAPI document says of it, and the scope a token needs for it. */
interface Documented {
  /** The operation's summary in the OpenAPI document: one line. */
  summary: string;
  /** What a client needs to know to call it: what it answers, what it changes, when it refuses. */
  description: string;
  /** The scope a token needs: `read` for an operation that only reads, `write` for one that changes something. */
  scope: Scope;
}

/** What every route of a definition shares in the OpenAPI document. */
interface Named {
  /** The resource's name in operation ids, in camelCase (`userfieldValues` → `userfieldValues.get`). */
  name: string;
  /** The section of the document its routes belong to. */
  tag: ApiTag;
}

/** The OpenAPI `operationId` of a route: `users.list`. */
export function operationId(name: string, verb: string): string {
  return `${name}.${verb}`;
}

/** The OpenAPI fields that place and describe a route in the document. */
function placed({ name, tag }: Named, verb: string, { summary, description }: Documented): FastifySchema {
  return { operationId: operationId(name, verb), tags: [tag.name], summary, description };
}

/** A PUT that answers 204; a custom formatter may word the refusal of its body. */
interface Writing<B extends TSchema> extends Documented {
  body: B;
  schemaErrorFormatter?: SchemaErrorFormatter;
}

/**
 * Locks, until the transaction ends, what serializes the writes to one item (its row; for items of
 * an ordered list, the organization's ordering lock that every write to the list takes first).
 */
type ItemLock<P> = (trx: Kysely<Database>, orgId: string, params: P) => Promise<unknown>;

/** The service of a standard collection: create, update and delete only where the definition has those routes. */
interface CollectionService<I extends TSchema, Q extends TSchema, C extends TSchema, U extends TSchema> {
  list: (caller: Caller, query: Static<Q>, paging: Paging) => Promise<Static<I>[]>;
  /**
   * The same page as `list`, its items as JSON text the database wrote, answered without serializing
   * them again; undefined for a page it does not write so, which `list` then answers.
   */
  listJson?: (caller: Caller, query: Static<Q>, paging: Paging) => Promise<JsonItems | undefined>;
  get: (caller: Caller, id: string) => Promise<Static<I>>;
  /**
   * The item `get` answers, as JSON text the database wrote, answered without serializing it again;
   * undefined where the database does not write it so, and `get` then answers. Throws as `get` does.
   */
  getJson?: (caller: Caller, id: string) => Promise<string | undefined>;
  /** Returns the new item's id (the Location of the 201). */
  create?: (caller: Caller, input: Static<C>) => Promise<string>;
  update?: (caller: Caller, id: string, input: Static<U>) => Promise<void>;
  delete?: (caller: Caller, id: string) => Promise<void>;
}

interface CollectionDefinition<I extends TSchema, Q extends TSchema, C extends TSchema, U extends TSchema> extends Named {
  /** The path segment of the collection (`users`), also that of the Location of a created item. */
  collection: string;
  /** An item as the API answers it. */
  item: I;
  service: CollectionService<I, Q, C, U>;
  /** The service over one transaction, and the lock of an item: for PUT and DELETE under If-Match or If-None-Match. */
  transaction?: WithinTransaction<Pick<CollectionService<I, Q, C, U>, 'get' | 'update' | 'delete'>>;
  lock?: ItemLock<{ id: string }>;
  /** GET /{collection}: a page of items, filtered by the query (a ListQuery: limit, offset and filters). */
  list: Documented & { query: Q };
  /** GET /{collection}/{id}. */
  get: Documented;
  /** POST /{collection}: 201 with the Location of the new item. */
  create?: Documented & { body: C };
  /** PUT /{collection}/{id}: 204. */
  update?: Writing<U>;
  /** DELETE /{collection}/{id}: 204; `refusable` documents the 400 of a deletion the service may refuse. */
  delete?: Documented & { refusable?: boolean };
}

/** The service method a defined route calls (called on the service, as `service.create(...)` would be). */
function required<F>(method: F | undefined, collection: string, name: string): F {
  if (!method) throw new Error(`The ${collection} routes define ${name} but their service has no ${name} method`);
  return method;
}

/** What a list route is handed: its query (limit, offset and filters) with the paging taken from it. */
interface ListRequest<P extends TSchema, Q extends TSchema> {
  params: Static<P>;
  query: Static<Q>;
  paging: Paging;
}

/**
 * GET of a paged list: the envelope of v5 (`results`, `next`, `prev`), 400 for a refused query, and
 * 404 when a path parameter names nothing (`/users/{id}/agreements`). A list that filters by
 * `updatedDate` answers its watermark too (see watermark.ts).
 */
export function listRoute<P extends TSchema, Q extends TSchema, I extends TSchema>(
  app: ApiInstance,
  url: string,
  definition: Documented & Named & { params?: P; query: Q; item: I },
  list: (caller: Caller, request: ListRequest<P, Q>) => Promise<Static<I>[]>,
  listJson?: (caller: Caller, request: ListRequest<P, Q>) => Promise<JsonItems | undefined>,
): void {
  const { params, query, item } = definition;
  const schema: FastifySchema = {
    ...placed(definition, 'list', definition),
    querystring: query,
    response: params ? { 200: Page(item), 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE } : { 200: Page(item), 400: ERROR_RESPONSE },
    ...(params ? { params } : {}),
  };
  const watermarked = filtersByUpdatedDate(query);
  app.get(url, { schema, config: { scope: definition.scope } }, async (request, reply) => {
    const listQuery = request.query as Static<Q> & { limit?: number; offset?: number };
    const paging = pagingOf(listQuery);
    // Taken before the list is read: whatever the list cannot show yet is no older than it.
    const watermark = watermarked ? await app.updatedDateWatermark(request.caller.orgId) : undefined;
    const listed = { params: request.params, query: listQuery, paging };
    const items = listJson && (await listJson(request.caller, listed));
    const page = items ? pageJsonOf(request, items, paging) : pageOf(request, await list(request.caller, listed), paging);
    if (watermark !== undefined) reply.header(WATERMARK_HEADER, watermark);
    return typeof page === 'string' ? sendJsonText(reply, page) : page;
  });
}

/** GET of one item: 200 with its ETag, 304 when If-None-Match names it, or 404 when it does not exist. */
function getRoute<P extends TSchema, I extends TSchema>(
  app: ApiInstance,
  url: string,
  named: Named,
  params: P,
  item: I,
  route: Documented,
  read: (caller: Caller, params: Static<P>) => Promise<Static<I>>,
  readJson?: (caller: Caller, params: Static<P>) => Promise<string | undefined>,
): void {
  const schema: FastifySchema = {
    ...placed(named, 'get', route),
    params,
    response: { 200: item, 304: NOT_MODIFIED, 404: NOT_FOUND_RESPONSE },
  };
  app.get(url, { schema, config: { scope: route.scope } }, async (request, reply) => {
    const params = request.params as Static<P>;
    const json = readJson && (await readJson(request.caller, params));
    return json === undefined ? sendItem(request, reply, await read(request.caller, params)) : sendItemJson(request, reply, json);
  });
}

/** How a route writes one item, with or without the client's preconditions. */
interface ItemWriter<P, S> {
  service: S;
  transaction: WithinTransaction<S>;
  lock: ItemLock<P>;
  read: (service: S, caller: Caller, params: P) => Promise<unknown>;
  createsMissing?: boolean;
}

/** Writes one item with `write`, under the request's If-Match and If-None-Match. */
function writeItem<P, S>(
  request: FastifyRequest,
  writer: ItemWriter<P, S>,
  write: (service: S, caller: Caller, params: P) => Promise<void>,
): Promise<void> {
  const { caller } = request;
  const params = request.params as P;
  return writeIfUnchanged(request, {
    service: writer.service,
    transaction: writer.transaction,
    lock: async (trx) => {
      await writer.lock(trx, caller.orgId, params);
    },
    read: (service) => writer.read(service, caller, params),
    write: (service) => write(service, caller, params),
    createsMissing: writer.createsMissing,
  });
}

/**
 * PUT of one item (`update` of a collection's item, `replace` of one thing at a fixed URL): 204, 400
 * for a refused body, 404 when it does not exist, 412 when a precondition fails.
 */
function putRoute<P extends TSchema, B extends TSchema, S>(
  app: ApiInstance,
  url: string,
  named: Named,
  verb: 'update' | 'replace',
  params: P,
  route: Writing<B>,
  writer: ItemWriter<Static<P>, S>,
  write: (service: S, caller: Caller, params: Static<P>, body: Static<B>) => Promise<void>,
): void {
  app.put(
    url,
    {
      schema: {
        ...placed(named, verb, route),
        params,
        body: route.body,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE, 412: PRECONDITION_FAILED },
      },
      config: { scope: route.scope },
      ...(route.schemaErrorFormatter ? { schemaErrorFormatter: route.schemaErrorFormatter } : {}),
    },
    async (request, reply) => {
      const body = request.body as Static<B>;
      await writeItem(request, writer, (service, caller, params) => write(service, caller, params, body));
      return reply.code(204).send();
    },
  );
}

/** Registers a standard collection's routes, in the order list, get, create, update, delete. */
export function collectionRoutes<I extends TSchema, Q extends TSchema, C extends TSchema = TNever, U extends TSchema = TNever>(
  app: ApiInstance,
  definition: CollectionDefinition<I, Q, C, U>,
): void {
  const { collection, item, service } = definition;

  const listJson = service.listJson;
  listRoute(
    app,
    `/${collection}`,
    { ...definition.list, name: definition.name, tag: definition.tag, item },
    (caller, { query, paging }) => service.list(caller, query, paging),
    listJson && ((caller, { query, paging }) => listJson.call(service, caller, query, paging)),
  );

  const getJson = service.getJson;
  getRoute(
    app,
    `/${collection}/:id`,
    definition,
    IdParams,
    item,
    definition.get,
    (caller, { id }) => service.get(caller, id),
    getJson && ((caller, { id }) => getJson.call(service, caller, id)),
  );

  if (definition.create) {
    const create = required(service.create, collection, 'create');
    app.post(
      `/${collection}`,
      {
        schema: {
          ...placed(definition, 'create', definition.create),
          body: definition.create.body,
          response: { 201: CREATED, 400: ERROR_RESPONSE },
        },
        config: { scope: definition.create.scope },
      },
      async (request, reply) => {
        const created = (id: string) => ({ status: 201, location: itemUrl(request, collection, id) });
        return sendAnswer(reply, await idempotent(request, created, (caller) => create.call(service, caller, request.body)));
      },
    );
  }

  const writer = () => ({
    service,
    transaction: required(definition.transaction, collection, 'transaction'),
    lock: required(definition.lock, collection, 'lock'),
    read: (service: Pick<CollectionService<I, Q, C, U>, 'get'>, caller: Caller, { id }: { id: string }) => service.get(caller, id),
  });

  if (definition.update) {
    required(service.update, collection, 'update');
    putRoute(app, `/${collection}/:id`, definition, 'update', IdParams, definition.update, writer(), (service, caller, { id }, input: Static<U>) =>
      service.update!(caller, id, input),
    );
  }

  if (definition.delete) {
    required(service.delete, collection, 'delete');
    const deleteWriter = writer();
    app.delete(
      `/${collection}/:id`,
      {
        schema: {
          ...placed(definition, 'delete', definition.delete),
          params: IdParams,
          response: definition.delete.refusable
            ? { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE, 412: PRECONDITION_FAILED }
            : { 204: NO_CONTENT, 404: NOT_FOUND_RESPONSE, 412: PRECONDITION_FAILED },
        },
        config: { scope: definition.delete.scope },
      },
      async (request, reply) => {
        await writeItem(request, deleteWriter, (service, caller, { id }: { id: string }) => service.delete!(caller, id));
        return reply.code(204).send();
      },
    );
  }
}

interface ItemDefinition<P extends TSchema, I extends TSchema, B extends TSchema, S> extends Named {
  /** The route's URL, with its parameters (`/users/:id/userfieldvalues`). */
  url: string;
  params: P;
  /** What GET answers. */
  item: I;
  service: S;
  /** The service over one transaction, and the lock of the item: for a PUT under If-Match or If-None-Match. */
  transaction: WithinTransaction<S>;
  lock: ItemLock<Static<P>>;
  /** GET: 200, 304 or 404. */
  get: Documented & { read: (service: S, caller: Caller, params: Static<P>) => Promise<Static<I>> };
  /**
   * PUT (`replace`): 204, 400, 404 or 412. `createsMissing`: a PUT defines the item when it does not
   * exist yet (If-Match then fails, If-None-Match: * lets only the first definition through).
   */
  put?: Writing<B> & { write: (service: S, caller: Caller, params: Static<P>, body: Static<B>) => Promise<void>; createsMissing?: boolean };
}

/** Registers GET (and PUT, when defined) of one thing at a fixed URL. */
export function itemRoutes<P extends TSchema, I extends TSchema, S, B extends TSchema = TNever>(
  app: ApiInstance,
  definition: ItemDefinition<P, I, B, S>,
): void {
  const { url, params, item, service, transaction, lock, get, put } = definition;
  getRoute(app, url, definition, params, item, get, (caller, params) => get.read(service, caller, params));
  if (put) {
    const writer = { service, transaction, lock, read: get.read, createsMissing: put.createsMissing };
    putRoute(app, url, definition, 'replace', params, put, writer, put.write);
  }
}
