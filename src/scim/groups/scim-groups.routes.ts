import { preconditionHeader } from '../../http/conditional-requests.js';
import type { FastifyRequest } from 'fastify';
import type { ResourceRoutes } from '../../http/api-instance.js';
import { projection } from '../documents.js';
import { listQueryOf, queryText, searchQueryOf } from '../list.js';
import { scimBase } from '../base-url.js';
import { withVersion } from '../versions.js';
import { GROUP_RESOURCE } from './scim-groups.service.js';
import type { ScimGroupsService } from './scim-groups.service.js';

type ById = { Params: { id: string } };

/** /Groups: list with filter and paging, create, read, replace (PUT), patch (204), delete. */
export const scimGroupsRoutes: ResourceRoutes<ScimGroupsService> = async (app, { service }) => {
  const context = (request: FastifyRequest) => service.context(request.caller, scimBase(request));
  const attributes = (request: FastifyRequest) => [queryText(request, 'attributes'), queryText(request, 'excludedAttributes')] as const;

  app.get('/Groups', { config: { scope: 'scim' } }, async (request) => service.list(context(request), listQueryOf(request)));
  app.post('/Groups/.search', { config: { scope: 'scim' } }, async (request) => service.list(context(request), searchQueryOf(request.body)));

  app.post('/Groups', { config: { scope: 'scim' } }, async (request, reply) => {
    const show = projection(GROUP_RESOURCE, ...attributes(request));
    const document = withVersion(reply, await service.create(context(request), request.body));
    return reply
      .code(201)
      .header('Location', (document.meta as { location: string }).location)
      .send(show(document));
  });

  app.get<ById>('/Groups/:id', { config: { scope: 'scim' } }, async (request, reply) => {
    const show = projection(GROUP_RESOURCE, ...attributes(request));
    return show(withVersion(reply, await service.get(context(request), request.params.id, ...attributes(request))));
  });

  app.put<ById>('/Groups/:id', { config: { scope: 'scim' } }, async (request, reply) => {
    const show = projection(GROUP_RESOURCE, ...attributes(request));
    return show(
      withVersion(reply, await service.replace(context(request), request.params.id, request.body, preconditionHeader(request, 'if-match'))),
    );
  });

  app.patch<ById>('/Groups/:id', { config: { scope: 'scim' } }, async (request, reply) => {
    const version = await service.patch(context(request), request.params.id, request.body, preconditionHeader(request, 'if-match'));
    if (version !== undefined) reply.header('ETag', version);
    return reply.code(204).send();
  });

  app.delete<ById>('/Groups/:id', { config: { scope: 'scim' } }, async (request, reply) => {
    await service.delete(context(request), request.params.id, preconditionHeader(request, 'if-match'));
    return reply.code(204).send();
  });
};
