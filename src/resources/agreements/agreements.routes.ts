import type { ApiInstance } from '../../app.js';
import { IdParams } from '../../lib/schema.js';
import { itemRoutes } from '../resource-routes.js';
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

const tag = 'Agreements';

export async function agreementsRoutes(app: ApiInstance): Promise<void> {
  const { agreements } = app.services;

  app.get(
    '/agreements',
    { schema: { tags: [tag], summary: 'List the agreements defined: standard, then custom', response: { 200: Agreements } } },
    async (request) => ({ results: await agreements.list(request.caller) }),
  );

  itemRoutes(app, {
    url: '/agreements/:type',
    tag,
    params: TypeParams,
    item: Agreement,
    get: { summary: 'Get the standard or custom agreement', read: (caller, { type }) => agreements.get(caller, type) },
    put: {
      summary: 'Define (title and text required the first time) or revise an agreement',
      body: PutAgreement,
      write: (caller, { type }, input) => agreements.put(caller, type, input),
    },
  });

  itemRoutes(app, {
    url: '/users/:id/agreements',
    tag,
    params: IdParams,
    item: UserAgreements,
    get: {
      summary: "A user's agreements: standard, then custom when defined",
      read: async (caller, { id }) => ({ results: await agreements.listForUser(caller, id) }),
    },
  });

  itemRoutes(app, {
    url: '/users/:id/agreements/:type',
    tag,
    params: UserAgreementParams,
    item: UserAgreement,
    get: {
      summary: "A user's agreement to the standard or custom agreement",
      read: (caller, { id, type }) => agreements.getForUser(caller, id, type),
    },
    put: {
      summary: 'Record that the user agrees (to the current text) or no longer agrees',
      body: PutUserAgreement,
      write: (caller, { id, type }, input) => agreements.setForUser(caller, id, type, input.agreed),
    },
  });
}
