import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../events/event-types.js';
import { LOOPBACK_DOMAIN, LOOPBACK_NAMES, MAX_LABEL_LENGTH, MAX_NAME_LENGTH, PRIVATE_DOMAINS } from '../../events/webhooks/address-policy.js';
import { ListQuery } from '../../lib/paging.js';
import { Body, Nullable, ReadOnly, Timestamp, TimestampInput } from '../../lib/schema.js';

/** `text` in either case, as a pattern: JSON Schema's patterns take no flags. */
const anyCase = (text: string) => text.replace(/[a-z]/g, (letter) => `[${letter.toUpperCase()}${letter}]`).replaceAll('.', '\\.');
/** Where a host name ends: its optional final dot, then a port, the path, the query, the fragment or nothing. */
const HOST_END = '\\.?(?::|[/?#]|$)';
/** Names that never lead to a public host, in any case: loopback ones, and those of private domains. */
const REFUSED_NAMES = [
  `(?:[^/?#:]*\\.)?(?:${[LOOPBACK_DOMAIN, ...Object.keys(PRIVATE_DOMAINS)].map(anyCase).join('|')})`,
  ...LOOPBACK_NAMES.map(anyCase),
]
  .map((name) => `${name}${HOST_END}`)
  .join('|');
/** A host name within DNS's limits, its last label starting with a letter (so that it is no address), and not one of the refused names. */
const HOST_NAME =
  `(?=[^/?#:]{1,${MAX_NAME_LENGTH}}${HOST_END})(?!${REFUSED_NAMES})` +
  `(?:[A-Za-z0-9-]{1,${MAX_LABEL_LENGTH}}\\.)*[A-Za-z][A-Za-z0-9-]{0,${MAX_LABEL_LENGTH - 1}}\\.?`;
const PORT = '(?::(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|\\d{1,4}))?';
/**
 * An https URL whose host is a public name: an address literal or user information is refused by the
 * service (address-policy.ts, which says why), and http only reaches loopback when a test or
 * development server allows it, so the document says https.
 */
const WEBHOOK_URL_PATTERN = `^[Hh][Tt][Tt][Pp][Ss]://${HOST_NAME}${PORT}(?:[/?#][^\\s\\\\]*)?$`;

const Url = Type.String({
  format: 'uri',
  documentPattern: WEBHOOK_URL_PATTERN,
  maxLength: 2048,
  errorMessage: 'must be an https URL of at most 2048 characters',
  description:
    'Where events are POSTed: https, to a public host name (at most 253 characters; loopback, `.internal`, `.local` and `.home.arpa` names refused), checked on the addresses it resolves to at every delivery',
});
const EventTypes = Type.Array(Type.String({ enum: [...EVENT_TYPES] }), {
  minItems: 1,
  uniqueItems: true,
  errorMessage: `must be a list of distinct event types among ${EVENT_TYPES.join(', ')}`,
  description: 'The event types the webhook receives',
});
const Description = Type.String({ maxLength: 1000, errorMessage: 'must be a string of at most 1000 characters' });

export const Webhook = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Array(Type.String({ enum: [...EVENT_TYPES] })),
    description: Type.Optional(Type.String()),
    disabled: Type.Boolean({ description: 'True after every attempt failed for 24 hours, or when disabled by PUT; nothing is delivered meanwhile' }),
    disabledReason: Type.Optional(Type.String()),
    disabledDate: Type.Optional(Timestamp('When it was disabled')),
    createdDate: Timestamp('When the webhook was created'),
    updatedDate: Timestamp('When it last changed'),
  },
  { $id: 'Webhook', additionalProperties: false },
);
export type Webhook = Static<typeof Webhook>;

export const CreatedWebhook = Type.Object(
  {
    ...Webhook.properties,
    secret: Type.Optional(
      Type.String({
        description:
          'The signing secret (whsec_...), shown this once: receivers verify the webhook-signature header with it. ' +
          'A replay of the creation (Idempotency-Key) answers without it, which is kept nowhere but in the webhook: ' +
          'a client that lost the first answer deletes the webhook and creates it again.',
      }),
    ),
  },
  { $id: 'CreatedWebhook', additionalProperties: false },
);
export type CreatedWebhook = Static<typeof CreatedWebhook>;

