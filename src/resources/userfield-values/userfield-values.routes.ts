import type { ApiInstance } from '../../app.js';
import { IdParams } from '../../lib/schema.js';
import { itemRoutes } from '../resource-routes.js';
import { UpdateUserfieldValues, UserfieldValues } from './userfield-values.schemas.js';

export async function userfieldValuesRoutes(app: ApiInstance): Promise<void> {
  const { userfieldValues } = app.services;

  itemRoutes(app, {
    url: '/users/:id/userfieldvalues',
    tag: 'Userfield values',
    params: IdParams,
    item: UserfieldValues,
    get: { summary: "Get a user's userfield values", read: (caller, { id }) => userfieldValues.get(caller, id) },
    put: {
      summary: "Set or clear some of a user's userfield values, all or nothing",
      body: UpdateUserfieldValues,
      write: (caller, { id }, input) => userfieldValues.update(caller, id, input),
    },
  });
}
