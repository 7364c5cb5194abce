import type { ApiInstance } from '../../app.js';
import { Page, pageOf, pagingOf } from '../../lib/paging.js';
import { CREATED, ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE, NO_CONTENT } from '../../lib/schema.js';
import { itemUrl } from '../../lib/urls.js';
import { CreateRegistration, Registration, RegistrationQuery, UpdateRegistration } from './registrations.schemas.js';

const tags = ['Registrations'];

export async function registrationsRoutes(app: ApiInstance): Promise<void> {
  const { registrations } = app.services;

  app.get(
    '/registrations',
    {
      schema: {
        tags,
        summary: 'List registrations by creation date',
        querystring: RegistrationQuery,
        response: { 200: Page(Registration), 400: ERROR_RESPONSE },
      },
    },
    async (request) => {
      const paging = pagingOf(request.query);
      return pageOf(request, await registrations.list(request.caller, request.query, paging), paging);
    },
  );

  app.get(
    '/registrations/:id',
    { schema: { tags, summary: 'Get a registration', params: IdParams, response: { 200: Registration, 404: NOT_FOUND_RESPONSE } } },
    async (request) => registrations.get(request.caller, request.params.id),
  );

  app.post(
    '/registrations',
    {
      schema: {
        tags,
        summary: 'Register a user for an offering that is open for registration',
        body: CreateRegistration,
        response: { 201: CREATED, 400: ERROR_RESPONSE },
      },
    },
    async (request, reply) => {
      const id = await registrations.create(request.caller, request.body);
      return reply.code(201).header('Location', itemUrl(request, 'registrations', id)).send();
    },
  );

  app.put(
    '/registrations/:id',
    {
      schema: {
        tags,
        summary: 'Eject ({"status": "ejected"}) or grade ({"grade": n}) a registration',
        params: IdParams,
        body: UpdateRegistration,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => {
      await registrations.update(request.caller, request.params.id, request.body);
      return reply.code(204).send();
    },
  );
}
