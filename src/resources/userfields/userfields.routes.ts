import type { FastifySchemaValidationError } from 'fastify';
import type { ApiInstance } from '../../app.js';
import { errors } from '../../lib/errors.js';
import { Page, pageOf, pagingOf } from '../../lib/paging.js';
import { CREATED, ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE, NO_CONTENT } from '../../lib/schema.js';
import { itemUrl } from '../../lib/urls.js';
import { describeValidation } from '../../plugins/validation.js';
import { CreateUserfield, UpdateUserfield, Userfield, UserfieldQuery } from './userfields.schemas.js';
import { updateFailureMessage } from './userfields.service.js';

const tags = ['Userfields'];

/** A refused update body carries the same summary line as the service's own refusals. */
function updateValidationError(validation: FastifySchemaValidationError[], context: string): Error {
  const { fieldErrors, errors: problems } = describeValidation(validation, context);
  if (problems.length > 0) return errors.badRequest(problems[0]!);
  return errors.fieldErrors(fieldErrors, context === 'body' ? updateFailureMessage(fieldErrors) : undefined);
}

export async function userfieldsRoutes(app: ApiInstance): Promise<void> {
  const { userfields } = app.services;

  app.get(
    '/userfields',
    {
      schema: {
        tags,
        summary: 'List userfields by category (public first), then orderIndex; predefined fields in no category last',
        querystring: UserfieldQuery,
        response: { 200: Page(Userfield), 400: ERROR_RESPONSE },
      },
    },
    async (request) => {
      const paging = pagingOf(request.query);
      return pageOf(request, await userfields.list(request.caller, request.query, paging), paging);
    },
  );

  app.get(
    '/userfields/:id',
    { schema: { tags, summary: 'Get a userfield', params: IdParams, response: { 200: Userfield, 404: NOT_FOUND_RESPONSE } } },
    async (request) => userfields.get(request.caller, request.params.id),
  );

  app.post(
    '/userfields',
    { schema: { tags, summary: 'Create a userfield', body: CreateUserfield, response: { 201: CREATED, 400: ERROR_RESPONSE } } },
    async (request, reply) => {
      const id = await userfields.create(request.caller, request.body);
      return reply.code(201).header('Location', itemUrl(request, 'userfields', id)).send();
    },
  );

  app.put(
    '/userfields/:id',
    {
      schema: {
        tags,
        summary: 'Update a userfield (partial): move, rename, required, options, constraints, message, size, orderIndex',
        params: IdParams,
        body: UpdateUserfield,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
      schemaErrorFormatter: updateValidationError,
    },
    async (request, reply) => {
      await userfields.update(request.caller, request.params.id, request.body);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/userfields/:id',
    {
      schema: {
        tags,
        summary: 'Delete a custom userfield with its values, or take a predefined one out of its category',
        params: IdParams,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => {
      await userfields.delete(request.caller, request.params.id);
      return reply.code(204).send();
    },
  );
}
