import type { FastifyRequest } from 'fastify';
import type { ResourceRoutes } from '../http/api-instance.js';
import type { ResourceSchema, ScimDocument } from './documents.js';
import { resourceTypes, schemas, serviceProviderConfig } from './discovery.js';
import { listResponse } from './list.js';
import { scimBase } from './base-url.js';
import { scimErrors } from './scim-errors.js';
import type { ScimUsersService } from './users/scim-users.service.js';

/** The discovery endpoints (RFC 7644 §4); resource types and schemas are the caller's organization's. */
export const scimDiscoveryRoutes: ResourceRoutes<ScimUsersService> = async (app, { service }) => {
  app.get('/ServiceProviderConfig', { config: { scope: 'scim' } }, async (request) => serviceProviderConfig(scimBase(request)));
  // RFC 7644 §3.7: a server that does not support bulk answers 501 there; so does a search of the
  // whole server (§3.4.3), which has no resource type's filter to translate.
  app.post('/Bulk', { config: { scope: 'scim' } }, async () => {
    throw scimErrors.bulkUnsupported();
  });
  app.post('/.search', { config: { scope: 'scim' } }, async () => {
    throw scimErrors.rootSearchUnsupported();
  });

  /** A list of documents and each of them by id (case aside: schema ids are URNs). */
  function collection(path: string, kind: string, documentsOf: (base: string, users: ResourceSchema) => ScimDocument[]) {
    const documents = async (request: FastifyRequest) => {
      const base = scimBase(request);
      return documentsOf(base, (await service.context(request.caller, base)).schema);
    };
    app.get(path, { config: { scope: 'scim' } }, async (request) => {
      const all = await documents(request);
      return listResponse(all, all.length, 1);
    });
    app.get<{ Params: { id: string } }>(`${path}/:id`, { config: { scope: 'scim' } }, async (request) => {
      const id = request.params.id.toLowerCase();
      const found = (await documents(request)).find((document) => String(document.id).toLowerCase() === id);
      if (!found) throw scimErrors.notFoundAt(`${kind} ${request.params.id}`);
      return found;
    });
  }

  collection('/ResourceTypes', 'ResourceType', resourceTypes);
  collection('/Schemas', 'Schema', schemas);
};
