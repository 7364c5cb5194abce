import type { ResourceRoutes } from '../../http/api-instance.js';
import { itemRoutes, listRoute } from '../../http/resource-routes.js';
import type { ApiTag } from '../../lib/openapi.js';
import { IdParams } from '../../lib/schema.js';
import {
  Agreement,
  AgreementQuery,
  PutAgreement,
  PutUserAgreement,
  TypeParams,
  UserAgreement,
  UserAgreementParams,
  UserAgreementQuery,
} from './agreements.schemas.js';
import type { AgreementsService } from './agreements.service.js';

export const agreementsTag: ApiTag = {
  name: 'Agreements',
  description:
    'The standard agreement and custom ones (title and text), and whether each user agrees to their current text. ' +
    'A user agreement is at /users/{id}/agreements.',
};
const tag = agreementsTag;

export const agreementsRoutes: ResourceRoutes<AgreementsService> = async (app, { service }) => {
  listRoute(
    app,
    '/agreements',
    { name: 'agreements', tag, summary: 'List the agreements defined: standard, then custom', query: AgreementQuery, item: Agreement },
    (caller, { query, paging }) => service.list(caller, query, paging),
  );

  itemRoutes(app, {
    url: '/agreements/:type',
    name: 'agreements',
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

  listRoute(
    app,
    '/users/:id/agreements',
    {
      name: 'userAgreements',
      tag,
      summary: "A user's agreements: standard, then custom when defined",
      params: IdParams,
      query: UserAgreementQuery,
      item: UserAgreement,
    },
    (caller, { params, query, paging }) => service.listForUser(caller, params.id, query, paging),
  );

  itemRoutes(app, {
    url: '/users/:id/agreements/:type',
    name: 'userAgreements',
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
