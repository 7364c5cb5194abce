import { lockRow } from '../../db/locking.js';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { itemRoutes, listRoute } from '../../http/resource-routes.js';
import type { ApiTag } from '../../lib/openapi.js';
import { IdParams } from '../../lib/schema.js';
import {
  Agreement,
  AgreementQuery,
  type AgreementType,
  PutAgreement,
  PutUserAgreement,
  TypeParams,
  UserAgreement,
  UserAgreementParams,
  UserAgreementQuery,
} from './agreements.schemas.js';
import { agreementsRepository } from './agreements.repository.js';
import type { AgreementsService } from './agreements.service.js';

export const agreementsTag: ApiTag = {
  name: 'Agreements',
  description:
    'The standard agreement and custom ones (title and text), and whether each user agrees to their current text. ' +
    'A user agreement is at /users/{id}/agreements.',
};
const tag = agreementsTag;

export const agreementsRoutes: ConditionalResourceRoutes<AgreementsService> = async (app, { service, transaction }) => {
  listRoute(
    app,
    '/agreements',
    {
      name: 'agreements',
      tag,
      summary: 'List the agreements defined: standard, then custom',
      description: 'The standard agreement, which every organization has, then the custom one once it is defined.',
      scope: 'read',
      query: AgreementQuery,
      item: Agreement,
    },
    (caller, { query, paging }) => service.list(caller, query, paging),
  );

  itemRoutes(app, {
    url: '/agreements/:type',
    name: 'agreements',
    tag,
    params: TypeParams,
    item: Agreement,
    service,
    transaction,
    lock: (trx, orgId, { type }) => agreementsRepository(trx).lock(orgId, type as AgreementType),
    get: {
      summary: 'Get the standard or custom agreement',
      description: '`type` is `standard` or `custom`; the custom agreement is a 404 until it is defined.',
      scope: 'read',
      read: (service, caller, { type }) => service.get(caller, type),
    },
    put: {
      createsMissing: true,
      summary: 'Define (title and text required the first time) or revise an agreement',
      description:
        'Beyond v5. Defines the agreement, `title` and `text` required, or changes only what is sent of it. The custom ' +
        'agreement is always required: `required: false` on it is a 400. `If-None-Match: *` defines it only if nobody has yet.',
      scope: 'write',
      body: PutAgreement,
      write: (service, caller, { type }, input) => service.put(caller, type, input),
    },
  });

  listRoute(
    app,
    '/users/:id/agreements',
    {
      name: 'userAgreements',
      tag,
      summary: "A user's agreements: standard, then custom when defined",
      description: 'Each agreement with `agreed`, and `agreedDate` once the user agreed to its current text. 404 for a user not in the organization.',
      scope: 'read',
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
    service,
    transaction,
    // What a user agreed to is part of the user: every change of it locks the user's row.
    lock: (trx, orgId, { id }) => lockRow(trx, 'users', orgId, id),
    get: {
      summary: "A user's agreement to the standard or custom agreement",
      description:
        "The agreement's `title` and `text`, with `agreed` and, once agreed, `agreedDate`. 404 for the custom agreement until it is defined.",
      scope: 'read',
      read: (service, caller, { id, type }) => service.getForUser(caller, id, type),
    },
    put: {
      summary: 'Record that the user agrees (to the current text) or no longer agrees',
      description: '`{"agreed": true}` records the agreement to the current text, with the time; `false` withdraws it. Answers 204.',
      scope: 'write',
      body: PutUserAgreement,
      write: (service, caller, { id, type }, input) => service.setForUser(caller, id, type, input.agreed),
    },
  });
};
