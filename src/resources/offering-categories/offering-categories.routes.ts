import type { ApiInstance } from '../../app.js';
import { Page, pageOf, pagingOf } from '../../lib/paging.js';
import { CREATED, ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE, NO_CONTENT } from '../../lib/schema.js';
import { itemUrl } from '../../lib/urls.js';
import {
  CreateOfferingCategory,
  OfferingCategory,
  OfferingCategoryQuery,
  UpdateOfferingCategory,
} from './offering-categories.schemas.js';

const tags = ['Offering categories'];

export async function offeringCategoriesRoutes(app: ApiInstance): Promise<void> {
  const { offeringCategories } = app.services;

  app.get(
    '/offeringcategories',
    {
      schema: {
        tags,
        summary: 'List offering categories in list order',
        querystring: OfferingCategoryQuery,
        response: { 200: Page(OfferingCategory), 400: ERROR_RESPONSE },
      },
    },
    async (request) => {
      const paging = pagingOf(request.query);
      return pageOf(request, await offeringCategories.list(request.caller, request.query, paging), paging);
    },
  );

  app.get(
    '/offeringcategories/:id',
    {
      schema: { tags, summary: 'Get an offering category', params: IdParams, response: { 200: OfferingCategory, 404: NOT_FOUND_RESPONSE } },
    },
    async (request) => offeringCategories.get(request.caller, request.params.id),
  );

  app.post(
    '/offeringcategories',
    {
      schema: {
        tags,
        summary: 'Create an offering category',
        body: CreateOfferingCategory,
        response: { 201: CREATED, 400: ERROR_RESPONSE },
      },
    },
    async (request, reply) => {
      const id = await offeringCategories.create(request.caller, request.body);
      return reply.code(201).header('Location', itemUrl(request, 'offeringcategories', id)).send();
    },
  );

  app.put(
    '/offeringcategories/:id',
    {
      schema: {
        tags,
        summary: 'Update an offering category (partial); orderIndex moves it',
        params: IdParams,
        body: UpdateOfferingCategory,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => {
      await offeringCategories.update(request.caller, request.params.id, request.body);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/offeringcategories/:id',
    {
      schema: {
        tags,
        summary: 'Delete an offering category; offerings lose it from offeringCategoryIds',
        params: IdParams,
        response: { 204: NO_CONTENT, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => {
      await offeringCategories.delete(request.caller, request.params.id);
      return reply.code(204).send();
    },
  );
}
