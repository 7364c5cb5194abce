import type { ResourceRoutes } from '../../http/api-instance.js';
import { operationId } from '../../http/resource-routes.js';
import { requestOrigin } from '../../http/urls.js';
import { DEFAULT_LIMIT, Page, type PageBody } from '../../lib/paging.js';
import type { ApiTag } from '../../lib/openapi.js';
import { ERROR_RESPONSE } from '../../lib/schema.js';
import { Event, EventQuery } from './events.schemas.js';
import type { EventsService } from './events.service.js';

export const eventsTag: ApiTag = {
  name: 'Events',
  description: 'Beyond v5. What changed in the organization, in commit order, for incremental synchronization; webhooks deliver the same events.',
};

export const eventsRoutes: ResourceRoutes<EventsService> = async (app, { service }) => {
  app.get(
    '/events',
    {
      // Read in commit order, it must see every commit (and a read may place positions): never a replica.
      config: { primaryReads: true },
      schema: {
        operationId: operationId('events', 'list'),
        tags: [eventsTag.name],
        summary: 'Beyond v5. The changes of the organization in the order they committed, kept for a retention period (30 days by default)',
        querystring: EventQuery,
        response: { 200: Page(Event), 400: ERROR_RESPONSE },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await service.list(request.caller, request.query);
      const page: PageBody<Event> = { results: rows.slice(0, limit) };
      if (rows.length > limit) {
        const [path] = request.url.split('?', 1) as [string];
        const params = new URLSearchParams({ after: page.results.at(-1)!.id, limit: String(limit) });
        page.next = `${requestOrigin(request)}${path}?${params.toString()}`;
      }
      return page;
    },
  );
};
