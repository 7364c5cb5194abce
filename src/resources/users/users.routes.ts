import { CREATED, ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE, NO_CONTENT } from '../../lib/schema.js';
import { Page, pageOf, pagingOf } from '../../lib/paging.js';
import { itemUrl } from '../../lib/urls.js';
import type { ApiInstance } from '../../app.js';
import { CreateUser, UpdateUser, User, UserQuery } from './users.schemas.js';

const tags = ['Users'];

export async function usersRoutes(app: ApiInstance): Promise<void> {
  const { users } = app.services;

  app.get(
    '/users',
    { schema: { tags, summary: 'List users', querystring: UserQuery, response: { 200: Page(User), 400: ERROR_RESPONSE } } },
    async (request) => {
      const paging = pagingOf(request.query);
      return pageOf(request, await users.list(request.caller, request.query, paging), paging);
    },
  );

  app.get(
    '/users/:id',
    { schema: { tags, summary: 'Get a user', params: IdParams, response: { 200: User, 404: NOT_FOUND_RESPONSE } } },
    async (request) => users.get(request.caller, request.params.id),
  );

  app.post(
    '/users',
    { schema: { tags, summary: 'Create a user', body: CreateUser, response: { 201: CREATED, 400: ERROR_RESPONSE } } },
    async (request, reply) => {
      const id = await users.create(request.caller, request.body);
      return reply.code(201).header('Location', itemUrl(request, 'users', id)).send();
    },
  );

  app.put(
    '/users/:id',
    {
      schema: {
        tags,
        summary: 'Update a user (partial)',
        params: IdParams,
        body: UpdateUser,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => {
      await users.update(request.caller, request.params.id, request.body);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/users/:id',
    { schema: { tags, summary: 'Delete a user and everything that belongs to it', params: IdParams, response: { 204: NO_CONTENT, 404: NOT_FOUND_RESPONSE } } },
    async (request, reply) => {
      await users.delete(request.caller, request.params.id);
      return reply.code(204).send();
    },
  );
}
