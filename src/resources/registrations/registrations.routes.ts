import { lockRow } from '../../db/locking.js';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { collectionRoutes } from '../../http/resource-routes.js';
import type { ApiTag } from '../../lib/openapi.js';
import { CreateRegistration, Registration, RegistrationQuery, UpdateRegistration } from './registrations.schemas.js';
import type { RegistrationsService } from './registrations.service.js';

export const registrationsTag: ApiTag = {
  name: 'Registrations',
  description: 'A user registered for an offering: active until ejected, or passed or failed by a grade.',
};
export const registrationsRoutes: ConditionalResourceRoutes<RegistrationsService> = async (app, { service, transaction }) => {
  collectionRoutes(app, {
    collection: 'registrations',
    name: 'registrations',
    tag: registrationsTag,
    item: Registration,
    service,
    transaction,
    lock: (trx, orgId, { id }) => lockRow(trx, 'registrations', orgId, id),
    list: {
      summary: 'List registrations by creation date',
      description:
        "A page of the organization's registrations, oldest first, filtered by `status`, `userId`, `offeringId` and their " +
        'dates. A `userId` or `offeringId` that does not exist in the organization is a 400 on that parameter.',
      scope: 'read',
      query: RegistrationQuery,
    },
    get: {
      summary: 'Get a registration',
      description: "The registration, with the offering's title as it was when the user registered. 404 for an id not in the organization.",
      scope: 'read',
    },
    create: {
      summary: 'Register a user for an offering that is open for registration',
      description:
        '`userId` and `offeringId` are required. A 400 names the property at fault when the user or the offering does not ' +
        'exist, the user is deactivated, the offering is not open for registration now, or the user already holds an active ' +
        'registration of it (or a finished one, and the offering allows no retake); an ejected registration blocks nothing. ' +
        'Answers 201 with its URL in `Location`.',
      scope: 'write',
      body: CreateRegistration,
    },
    update: {
      summary: 'Eject ({"status": "ejected"}) or grade ({"grade": n}) a registration',
      description:
        'One of two changes. `{"status": "ejected"}` ends an active registration without a grade; a graded or already ejected ' +
        'one answers 400 and stays as it is. `{"grade": n}`, 0 to 100 with an optional `graderComment`, sets `status` to ' +
        "`passed` when `n` reaches the offering's `passingGrade`, else `failed`, and `endDate` when it had none. " +
        '`{"status": "active"}` on an active registration changes nothing. Anything else is a 400.',
      scope: 'write',
      body: UpdateRegistration,
    },
  });
};
