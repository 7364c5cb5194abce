import type { ApiInstance } from '../../app.js';
import { collectionRoutes } from '../resource-routes.js';
import { CreateRegistration, Registration, RegistrationQuery, UpdateRegistration } from './registrations.schemas.js';

export async function registrationsRoutes(app: ApiInstance): Promise<void> {
  collectionRoutes(app, {
    collection: 'registrations',
    tag: 'Registrations',
    item: Registration,
    service: app.services.registrations,
    list: { summary: 'List registrations by creation date', query: RegistrationQuery },
    get: { summary: 'Get a registration' },
    create: { summary: 'Register a user for an offering that is open for registration', body: CreateRegistration },
    update: { summary: 'Eject ({"status": "ejected"}) or grade ({"grade": n}) a registration', body: UpdateRegistration },
  });
}
