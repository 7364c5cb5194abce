import type { FastifyRequest } from 'fastify';
import type { ApiInstance } from '../../app.js';
import { projectDocument } from '../documents.js';
import { listQueryOf, queryText } from '../list.js';
import { scimBase } from '../scim.plugin.js';
import { GROUP_RESOURCE } from './scim-groups.service.js';

type ById = { Params: { id: string } };

/** /Groups: list with filter and paging, create, read, replace (PUT), patch (204), delete. */
export async function scimGroupsRoutes(app: ApiInstance): Promise<void> {
  const { scimGroups } = app.services;
  const context = (request: FastifyRequest) => scimGroups.context(request.caller, scimBase(request));
  const attributes = (request: FastifyRequest) => [queryText(request, 'attributes'), queryText(request, 'excludedAttributes')] as const;

  app.get('/Groups', async (request) => scimGroups.list(context(request), listQueryOf(request)));

  app.post('/Groups', async (request, reply) => {
    const document = await scimGroups.create(context(request), request.body);
    const shown = projectDocument(document, GROUP_RESOURCE, ...attributes(request));
    return reply
      .code(201)
      .header('Location', (document.meta as { location: string }).location)
      .send(shown);
  });

  app.get<ById>('/Groups/:id', async (request) => scimGroups.get(context(request), request.params.id, ...attributes(request)));

  app.put<ById>('/Groups/:id', async (request) =>
    projectDocument(await scimGroups.replace(context(request), request.params.id, request.body), GROUP_RESOURCE, ...attributes(request)),
  );

  app.patch<ById>('/Groups/:id', async (request, reply) => {
    await scimGroups.patch(context(request), request.params.id, request.body);
    return reply.code(204).send();
  });

  app.delete<ById>('/Groups/:id', async (request, reply) => {
    await scimGroups.delete(context(request), request.params.id);
    return reply.code(204).send();
  });
}
