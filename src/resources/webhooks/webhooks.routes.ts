import { lockRow } from '../../db/locking.js';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { writeIfUnchanged } from '../../http/conditional-requests.js';
import { collectionRoutes, listRoute, operationId } from '../../http/resource-routes.js';
import { idempotent, sendAnswer, type Answer } from '../../idempotency/idempotency.plugin.js';
import { itemUrl } from '../../http/urls.js';
import type { ApiTag } from '../../lib/openapi.js';
import { ERROR_RESPONSE, IdParams, NO_CONTENT, NOT_FOUND_RESPONSE, PRECONDITION_FAILED } from '../../lib/schema.js';
import {
  CreatedWebhook,
  CreateWebhook,
  Delivery,
  DeliveryParams,
  DeliveryQuery,
  EnabledWebhook,
  Recovery,
  RecoverWebhook,
  UpdateWebhook,
  Webhook,
  WebhookQuery,
} from './webhooks.schemas.js';
import type { Reenabled, WebhooksService } from './webhooks.service.js';

export const webhooksTag: ApiTag = {
  name: 'Webhooks',
  description:
    "Beyond v5. Addresses that receive the organization's events as signed POSTs (Standard Webhooks), retried for a day, " +
    'with the record of every delivery.',
};
const tag = webhooksTag;
/** A delivery queued now (by a test or a resend). */
const accepted = (delivery: Delivery) => ({ status: 202, body: delivery });

