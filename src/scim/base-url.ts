import type { FastifyRequest } from 'fastify';
import { requestOrigin } from '../http/urls.js';

export const SCIM_BASE = '/scim/v2';

/** The absolute URL of /scim/v2 as the client reached it (or PUBLIC_URL). */
export function scimBase(request: FastifyRequest): string {
  return `${requestOrigin(request)}${SCIM_BASE}`;
}
