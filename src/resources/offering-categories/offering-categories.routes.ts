import { lockOrdering } from '../../db/dense-order.js';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { collectionRoutes } from '../../http/resource-routes.js';
import type { ApiTag } from '../../lib/openapi.js';
import { CreateOfferingCategory, OfferingCategory, OfferingCategoryQuery, UpdateOfferingCategory } from './offering-categories.schemas.js';
import type { OfferingCategoriesService } from './offering-categories.service.js';

export const offeringCategoriesTag: ApiTag = {
  name: 'Offering categories',
  description: 'The groups offerings are listed in, in list order.',
};
export const offeringCategoriesRoutes: ConditionalResourceRoutes<OfferingCategoriesService> = async (app, { service, transaction }) => {
  collectionRoutes(app, {
    collection: 'offeringcategories',
    name: 'offeringCategories',
    tag: offeringCategoriesTag,
    item: OfferingCategory,
    service,
    transaction,
    lock: lockOrdering,
    list: {
      summary: 'List offering categories in list order',
      description: "A page of the organization's offering categories, by `orderIndex`. `name` matches part of the name, ignoring case.",
      scope: 'read',
      query: OfferingCategoryQuery,
    },
    get: {
      summary: 'Get an offering category',
      description: "The category. An id that is not one of the organization's offering categories is a 404.",
      scope: 'read',
    },
    create: {
      summary: 'Create an offering category',
      description:
        'Beyond v5. `name` is required; `color` is `#rrggbb`. `orderIndex` places it, from 0, the ones from there on moving ' +
        'down; absent or past the end, it goes last. Answers 201 with its URL in `Location`.',
      scope: 'write',
      body: CreateOfferingCategory,
    },
    update: {
      summary: 'Update an offering category (partial); orderIndex moves it',
      description: 'Beyond v5. Changes only the properties sent; a new `orderIndex` moves the others to keep the order without gaps.',
      scope: 'write',
      body: UpdateOfferingCategory,
    },
    delete: {
      summary: 'Delete an offering category; offerings lose it from offeringCategoryIds',
      description: 'Beyond v5. The offerings stay; each one that listed the category no longer does. The categories after it move up.',
      scope: 'write',
    },
  });
};
