import type { ApiInstance } from '../../app.js';
import { ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE, NO_CONTENT } from '../../lib/schema.js';
import { UpdateUserfieldValues, UserfieldValues } from './userfield-values.schemas.js';

const tags = ['Userfield values'];

export async function userfieldValuesRoutes(app: ApiInstance): Promise<void> {
  const { userfieldValues } = app.services;

  app.get(
    '/users/:id/userfieldvalues',
    {
      schema: {
        tags,
        summary: "Get a user's userfield values",
        params: IdParams,
        response: { 200: UserfieldValues, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request) => userfieldValues.get(request.caller, request.params.id),
  );

  app.put(
    '/users/:id/userfieldvalues',
    {
      schema: {
        tags,
        summary: "Set or clear some of a user's userfield values, all or nothing",
        params: IdParams,
        body: UpdateUserfieldValues,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => {
      await userfieldValues.update(request.caller, request.params.id, request.body);
      return reply.code(204).send();
    },
  );
}
