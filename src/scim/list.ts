import type { FastifyRequest } from 'fastify';
import { LIST_SCHEMA } from './schemas.js';
import { scimErrors } from './scim-errors.js';
import type { ScimDocument } from './documents.js';

/** The most resources one list response holds (ServiceProviderConfig filter.maxResults); a larger count is lowered to it. */
export const MAX_RESULTS = 1000;
/** What a list holds when the client does not say. */
const DEFAULT_COUNT = 100;

export interface ListQuery {
  filter?: string;
  /** 1-based, as SCIM counts. */
  startIndex: number;
  count: number;
  attributes?: string;
  excludedAttributes?: string;
}

export interface ListResponse {
  schemas: [typeof LIST_SCHEMA];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: ScimDocument[];
}

/** A query parameter given once; SCIM clients add parameters of their own (Entra ID's flags), which are ignored. */
export function queryText(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw scimErrors.invalidValue(`${name} must be given once`);
  return value;
}

function integer(request: FastifyRequest, name: string): number | undefined {
  const text = queryText(request, name);
  if (text === undefined || text.trim() === '') return undefined;
  if (!/^-?\d{1,15}$/.test(text.trim())) throw scimErrors.invalidValue(`${name} must be an integer`);
  return Number(text);
}

/**
 * The list parameters of RFC 7644 §3.4.2: startIndex below 1 counts as 1, a negative count as 0,
 * a count above MAX_RESULTS as MAX_RESULTS. sortBy is not supported and is ignored.
 */
export function listQueryOf(request: FastifyRequest): ListQuery {
  const startIndex = Math.max(1, integer(request, 'startIndex') ?? 1);
  const count = Math.min(MAX_RESULTS, Math.max(0, integer(request, 'count') ?? DEFAULT_COUNT));
  const filter = queryText(request, 'filter');
  const attributes = queryText(request, 'attributes');
  const excludedAttributes = queryText(request, 'excludedAttributes');
  return {
    startIndex,
    count,
    ...(filter !== undefined && filter.trim() !== '' ? { filter } : {}),
    ...(attributes !== undefined ? { attributes } : {}),
    ...(excludedAttributes !== undefined ? { excludedAttributes } : {}),
  };
}

const SEARCH_REQUEST = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The list parameters of a POST to /.search (RFC 7644 §3.4.3), read as the query's: attribute
 * lists are arrays of names (or a comma-separated text), startIndex and count integers.
 */
export function searchQueryOf(body: unknown): ListQuery {
  if (!isObject(body)) throw scimErrors.invalidSyntax('The body must be a SearchRequest object');
  const { schemas } = body;
  if (
    schemas !== undefined &&
    !(Array.isArray(schemas) && schemas.some((s) => typeof s === 'string' && s.toLowerCase() === SEARCH_REQUEST.toLowerCase()))
  ) {
    throw scimErrors.invalidSyntax(`schemas must hold ${SEARCH_REQUEST}`);
  }
  const names = (name: string): string | undefined => {
    const value = body[name];
    if (value === undefined || typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join(',');
    throw scimErrors.invalidValue(`${name} must be a list of attribute names`);
  };
  const integer = (name: string): number | undefined => {
    const value = body[name];
    if (value === undefined) return undefined;
    if (!Number.isSafeInteger(value)) throw scimErrors.invalidValue(`${name} must be an integer`);
    return value as number;
  };
  const filter = body.filter;
  if (filter !== undefined && typeof filter !== 'string') throw scimErrors.invalidFilter('filter must be a string');
  const attributes = names('attributes');
  const excludedAttributes = names('excludedAttributes');
  return {
    startIndex: Math.max(1, integer('startIndex') ?? 1),
    count: Math.min(MAX_RESULTS, Math.max(0, integer('count') ?? DEFAULT_COUNT)),
    ...(filter !== undefined && filter.trim() !== '' ? { filter } : {}),
    ...(attributes !== undefined ? { attributes } : {}),
    ...(excludedAttributes !== undefined ? { excludedAttributes } : {}),
  };
}

export function listResponse(resources: ScimDocument[], total: number, startIndex: number): ListResponse {
  return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}
