import { lockOrdering } from '../../db/dense-order.js';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { collectionRoutes } from '../../http/resource-routes.js';
import type { ApiTag } from '../../lib/openapi.js';
import { CreateOffering, Offering, OfferingQuery, UpdateOffering } from './offerings.schemas.js';
import type { OfferingsService } from './offerings.service.js';

export const offeringsTag: ApiTag = {
  name: 'Offerings',
  description: 'What users register for: a title, its dates and registration period, a price, a passing grade and whether a retake is allowed.',
};
export const offeringsRoutes: ConditionalResourceRoutes<OfferingsService> = async (app, { service, transaction }) => {
  collectionRoutes(app, {
    collection: 'offerings',
    name: 'offerings',
    tag: offeringsTag,
    item: Offering,
    service,
    transaction,
    lock: lockOrdering,
    list: { summary: 'List offerings in list order; userId lists those open for that user to register', query: OfferingQuery },
    get: { summary: 'Get an offering' },
    create: { summary: 'Create an offering', body: CreateOffering },
    update: { summary: 'Update an offering (partial); orderIndex moves it', body: UpdateOffering },
    delete: { summary: 'Delete an offering that has no registrations but ejected ones (which go with it)', refusable: true },
  });
};
