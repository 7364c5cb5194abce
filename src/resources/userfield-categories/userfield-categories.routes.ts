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
    list: { summary: 'List userfield categories: public first, then private, each by orderIndex', query: UserfieldCategoryQuery },
    get: { summary: 'Get a userfield category' },
    create: { summary: 'Create a userfield category', body: CreateUserfieldCategory },
    update: { summary: 'Rename or reorder a userfield category (partial); its type never changes', body: UpdateUserfieldCategory },
    delete: { summary: 'Delete an empty userfield category', refusable: true },
  });
};
