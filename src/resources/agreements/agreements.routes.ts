import type { ResourceRoutes } from '../../http/api-instance.js';
import { itemRoutes } from '../../http/resource-routes.js';
import { IdParams } from '../../lib/schema.js';
import {
  Agreement,
  Agreements,
  PutAgreement,
  PutUserAgreement,
  TypeParams,
  UserAgreement,
  UserAgreementParams,
  UserAgreements,
} from './agreements.schemas.js';
import type { AgreementsService } from './agreements.service.js';

const tag = 'Agreements';

export const agreementsRoutes: ResourceRoutes<AgreementsService> = async (app, { service }) => {
  app.get(
    '/agreements',
    { schema: { tags: [tag], summary: 'List the agreements defined: standard, then custom', response: { 200: Agreements } } },
    async (request) => ({ results: await service.list(request.caller) }),
  );

  itemRoutes(app, {
    url: '/agreements/:type',
    tag,
    params: TypeParams,
    item: Agreement,
    get: { summary: 'Get the standard or custom agreement', read: (caller, { type }) => service.get(caller, type) },
    put: {
      summary: 'Define (title and text required the first time) or revise an agreement',
      body: PutAgreement,
      write: (caller, { type }, input) => service.put(caller, type, input),
    },
  });

  itemRoutes(app, {
    url: '/users/:id/agreements',
    tag,
    params: IdParams,
    item: UserAgreements,
    get: {
      summary: "A user's agreements: standard, then custom when defined",
      read: async (caller, { id }) => ({ results: await service.listForUser(caller, id) }),
    },
  });

  itemRoutes(app, {
    url: '/users/:id/agreements/:type',
    tag,
    params: UserAgreementParams,
    item: UserAgreement,
    get: {
      summary: "A user's agreement to the standard or custom agreement",
      read: (caller, { id, type }) => service.getForUser(caller, id, type),
    },
    put: {
      summary: 'Record that the user agrees (to the current text) or no longer agrees',
      body: PutUserAgreement,
      write: (caller, { id, type }, input) => service.setForUser(caller, id, type, input.agreed),
    },
  });
};
