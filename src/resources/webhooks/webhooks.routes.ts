import { lockRow } from '../../db/locking.js';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { collectionRoutes, listRoute } from '../../http/resource-routes.js';
import { itemUrl } from '../../http/urls.js';
import { ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE } from '../../lib/schema.js';
import { CreatedWebhook, CreateWebhook, Delivery, DeliveryParams, DeliveryQuery, UpdateWebhook, Webhook, WebhookQuery } from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const tag = 'Webhooks';

export const webhooksRoutes: ConditionalResourceRoutes<WebhooksService> = async (app, { service, transaction }) => {
  collectionRoutes(app, {
    collection: 'webhooks',
    tag,
    item: Webhook,
    // Created below: unlike other creations, with a body.
    service: { list: service.list, get: service.get, update: service.update, delete: service.delete },
    transaction,
    lock: (trx, orgId, { id }) => lockRow(trx, 'webhooks', orgId, id),
    list: { summary: 'Beyond v5. List webhooks', query: WebhookQuery },
    get: { summary: 'Beyond v5. Get a webhook' },
    update: { summary: 'Beyond v5. Update a webhook (partial); disabled: false enables it again', body: UpdateWebhook },
    delete: { summary: 'Beyond v5. Delete a webhook and its deliveries' },
  });

  // Unlike other creations, the answer has a body: the signing secret, shown this once.
  app.post(
    '/webhooks',
    {
      schema: {
        tags: [tag],
        summary: 'Beyond v5. Create a webhook: the answer holds its signing secret, shown this once',
        body: CreateWebhook,
        response: { 201: CreatedWebhook, 400: ERROR_RESPONSE },
      },
    },
    async (request, reply) => {
      const webhook = await service.create(request.caller, request.body);
      return reply
        .code(201)
        .header('Location', itemUrl(request, 'webhooks', webhook.id))
        .send(webhook);
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        tags: [tag],
        summary: 'Beyond v5. Send a webhook.ping event to the webhook now',
        params: IdParams,
        response: { 202: Delivery, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => reply.code(202).send(await service.test(request.caller, request.params.id)),
  );

  listRoute(
    app,
    '/webhooks/:id/deliveries',
    {
      tag,
      summary: 'Beyond v5. The deliveries to the webhook, newest first, each with its attempts',
      params: IdParams,
      query: DeliveryQuery,
      item: Delivery,
    },
    (caller, { params, query, paging }) => service.deliveries(caller, params.id, query, paging),
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/resend',
    {
      schema: {
        tags: [tag],
        summary: 'Beyond v5. Send a delivery again now, with the same webhook-id, and retry it for another day',
        params: DeliveryParams,
        response: { 202: Delivery, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => reply.code(202).send(await service.resend(request.caller, request.params.id, request.params.deliveryId)),
  );
};
