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
    list: { summary: 'List registrations by creation date', query: RegistrationQuery },
    get: { summary: 'Get a registration' },
    create: { summary: 'Register a user for an offering that is open for registration', body: CreateRegistration },
    update: { summary: 'Eject ({"status": "ejected"}) or grade ({"grade": n}) a registration', body: UpdateRegistration },
  });
};
