import type { ResourceRoutes } from '../http/api-instance.js';
import { resourceTypes, schemas, serviceProviderConfig } from './discovery.js';
import { listResponse } from './list.js';
import { scimBase } from './scim.plugin.js';
import { scimErrors } from './scim-errors.js';
import type { ScimUsersService } from './users/scim-users.service.js';

export const scimDiscoveryRoutes: ResourceRoutes<ScimUsersService> = async (app, { service }) => {
  app.get('/ServiceProviderConfig', async (request) => serviceProviderConfig(scimBase(request)));

  app.get('/ResourceTypes', async (request) => {
    const { schema } = await service.context(request.caller, scimBase(request));
    const types = resourceTypes(scimBase(request), schema);
    return listResponse(types, types.length, 1);
  });

  app.get<{ Params: { id: string } }>('/ResourceTypes/:id', async (request) => {
    const { schema } = await service.context(request.caller, scimBase(request));
    const found = resourceTypes(scimBase(request), schema).find((type) => type.id === request.params.id);
    if (!found) throw scimErrors.notFoundAt(`ResourceType ${request.params.id}`);
    return found;
  });

  app.get('/Schemas', async (request) => {
    const { schema } = await service.context(request.caller, scimBase(request));
    const documents = schemas(scimBase(request), schema);
    return listResponse(documents, documents.length, 1);
  });

  app.get<{ Params: { id: string } }>('/Schemas/:id', async (request) => {
    const { schema } = await service.context(request.caller, scimBase(request));
    const found = schemas(scimBase(request), schema).find((document) => String(document.id).toLowerCase() === request.params.id.toLowerCase());
    if (!found) throw scimErrors.notFoundAt(`Schema ${request.params.id}`);
    return found;
  });
};
