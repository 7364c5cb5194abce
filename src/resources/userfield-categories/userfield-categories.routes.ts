import type { ApiInstance } from '../../app.js';
import { collectionRoutes } from '../resource-routes.js';
import { CreateUserfieldCategory, UpdateUserfieldCategory, UserfieldCategory, UserfieldCategoryQuery } from './userfield-categories.schemas.js';

export async function userfieldCategoriesRoutes(app: ApiInstance): Promise<void> {
  collectionRoutes(app, {
    collection: 'userfieldcategories',
    tag: 'Userfield categories',
    item: UserfieldCategory,
    service: app.services.userfieldCategories,
    list: { summary: 'List userfield categories: public first, then private, each by orderIndex', query: UserfieldCategoryQuery },
    get: { summary: 'Get a userfield category' },
    create: { summary: 'Create a userfield category', body: CreateUserfieldCategory },
    update: { summary: 'Rename or reorder a userfield category (partial); its type never changes', body: UpdateUserfieldCategory },
    delete: { summary: 'Delete an empty userfield category', refusable: true },
  });
}
