import type { ResourceRoutes } from '../../http/api-instance.js';
import { operationId } from '../../http/resource-routes.js';
import { requestOrigin } from '../../http/urls.js';
import { sendJsonText } from '../../http/json-text.js';
import { DEFAULT_LIMIT, Page } from '../../lib/paging.js';
import type { ApiTag } from '../../lib/openapi.js';
import { ERROR_RESPONSE } from '../../lib/schema.js';
import { Event, EventQuery } from './events.schemas.js';
import type { EventsService } from './events.service.js';

export const eventsTag: ApiTag = {
  name: 'Events',
  description: 'Beyond v5. What changed in the organization, in commit order, for incremental synchronization; webhooks deliver the same events.',
};

/** The start of a page, before its events. */
const PAGE_START = Buffer.from('{"results":[');

export const eventsRoutes: ResourceRoutes<EventsService> = async (app, { service }) => {
  app.get(
    '/events',
    {
      // Read in commit order, it must see every commit (and a read may place positions): never a replica.
      config: { scope: 'read', primaryReads: true },
      schema: {
        operationId: operationId('events', 'list'),
        tags: [eventsTag.name],
        summary: 'Beyond v5. The changes of the organization in the order they committed, kept for a retention period (30 days by default)',
        description:
          'Each event holds the resource as the API answers it after the change (`data`; as it was, for a deletion) and, for ' +
          'an update, the previous value of what changed (`previousAttributes`). Keep the id of the last event read and ask ' +
          'for `after` it: nothing that commits later is listed before it, and `next` is there while more follow. An `after` ' +
          'older than the retention is a 400: start over from the `updatedDate` lists.',
        querystring: EventQuery,
        response: { 200: Page(Event), 400: ERROR_RESPONSE },
      },
    },
    async (request, reply) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const events = await service.list(request.caller, request.query);
      // The Page envelope around its events' JSON, which the database wrote as `eventJson` does.
      let end = ']';
      if (events.more) {
        const [path] = request.url.split('?', 1) as [string];
        const params = new URLSearchParams({ after: events.lastId!, limit: String(limit) });
        end += `,"next":${JSON.stringify(`${requestOrigin(request)}${path}?${params.toString()}`)}`;
      }
      return sendJsonText(reply, Buffer.concat([PAGE_START, events.json, Buffer.from(`${end}}`)]));
    },
  );
};
