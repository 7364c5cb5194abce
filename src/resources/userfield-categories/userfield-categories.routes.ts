import { lockOrdering } from '../../db/dense-order.js';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { collectionRoutes } from '../../http/resource-routes.js';
import type { ApiTag } from '../../lib/openapi.js';
import { CreateUserfieldCategory, UpdateUserfieldCategory, UserfieldCategory, UserfieldCategoryQuery } from './userfield-categories.schemas.js';
import type { UserfieldCategoriesService } from './userfield-categories.service.js';

export const userfieldCategoriesTag: ApiTag = {
  name: 'Userfield categories',
  description: 'The groups userfields are shown in, public or private, each in its own order.',
};
export const userfieldCategoriesRoutes: ConditionalResourceRoutes<UserfieldCategoriesService> = async (app, { service, transaction }) => {
  collectionRoutes(app, {
    collection: 'userfieldcategories',
    name: 'userfieldCategories',
    tag: userfieldCategoriesTag,
    item: UserfieldCategory,
    service,
    transaction,
    lock: lockOrdering,
    list: {
      summary: 'List userfield categories: public first, then private, each by orderIndex',
      description:
        "A page of the organization's userfield categories. `name` matches part of the name ignoring case, `type` the " +
        'public or the private ones.',
      scope: 'read',
      query: UserfieldCategoryQuery,
    },
    get: {
      summary: 'Get a userfield category',
      description: "The category. An id that is not one of the organization's categories is a 404.",
      scope: 'read',
    },
    create: {
      summary: 'Create a userfield category',
      description:
        '`name`, unique in the organization ignoring case, and `type` (`public` or `private`) are required. `orderIndex` is ' +
        'its place among the categories of its type, from 0: the ones from there on move down; absent or past the end, it ' +
        'goes last. Answers 201 with its URL in `Location`.',
      scope: 'write',
      body: CreateUserfieldCategory,
    },
    update: {
      summary: 'Rename or reorder a userfield category (partial); its type never changes',
      description:
        'Takes `name` and `orderIndex` only. To make fields public or private, move them to a category of the other type. ' +
        'Renaming the category changes the `categoryName` of each of its fields.',
      scope: 'write',
      body: UpdateUserfieldCategory,
    },
    delete: {
      summary: 'Delete an empty userfield category',
      description:
        'A category that still holds userfields is not deleted: the answer is 400, and the fields must be moved or deleted ' +
        'first. The categories after it move up.',
      scope: 'write',
      refusable: true,
    },
  });
};
