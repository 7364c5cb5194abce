import { preconditionHeader } from '../../http/conditional-requests.js';
import type { FastifyRequest } from 'fastify';
import type { ResourceRoutes } from '../../http/api-instance.js';
import { projection, type ScimDocument } from '../documents.js';
import { listQueryOf, queryText, searchQueryOf } from '../list.js';
import { scimBase } from '../base-url.js';
import { withVersion } from '../versions.js';
import type { ScimUsersContext, ScimUsersService } from './scim-users.service.js';

type ById = { Params: { id: string } };

/** A resource as asked with `attributes`/`excludedAttributes`, checked before the request does anything. */
function shown(ctx: { schema: ScimUsersContext['schema'] }, request: FastifyRequest): (document: ScimDocument) => ScimDocument {
  return projection(ctx.schema, queryText(request, 'attributes'), queryText(request, 'excludedAttributes'));
}

/** /Users (RFC 7644 §3): list with filter and paging, create, read, replace (PUT), patch, delete. */
export const scimUsersRoutes: ResourceRoutes<ScimUsersService> = async (app, { service }) => {
  const context = (request: FastifyRequest) => service.context(request.caller, scimBase(request));

  app.get('/Users', { config: { scope: 'scim' } }, async (request) => service.list(await context(request), listQueryOf(request)));
  app.post('/Users/.search', { config: { scope: 'scim' } }, async (request) => service.list(await context(request), searchQueryOf(request.body)));

  app.post('/Users', { config: { scope: 'scim' } }, async (request, reply) => {
    const ctx = await context(request);
    const show = shown(ctx, request);
    const document = withVersion(reply, await service.create(ctx, request.body));
    return reply
      .code(201)
      .header('Location', (document.meta as { location: string }).location)
      .send(show(document));
  });

  app.get<ById>('/Users/:id', { config: { scope: 'scim' } }, async (request, reply) => {
    const ctx = await context(request);
    const show = shown(ctx, request);
    return show(withVersion(reply, await service.get(ctx, request.params.id)));
  });

  app.put<ById>('/Users/:id', { config: { scope: 'scim' } }, async (request, reply) => {
    const ctx = await context(request);
    const show = shown(ctx, request);
    return show(withVersion(reply, await service.replace(ctx, request.params.id, request.body, preconditionHeader(request, 'if-match'))));
  });

  app.patch<ById>('/Users/:id', { config: { scope: 'scim' } }, async (request, reply) => {
    const ctx = await context(request);
    const show = shown(ctx, request);
    return show(withVersion(reply, await service.patch(ctx, request.params.id, request.body, preconditionHeader(request, 'if-match'))));
  });

  app.delete<ById>('/Users/:id', { config: { scope: 'scim' } }, async (request, reply) => {
    await service.delete(await context(request), request.params.id, preconditionHeader(request, 'if-match'));
    return reply.code(204).send();
  });
};
