import type { ApiInstance } from '../../app.js';
import { Page, pageOf, pagingOf } from '../../lib/paging.js';
import { CREATED, ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE, NO_CONTENT } from '../../lib/schema.js';
import { itemUrl } from '../../lib/urls.js';
import {
  CreateUserfieldCategory,
  UpdateUserfieldCategory,
  UserfieldCategory,
  UserfieldCategoryQuery,
} from './userfield-categories.schemas.js';

const tags = ['Userfield categories'];

export async function userfieldCategoriesRoutes(app: ApiInstance): Promise<void> {
  const { userfieldCategories } = app.services;

  app.get(
    '/userfieldcategories',
    {
      schema: {
        tags,
        summary: 'List userfield categories: public first, then private, each by orderIndex',
        querystring: UserfieldCategoryQuery,
        response: { 200: Page(UserfieldCategory), 400: ERROR_RESPONSE },
      },
    },
    async (request) => {
      const paging = pagingOf(request.query);
      return pageOf(request, await userfieldCategories.list(request.caller, request.query, paging), paging);
    },
  );

  app.get(
    '/userfieldcategories/:id',
    {
      schema: { tags, summary: 'Get a userfield category', params: IdParams, response: { 200: UserfieldCategory, 404: NOT_FOUND_RESPONSE } },
    },
    async (request) => userfieldCategories.get(request.caller, request.params.id),
  );

  app.post(
    '/userfieldcategories',
    {
      schema: {
        tags,
        summary: 'Create a userfield category',
        body: CreateUserfieldCategory,
        response: { 201: CREATED, 400: ERROR_RESPONSE },
      },
    },
    async (request, reply) => {
      const id = await userfieldCategories.create(request.caller, request.body);
      return reply.code(201).header('Location', itemUrl(request, 'userfieldcategories', id)).send();
    },
  );

  app.put(
    '/userfieldcategories/:id',
    {
      schema: {
        tags,
        summary: 'Rename or reorder a userfield category (partial); its type never changes',
        params: IdParams,
        body: UpdateUserfieldCategory,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => {
      await userfieldCategories.update(request.caller, request.params.id, request.body);
      return reply.code(204).send();
    },
  );

  app.delete(
    '/userfieldcategories/:id',
    {
      schema: {
        tags,
        summary: 'Delete an empty userfield category',
        params: IdParams,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => {
      await userfieldCategories.delete(request.caller, request.params.id);
      return reply.code(204).send();
    },
  );
}