const readOnlyProperties = {
  id: ReadOnly(),
  createdDate: ReadOnly(),
  updatedDate: ReadOnly(),
  disabledReason: ReadOnly(),
  disabledDate: ReadOnly(),
};

export const CreateWebhook = Body({ url: Url, events: EventTypes, description: Type.Optional(Description), ...readOnlyProperties });
export type CreateWebhook = Static<typeof CreateWebhook>;

/** Partial, as every PUT: `disabled: false` enables a disabled webhook again, and its pending deliveries resume. */
export const UpdateWebhook = Body({
  url: Type.Optional(Url),
  events: Type.Optional(EventTypes),
  description: Type.Optional(Nullable(Description)),
  disabled: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })),
  ...readOnlyProperties,
});
export type UpdateWebhook = Static<typeof UpdateWebhook>;

/** What PUT answers when it enables a disabled webhook again (otherwise 204). */
export const EnabledWebhook = Type.Object(
  {
    ...Webhook.properties,
    missedEvents: Type.Integer({
      description:
        'Events of the types it receives that were made while it was disabled: none was queued for it. ' +
        'POST the body `recover.body` to `recover.url` to queue them',
    }),
    recover: Type.Object(
      {
        url: Type.String({ format: 'uri', description: "The webhook's recover URL" }),
        body: Type.Object({ since: Timestamp('When it was disabled') }, { additionalProperties: false }),
      },
      { additionalProperties: false, description: 'How to queue the missed events' },
    ),
  },
  { $id: 'EnabledWebhook', additionalProperties: false },
);
export type EnabledWebhook = Static<typeof EnabledWebhook>;

export const RecoverWebhook = Body({
  since: TimestampInput(
    'Queue the events from this moment on (as their createdDate); at most EVENTS_RETENTION_DAYS (30) ago, the events the feed keeps',
  ),
});
export type RecoverWebhook = Static<typeof RecoverWebhook>;

export const Recovery = Type.Object(
  {
    queued: Type.Integer({ description: 'How many events were queued for the webhook' }),
    since: Timestamp('From when'),
  },
  { $id: 'WebhookRecovery', additionalProperties: false },
);
export type Recovery = Static<typeof Recovery>;

export const WebhookQuery = ListQuery({});
export type WebhookQuery = Static<typeof WebhookQuery>;

const DeliveryAttempt = Type.Object({
  attempt: Type.Integer(),
  attemptedDate: Timestamp('When the attempt began'),
  durationMs: Type.Integer(),
  statusCode: Type.Optional(Type.Integer({ description: "The receiver's HTTP status" })),
  error: Type.Optional(Type.String({ description: 'Why no answer came (timeout, refused address, connection error)' })),
  responseBody: Type.Optional(Type.String({ description: "The start of the receiver's answer" })),
});

export const Delivery = Type.Object(
  {
    id: Type.String(),
    eventId: Type.String({ description: 'The webhook-id header: the same on every attempt and resend' }),
    eventType: Type.String({ description: 'An event type, or webhook.ping for a test' }),
    status: Type.String({ enum: ['pending', 'succeeded', 'failed'] }),
    nextAttemptDate: Type.Optional(
      Type.String({
        description:
          'While pending: when the next attempt is due (UTC, with milliseconds); absent while it waits for an earlier ' +
          'delivery of the same resource to succeed or fail for good',
      }),
    ),
    createdDate: Timestamp('When the delivery was queued'),
    attempts: Type.Array(DeliveryAttempt),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);
export type Delivery = Static<typeof Delivery>;

export const DeliveryQuery = ListQuery({});
export type DeliveryQuery = Static<typeof DeliveryQuery>;

export const DeliveryParams = Type.Object({ id: Type.String(), deliveryId: Type.String() });
