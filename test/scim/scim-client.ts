import type { InjectOptions } from 'fastify';
import type { Harness, Response } from '../helpers/harness.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** An identity provider's view of the server: /scim/v2 with a `scim` token, bodies sent as application/scim+json. */
export class ScimClient {
  constructor(
    readonly h: Harness,
    readonly token: string,
  ) {}

  static async of(h: Harness, orgId = h.org.id): Promise<ScimClient> {
    return new ScimClient(h, await h.token(orgId, { scopes: ['scim'] }));
  }

  async request(method: InjectOptions['method'], path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return await this.h.app.inject({
      method,
      url: `/scim/v2${path}`,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, undefined, headers);
  }
  post(path: string, body: unknown) {
    return this.request('POST', path, body);
  }
  put(path: string, body: unknown) {
    return this.request('PUT', path, body);
  }
  patch(path: string, operations: unknown[]) {
    return this.request('PATCH', path, { schemas: [PATCH_OP], Operations: operations });
  }
  delete(path: string) {
    return this.request('DELETE', path);
  }

  /** GET with a filter, encoded as clients encode it. */
  find(resource: 'Users' | 'Groups', filter: string, extra = '') {
    return this.get(`/${resource}?filter=${encodeURIComponent(filter)}${extra}`);
  }

  /** Creates a user and returns its SCIM id (fails loudly on anything but 201). */
  async createUser(body: Record<string, unknown>): Promise<string> {
    const response = await this.post('/Users', { schemas: [USER_SCHEMA], ...body });
    if (response.statusCode !== 201) throw new Error(`POST /Users answered ${response.statusCode}: ${response.body}`);
    return response.json().id;
  }

  async createGroup(body: Record<string, unknown>): Promise<string> {
    const response = await this.post('/Groups', { schemas: [GROUP_SCHEMA], ...body });
    if (response.statusCode !== 201) throw new Error(`POST /Groups answered ${response.statusCode}: ${response.body}`);
    return response.json().id;
  }
}

/** Asserts the SCIM error shape and returns the body. */
export function scimError(response: Response, status: number, scimType?: string): { detail: string; scimType?: string } {
  const body = response.json();
  if (response.statusCode !== status || body.schemas?.[0] !== ERROR_SCHEMA || body.status !== String(status) || body.scimType !== scimType) {
    throw new Error(`expected SCIM error ${status}${scimType ? ` ${scimType}` : ''}, got ${response.statusCode}: ${response.body}`);
  }
  if (!String(response.headers['content-type']).startsWith('application/scim+json'))
    throw new Error(`content-type ${String(response.headers['content-type'])}`);
  if (typeof body.detail !== 'string' || body.detail === '') throw new Error('no detail');
  return body;
}
