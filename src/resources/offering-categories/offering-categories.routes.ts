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
    list: { summary: 'List offering categories in list order', query: OfferingCategoryQuery },
    get: { summary: 'Get an offering category' },
    create: { summary: 'Create an offering category', body: CreateOfferingCategory },
    update: { summary: 'Update an offering category (partial); orderIndex moves it', body: UpdateOfferingCategory },
    delete: { summary: 'Delete an offering category; offerings lose it from offeringCategoryIds' },
  });
};
