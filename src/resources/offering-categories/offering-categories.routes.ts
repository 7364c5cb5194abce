import type { ApiInstance } from '../../app.js';
import { collectionRoutes } from '../resource-routes.js';
import { CreateOfferingCategory, OfferingCategory, OfferingCategoryQuery, UpdateOfferingCategory } from './offering-categories.schemas.js';

export async function offeringCategoriesRoutes(app: ApiInstance): Promise<void> {
  collectionRoutes(app, {
    collection: 'offeringcategories',
    tag: 'Offering categories',
    item: OfferingCategory,
    service: app.services.offeringCategories,
    list: { summary: 'List offering categories in list order', query: OfferingCategoryQuery },
    get: { summary: 'Get an offering category' },
    create: { summary: 'Create an offering category', body: CreateOfferingCategory },
    update: { summary: 'Update an offering category (partial); orderIndex moves it', body: UpdateOfferingCategory },
    delete: { summary: 'Delete an offering category; offerings lose it from offeringCategoryIds' },
  });
}
