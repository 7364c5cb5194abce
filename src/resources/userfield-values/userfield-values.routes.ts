import type { ResourceRoutes } from '../../http/api-instance.js';
import { itemRoutes } from '../../http/resource-routes.js';
import type { ApiTag } from '../../lib/openapi.js';
import { IdParams } from '../../lib/schema.js';
import { UpdateUserfieldValues, UserfieldValues } from './userfield-values.schemas.js';
import type { UserfieldValuesService } from './userfield-values.service.js';

export const userfieldValuesTag: ApiTag = {
  name: 'Userfield values',
  description: "A user's values of the userfields, at /users/{id}/userfieldvalues: read together, written all or nothing.",
};

export const userfieldValuesRoutes: ResourceRoutes<UserfieldValuesService> = async (app, { service }) => {
  itemRoutes(app, {
    url: '/users/:id/userfieldvalues',
    name: 'userfieldValues',
    tag: userfieldValuesTag,
    params: IdParams,
    item: UserfieldValues,
    get: { summary: "Get a user's userfield values", read: (caller, { id }) => service.get(caller, id) },
    put: {
      summary: "Set or clear some of a user's userfield values, all or nothing",
      body: UpdateUserfieldValues,
      write: (caller, { id }, input) => service.update(caller, id, input),
    },
  });
};
