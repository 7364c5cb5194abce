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
    list: {
      summary: 'List offerings in list order; userId lists those open for that user to register',
      description:
        "A page of the organization's offerings, by `orderIndex`. `title` matches part of the title ignoring case, `tag` the " +
        'offerings carrying every tag given, `offeringCategoryId` those in that category. `userId` keeps the offerings open ' +
        'for registration now that the user may register for: none for a deactivated user, and none the user holds an ' +
        'active registration of (or a finished one, unless retakes are allowed).',
      scope: 'read',
      query: OfferingQuery,
    },
    get: {
      summary: 'Get an offering',
      description: "The offering. An id that is not one of the organization's offerings is a 404.",
      scope: 'read',
    },
    create: {
      summary: 'Create an offering',
      description:
        'Beyond v5. `title` is required. It is open for registration between `registrationBeginDate` and ' +
        '`registrationEndDate` (a bound left out does not close it); `passingGrade` (70 unless given) decides whether a ' +
        'grade passes. Answers 201 with its URL in `Location`.',
      scope: 'write',
      body: CreateOffering,
    },
    update: {
      summary: 'Update an offering (partial); orderIndex moves it',
      description:
        'Beyond v5. Changes only the properties sent; a new `orderIndex` moves the others to keep the order without gaps. ' +
        'Registrations keep the title the offering had when they were made.',
      scope: 'write',
      body: UpdateOffering,
    },
    delete: {
      summary: 'Delete an offering that has no registrations but ejected ones (which go with it)',
      description: 'Beyond v5. While a registration of it is active, passed or failed, the answer is 400 and nothing is deleted.',
      scope: 'write',
      refusable: true,
    },
  });
};