export const webhooksRoutes: ConditionalResourceRoutes<WebhooksService> = async (app, { service, transaction }) => {
  collectionRoutes(app, {
    collection: 'webhooks',
    name: 'webhooks',
    tag,
    item: Webhook,
    // Created and updated below: unlike other creations and updates, with a body.
    service: { list: service.list, get: service.get, delete: service.delete },
    transaction: (actor, work) => transaction(actor, (service, trx) => work({ get: service.get, delete: service.delete }, trx)),
    lock: (trx, orgId, { id }) => lockRow(trx, 'webhooks', orgId, id),
    list: {
      summary: 'Beyond v5. List webhooks',
      description: "A page of the organization's webhooks, oldest first, never with their secrets.",
      scope: 'read',
      query: WebhookQuery,
    },
    get: {
      summary: 'Beyond v5. Get a webhook',
      description: 'The webhook without its secret; `disabled` and `disabledReason` tell when every attempt failed for 24 hours.',
      scope: 'read',
    },
    delete: {
      summary: 'Beyond v5. Delete a webhook and its deliveries',
      description: 'Nothing more is sent to it, pending deliveries included.',
      scope: 'write',
    },
  });

  // 204 as every PUT, except when it enables a disabled webhook: 200 says then what it missed and how to recover it.
  app.put(
    '/webhooks/:id',
    {
      schema: {
        operationId: operationId('webhooks', 'update'),
        tags: [tag.name],
        summary:
          'Beyond v5. Update a webhook (partial); disabled: false enables it again, and the answer (200) counts the events it missed meanwhile',
        description:
          'Changes only what is sent, and answers 204. Enabling a disabled webhook answers 200 instead, with the webhook, ' +
          "`missedEvents` and `recover`, the request that queues what it missed. To keep each resource's order, recover " +
          'while it is still disabled, then enable it.',
        params: IdParams,
        body: UpdateWebhook,
        response: { 200: EnabledWebhook, 204: NO_CONTENT, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE, 412: PRECONDITION_FAILED },
      },
      config: { scope: 'write' },
    },
    async (request, reply) => {
      const { caller } = request;
      const { id } = request.params;
      let reenabled: Reenabled | undefined;
      await writeIfUnchanged(request, {
        service,
        transaction,
        lock: async (trx) => {
          await lockRow(trx, 'webhooks', caller.orgId, id);
        },
        read: (service) => service.get(caller, id),
        write: async (service) => {
          reenabled = await service.update(caller, id, request.body);
        },
      });
      if (!reenabled) return reply.code(204).send();
      const { webhook, missedEvents, disabledDate } = reenabled;
      return { ...webhook, missedEvents, recover: { url: `${itemUrl(request, 'webhooks', id)}/recover`, body: { since: disabledDate } } };
    },
  );

  // Unlike other creations, the answer has a body: the signing secret, shown this once. A replay of the
  // creation (Idempotency-Key) answers the webhook without it, so that the key's store never holds it.
  const withoutSecret = ({ body, ...answer }: Answer<CreatedWebhook>): Answer<Webhook> => {
    const { secret, ...webhook } = body!;
    return { ...answer, body: webhook };
  };
  app.post(
    '/webhooks',
    {
      schema: {
        operationId: operationId('webhooks', 'create'),
        tags: [tag.name],
        summary: 'Beyond v5. Create a webhook: the answer holds its signing secret, shown this once',
        description:
          '`url` must be https to a public address, checked again at every delivery; `events` names the event types it ' +
          'receives. Each delivery is a POST signed per Standard Webhooks with `secret` (`whsec_...`), retried with back-off ' +
          'for 24 hours until the receiver answers 2xx. A retry with the same Idempotency-Key answers the webhook without ' +
          'its secret, which is kept nowhere else: a client that lost it deletes the webhook and creates it again.',
        body: CreateWebhook,
        response: { 201: CreatedWebhook, 400: ERROR_RESPONSE },
      },
      config: { scope: 'write' },
    },
    async (request, reply) => {
      const created = (webhook: CreatedWebhook) => ({ status: 201, location: itemUrl(request, 'webhooks', webhook.id), body: webhook });
      return sendAnswer(reply, await idempotent(request, created, (caller) => service.create(caller, request.body), withoutSecret));
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        operationId: operationId('webhooks', 'test'),
        tags: [tag.name],
        summary: 'Beyond v5. Send a webhook.ping event to the webhook now',
        description: 'Answers 202 with the delivery, queued; its attempts show in the deliveries list. A disabled webhook is a 400: enable it first.',
        params: IdParams,
        response: { 202: Delivery, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
      config: { scope: 'write' },
    },
    async (request, reply) => sendAnswer(reply, await idempotent(request, accepted, (caller) => service.test(caller, request.params.id))),
  );

  app.post(
    '/webhooks/:id/recover',
    {
      schema: {
        operationId: operationId('webhooks', 'recover'),
        tags: [tag.name],
        summary:
          'Beyond v5. Queue again the events since a moment that the webhook missed (made while it was disabled) or whose delivery failed for good',
        description:
          'Queues every event of the feed since `since` (included) of the types the webhook receives that it has no pending ' +
          'or successful delivery of, in the order of the feed, after the deliveries already queued. `since` may precede the ' +
          'webhook, never the retention of events nor now. Answers 202 with the count queued.',
        params: IdParams,
        body: RecoverWebhook,
        response: { 202: Recovery, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
      config: { scope: 'write' },
    },
    async (request, reply) => {
      const queued = (recovery: Recovery) => ({ status: 202, body: recovery });
      return sendAnswer(reply, await idempotent(request, queued, (caller) => service.recover(caller, request.params.id, request.body)));
    },
  );

  listRoute(
    app,
    '/webhooks/:id/deliveries',
    {
      name: 'webhookDeliveries',
      tag,
      summary: 'Beyond v5. The deliveries to the webhook, newest first, each with its attempts',
      description:
        "Each delivery's event, state and every attempt with the receiver's status or the error. 404 for a webhook not in the organization.",
      scope: 'read',
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
        description:
          'Answers 202 with the delivery, queued again under its first `webhook-id`, which tells a receiver it is a repeat. ' +
          'A disabled webhook is a 400: enable it first.',
        params: DeliveryParams,
        response: { 202: Delivery, 400: ERROR_RESPONSE, 404: NOT_FOUND_RESPONSE },
      },
      config: { scope: 'write' },
    },
    async (request, reply) =>
      sendAnswer(reply, await idempotent(request, accepted, (caller) => service.resend(caller, request.params.id, request.params.deliveryId))),
  );
};
