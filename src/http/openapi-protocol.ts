import { ERROR_RESPONSE, NOT_FOUND_RESPONSE } from '../lib/schema.js';
import type { JsonSchema, OpenApiDocument } from '../lib/openapi.js';
import { WATERMARK_HEADER } from './watermark.js';

/**
 * What the protocol plugins answer around every route (authentication, scopes, Accept, body limits,
 * rate limits, an unreachable database), written into the generated document, which only knows the
 * statuses each route declares itself.
 */

const JSON_MEDIA = 'application/json';
const ref = (kind: 'schemas' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const HEADERS: Record<string, { description: string; schema: JsonSchema; required?: boolean }> = {
  'X-Request-Id': { description: 'Identifies the request in the server logs; on every response', schema: { type: 'string' }, required: true },
  Location: { description: 'The URL of the new item; its last segment is the id', schema: { type: 'string', format: 'uri' }, required: true },
  'RateLimit-Limit': { description: 'Requests allowed per window (when rate limits are configured)', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window frees a request', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' }, required: true },
  ETag: {
    description: 'Beyond v5. The strong entity tag of the item as answered: send it back in If-None-Match (GET) or If-Match (PUT, DELETE)',
    schema: { type: 'string' },
    required: true,
  },
  'WWW-Authenticate': { description: 'The Bearer challenge, with the error and the scope missing', schema: { type: 'string' }, required: true },
  [WATERMARK_HEADER]: {
    description:
      'Beyond v5. Every change with an earlier updatedDate had committed before this list was read, and every change it ' +
      'could not show yet carries this time or a later one: the next run of a sync job asks for `updatedDate=<this>/..` ' +
      'and misses nothing. Keep the one of the first page of a run',
    schema: { type: 'string', examples: ['2026-11-23T07:00:00Z'] },
    required: true,
  },
  'Idempotent-Replayed': {
    description: '`true` when the answer is the one given to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry. A retry with the same key and the same request (method, path, body) within 24 hours ' +
    'gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; the same key with another request ' +
    'is a 400. A retry while the first request still runs waits for its answer, or gets 409 after 10 seconds. Keys belong ' +
    'to the organization. Answers of requests refused before they ran (the body fails validation) or that failed on the ' +
    "server's side (5xx) are not kept: the key can be used again.",
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

const COMMON_HEADERS = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

function headers(...names: string[]): Record<string, unknown> {
  return Object.fromEntries([...COMMON_HEADERS, ...names].map((name) => [name, ref('headers', name)]));
}

/** The refusals, by status: their component name, description, body and extra headers. */
const REFUSALS: Record<string, { name: string; description: string; schema: string; headers?: string[] }> = {
  400: { name: 'BadRequest', description: 'The request is refused: `fieldErrors` names each invalid property', schema: 'ValidationErrors' },
  401: { name: 'Unauthorized', description: 'No valid access token', schema: 'Errors', headers: ['WWW-Authenticate'] },
  403: { name: 'Forbidden', description: "The token lacks the operation's scope, or HTTPS is required", schema: 'Errors' },
  404: { name: 'NotFound', description: 'No resource exists with the given id', schema: 'Errors' },
  406: { name: 'NotAcceptable', description: 'The Accept header excludes application/json', schema: 'Errors' },
  413: { name: 'PayloadTooLarge', description: 'The request body exceeds the size limit', schema: 'Errors' },
  409: {
    name: 'IdempotencyKeyInUse',
    description: 'Another request with the same Idempotency-Key is still being processed; retry after Retry-After',
    schema: 'Errors',
    headers: ['Retry-After'],
  },
  415: { name: 'UnsupportedMediaType', description: 'A request body must be sent as application/json', schema: 'Errors' },
  429: { name: 'TooManyRequests', description: 'The rate limit is spent', schema: 'Errors', headers: ['Retry-After'] },
  500: { name: 'InternalError', description: 'An unexpected error (a bug; the request id finds it in the logs)', schema: 'Errors' },
  503: { name: 'Unavailable', description: 'The database is out of reach; try again', schema: 'Errors', headers: ['Retry-After'] },
};

const plain = (schema: unknown): JsonSchema => JSON.parse(JSON.stringify(schema));

function components(document: OpenApiDocument): void {
  const all = (document.components ??= {}) as Record<string, Record<string, unknown>>;
  all.schemas = {
    ...all.schemas,
    ValidationErrors: { ...plain(ERROR_RESPONSE), title: 'Validation errors', description: 'A refused request (400)' },
    Errors: {
      ...plain(NOT_FOUND_RESPONSE),
      title: 'Errors',
      description: 'Any other refusal; 401 and 403 also carry the RFC 6750 `error` and `error_description`',
      properties: {
        errors: { type: 'array', items: { type: 'string' } },
        error: { type: 'string' },
        error_description: { type: 'string' },
      },
    },
  };
  all.headers = { ...all.headers, ...HEADERS };
  all.responses = {
    ...all.responses,
    ...Object.fromEntries(
      Object.values(REFUSALS).map(({ name, description, schema, headers: extra = [] }) => [
        name,
        { description, headers: headers(...extra), content: { [JSON_MEDIA]: { schema: ref('schemas', schema) } } },
      ]),
    ),
  };
}

/** The preconditions of RFC 9110 an operation honours: on GET when it can answer 304, on PUT and DELETE when 412. */
const PRECONDITIONS = {
  'If-None-Match': {
    name: 'If-None-Match',
    in: 'header',
    description:
      'Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then',
    schema: { type: 'string' },
  },
  'If-Match': {
    name: 'If-Match',
    in: 'header',
    description:
      'Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written',
    schema: { type: 'string' },
  },
};

function documentPreconditions(operation: Record<string, any>, responses: Record<string, any>): void {
  const names = responses['304'] ? ['If-None-Match'] : responses['412'] ? ['If-Match', 'If-None-Match'] : [];
  if (names.length === 0) return;
  operation.parameters = [...(operation.parameters ?? []), ...names.map((name) => PRECONDITIONS[name as keyof typeof PRECONDITIONS])];
}

/** A list that filters by updatedDate, whose answers carry the watermark (resource-routes.ts). */
function takesUpdatedDate(operation: Record<string, any>): boolean {
  return (operation.parameters ?? []).some((parameter: { in: string; name: string }) => parameter.in === 'query' && parameter.name === 'updatedDate');
}

/** Statuses an API operation can answer besides its own: every check before the handler. */
function refusalsOf(method: string, operation: Record<string, any>): number[] {
  const statuses = [400, 401, 403, 406, 429, 500, 503];
  if ((operation.parameters ?? []).some((parameter: { in: string }) => parameter.in === 'path')) statuses.push(404);
  if (['post', 'put', 'delete'].includes(method)) statuses.push(413, 415);
  if (method === 'post') statuses.push(409);
  return statuses;
}

/**
 * Every operation of the v5 API answers its refusals in the v5 shapes, with their headers; 201, 204
 * and 304 have no body (201 has a Location, 304 and a single item's 200 an ETag), except a 201 whose route documents one (a new webhook's secret). The OAuth endpoints keep their RFC 6749 refusals.
 * `outsideApi` names the paths served from the root (OAuth).
 */
export function documentProtocol(document: OpenApiDocument, outsideApi: ReadonlySet<string>): OpenApiDocument {
  components(document);
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!operation?.responses) continue;
      const responses: Record<string, any> = operation.responses;
      const idempotent = method === 'post' && !outsideApi.has(path);
      if (idempotent) operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY_PARAMETER];
      const replayable = idempotent ? ['Idempotent-Replayed'] : [];
      for (const [status, response] of Object.entries(responses)) {
        if (status === '201') {
          // CREATED documents an empty body; a schema with a type or a reference is a real one.
          const schema = response.content?.[JSON_MEDIA]?.schema;
          const body = schema?.$ref || schema?.type ? { content: response.content } : {};
          responses[status] = { description: response.description, headers: headers('Location', ...replayable), ...body };
        } else if (status === '204') responses[status] = { description: response.description, headers: headers() };
        else if (status === '304') responses[status] = { description: response.description, headers: headers('ETag') };
        else if (status === '200' && responses['304']) response.headers = { ...headers('ETag'), ...response.headers };
        else if (status === '200' && takesUpdatedDate(operation)) response.headers = { ...headers(WATERMARK_HEADER), ...response.headers };
        else if (!response.$ref) response.headers = { ...headers(...replayable), ...response.headers };
      }
      documentPreconditions(operation, responses);
      const statuses = outsideApi.has(path) ? [429, 500, 503] : refusalsOf(method, operation);
      for (const status of statuses) {
        if (outsideApi.has(path) && responses[status]) continue;
        responses[status] = ref('responses', REFUSALS[status]!.name);
      }
      operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  return document;
}
