import { lockRow } from '../../db/locking.js';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { collectionRoutes, listRoute, operationId } from '../../http/resource-routes.js';
import { itemUrl } from '../../http/urls.js';
import type { ApiTag } from '../../lib/openapi.js';
import { ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE } from '../../lib/schema.js';
import { CreatedWebhook, CreateWebhook, Delivery, DeliveryParams, DeliveryQuery, UpdateWebhook, Webhook, WebhookQuery } from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

export const webhooksTag: ApiTag = {
  name: 'Webhooks',
  description:
    "Beyond v5. Addresses that receive the organization's events as signed POSTs (Standard Webhooks), retried for a day, " +
    'with the record of every delivery.',
};
const tag = webhooksTag;

export const webhooksRoutes: ConditionalResourceRoutes<WebhooksService> = async (app, { service, transaction }) => {
  collectionRoutes(app, {
    collection: 'webhooks',
    name: 'webhooks',
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
        operationId: operationId('webhooks', 'create'),
        tags: [tag.name],
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
        operationId: operationId('webhooks', 'test'),
        tags: [tag.name],
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
      name: 'webhookDeliveries',
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
        operationId: operationId('webhookDeliveries', 'resend'),
        tags: [tag.name],
        summary: 'Beyond v5. Send a delivery again now, with the same webhook-id, and retry it for another day',
        params: DeliveryParams,
        response: { 202: Delivery, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request, reply) => reply.code(202).send(await service.resend(request.caller, request.params.id, request.params.deliveryId)),
  );
};
