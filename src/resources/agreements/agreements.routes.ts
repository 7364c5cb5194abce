import type { ApiInstance } from '../../app.js';
import { ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE, NO_CONTENT } from '../../lib/schema.js';
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

const tags = ['Agreements'];

export async function agreementsRoutes(app: ApiInstance): Promise<void> {
  const { agreements } = app.services;

  app.get(
    '/agreements',
    { schema: { tags, summary: 'List the agreements defined: standard, then custom', response: { 200: Agreements } } },
    async (request) => ({ results: await agreements.list(request.caller) }),
  );

  app.get(
    '/agreements/:type',
    {
      schema: { tags, summary: 'Get the standard or custom agreement', params: TypeParams, response: { 200: Agreement, 404: NOT_FOUND_RESPONSE } },
    },
    async (request) => agreements.get(request.caller, request.params.type),
  );

  app.put(
    '/agreements/:type',
    {
      schema: {
        tags,
        summary: 'Define (title and text required the first time) or revise an agreement',
        params: TypeParams,
        body: PutAgreement,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => {
      await agreements.put(request.caller, request.params.type, request.body);
      return reply.code(204).send();
    },
  );

  app.get(
    '/users/:id/agreements',
    {
      schema: {
        tags,
        summary: "A user's agreements: standard, then custom when defined",
        params: IdParams,
        response: { 200: UserAgreements, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request) => ({ results: await agreements.listForUser(request.caller, request.params.id) }),
  );

  app.get(
    '/users/:id/agreements/:type',
    {
      schema: {
        tags,
        summary: "A user's agreement to the standard or custom agreement",
        params: UserAgreementParams,
        response: { 200: UserAgreement, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request) => agreements.getForUser(request.caller, request.params.id, request.params.type),
  );

  app.put(
    '/users/:id/agreements/:type',
    {
      schema: {
        tags,
        summary: 'Record that the user agrees (to the current text) or no longer agrees',
        params: UserAgreementParams,
        body: PutUserAgreement,
        response: { 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => {
      await agreements.setForUser(request.caller, request.params.id, request.params.type, request.body.agreed);
      return reply.code(204).send();
    },
  );
}
