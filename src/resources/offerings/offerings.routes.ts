import type { ApiInstance } from '../../app.js';
import { Page, pageOf, pagingOf } from '../../lib/paging.js';
import { CREATED, ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE, NO_CONTENT } from '../../lib/schema.js';
import { itemUrl } from '../../lib/urls.js';
import { CreateOffering, Offering, OfferingQuery, UpdateOffering } from './offerings.schemas.js';

const tags = ['Offerings'];

export async function offeringsRoutes(app: ApiInstance): Promise<void> {
  const { offerings } = app.services;

  app.get(
    '/offerings',
    {
      schema: {
        tags,
        summary: 'List offerings in list order; userId lists those open for that user to register',
        querystring: OfferingQuery,
        response: { 200: Page(Offering), 400: ERROR_RESPONSE },
      },
    },
    async (request) => {
      const paging = pagingOf(request.query);
      return pageOf(request, await offerings.list(request.caller, request.query, paging), paging);
    },
  );

  app.get(
    '/offerings/:id',
    {
      schema: { tags, summary: 'Get an offering', params: IdParams, response: { 200: Offering, 404: NOT_FOUND_RESPONSE } },
    },
    async (request) => offerings.get(request.caller, request.params.id),
  );

  app.post(
    '/offerings',
    {
      schema: {
        tags,
        summary: 'Create an offering',
        body: CreateOffering,
        response: { 201: CREATED, 400: ERROR_RESPONSE },
      },
    },
    async (request, reply) => {
      const id = await offerings.create(request.caller, request.body);
      return reply.code(201).header('Location', itemUrl(request, 'offerings', id)).send();
    },
  );

  app.put(
    '/offerings/:id',
    {
      schema: {
        tags,
        summary: 'Update an offering (partial); orderIndex moves it',
        params: IdParams,
        body: UpdateOffering,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => {
      await offerings.update(request.caller, request.params.id, request.body);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/offerings/:id',
    {
      schema: {
        tags,
        summary: 'Delete an offering that has no registrations but ejected ones (which go with it)',
        params: IdParams,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => {
      await offerings.delete(request.caller, request.params.id);
      return reply.code(204).send();
    },
  );
}
