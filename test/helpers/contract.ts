import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Response } from './harness.js';
import type { ApiRoute } from './route-table.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}

type OpenApiDocument = { paths: Record<string, Record<string, Operation>>; components?: object };

const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** The v5 error shapes: `{"fieldErrors": {...}}` for 400 (or `errors` for a 400 not about one property), `{"errors": [...]}` otherwise. */
export function isV5Error(status: number, body: any): boolean {
  const strings = (values: unknown[]) => values.length > 0 && values.every((value) => typeof value === 'string');
  if (status === 400 && body?.fieldErrors && typeof body.fieldErrors === 'object') return strings(Object.values(body.fieldErrors));
  return Array.isArray(body?.errors) && strings(body.errors);
}

/** RFC 7644 §3.12. */
export function isScimError(status: number, body: any): boolean {
  return Array.isArray(body?.schemas) && body.schemas.includes(SCIM_ERROR) && body.status === String(status) && typeof body.detail === 'string';
}

/** Routes that answer a 5xx by design: SCIM's /Bulk and root /.search are 501, being unsupported (RFC 7644 §3.7, §3.4.3). */
const NOT_IMPLEMENTED: Record<string, number> = { 'POST /scim/v2/Bulk': 501, 'POST /scim/v2/.search': 501 };

/**
 * What a route promises, read from the OpenAPI document the server publishes (and, for SCIM, which
 * describes itself elsewhere, from RFC 7644): the statuses it may answer and the body of each.
 */
export class ResponseContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false });
  private readonly validators = new Map<string, ValidateFunction | null | undefined>();
  /** `METHOD /path status` → how often a status the document does not list was answered. */
  readonly undocumented = new Map<string, number>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats.default(this.ajv);
    this.ajv.addFormat('date-filter', true);
  }

  /** The document's path of a route: `/dc/api/v5/users/:id` → `/users/{id}`. */
  static pathOf(route: ApiRoute): string {
    return route.key.slice(route.method.length + 1).replace(/:(\w+)/g, '{$1}');
  }

  private validator(route: ApiRoute, status: number): ValidateFunction | null | undefined {
    const path = ResponseContract.pathOf(route);
    const key = `${route.method} ${path} ${status}`;
    if (!this.validators.has(key)) {
      const response = this.document.paths[path]?.[route.method.toLowerCase()]?.responses[String(status)];
      const schema = response?.content?.['application/json']?.schema;
      // The component schemas travel with each response schema, so its `#/components/...` references resolve.
      this.validators.set(key, response ? (schema ? this.ajv.compile({ ...schema, components: this.document.components }) : null) : undefined);
    }
    return this.validators.get(key);
  }

  private documentsBody(route: ApiRoute, status: number): boolean {
    const response = this.document.paths[ResponseContract.pathOf(route)]?.[route.method.toLowerCase()]?.responses[String(status)];
    return response?.content !== undefined;
  }

  /** What is wrong with the response, if anything; a 5xx is, unless NOT_IMPLEMENTED names it. */
  check(route: ApiRoute, response: Response): string | undefined {
    const status = response.statusCode;
    if (status >= 500 && NOT_IMPLEMENTED[route.key] !== status) return `${status} ${response.body}`;
    // v5 answers a creation with its Location only, unless the document gives it a body (a webhook's
    // secret, shown once); SCIM with the resource created (RFC 7644 §3.3).
    const empty = status === 204 || (status === 201 && route.api === 'v5' && !this.documentsBody(route, status));
    if (empty) {
      if (response.body !== '') return `${status} with a body: ${response.body.slice(0, 200)}`;
    } else if (!/^application\/(scim\+)?json/.test(String(response.headers['content-type']))) {
      return `${status} as ${String(response.headers['content-type'])}: ${response.body.slice(0, 200)}`;
    }
    if (status === 201 && !response.headers.location) return '201 without Location';
    const body = empty ? undefined : JSON.parse(response.body);
    if (route.api === 'scim') {
      if (status >= 400) return isScimError(status, body) ? undefined : `${status} not in the SCIM error shape: ${response.body.slice(0, 300)}`;
      return empty || Array.isArray(body?.schemas) ? undefined : `${status} without schemas: ${response.body.slice(0, 300)}`;
    }
    if (status >= 400 && !isV5Error(status, body)) return `${status} not in the v5 error shape: ${response.body.slice(0, 300)}`;
    if (!this.document.paths[ResponseContract.pathOf(route)]?.[route.method.toLowerCase()]) return 'not in the OpenAPI document';
    const validate = this.validator(route, status);
    if (validate === undefined) {
      const key = `${route.method} ${ResponseContract.pathOf(route)} ${status}`;
      this.undocumented.set(key, (this.undocumented.get(key) ?? 0) + 1);
      return status < 400 ? `${status} is not documented` : undefined;
    }
    if (validate && !empty && !validate(body)) {
      return `${status} does not match its documented schema (${this.ajv.errorsText(validate.errors)}): ${response.body.slice(0, 300)}`;
    }
    return undefined;
  }
}
