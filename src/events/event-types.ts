import type { Actor, ActorType } from '../lib/actors.js';

/** The columns of an event's actor, which the feed reads. */
export const ACTOR_COLUMNS = ['actor_type', 'actor_id', 'actor_name'] as const;
type ActorColumns = Record<(typeof ACTOR_COLUMNS)[number], string | null>;

/** What the outbox records, the event feed lists and webhooks subscribe to. */
export const EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  'userfield.created',
  'userfield.updated',
  'userfield.deleted',
  'userfieldcategory.created',
  'userfieldcategory.updated',
  'userfieldcategory.deleted',
  'userfieldvalues.updated',
  'registration.created',
  'registration.ejected',
  'registration.graded',
  'agreement.updated',
  'useragreement.updated',
  'offering.created',
  'offering.updated',
  'offering.deleted',
  'offeringcategory.created',
  'offeringcategory.updated',
  'offeringcategory.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What each event type carries as `data`: the resource's representation, declared beside the resource's
 * schemas by the module that owns it (`declare module '.../events/event-types.js'`), so that events need
 * none of the resources. `recordEvent` takes for each type exactly its representation.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface EventData {}

/** The `data` of an event of type `T`; never for a type no resource declared, so that recording one does not compile. */
export type EventDataOf<T extends EventType> = T extends keyof EventData ? EventData[T] : never;

/** Every type has its data declared: a type left out makes this line fail to compile. */
const everyTypeDeclared: Exclude<EventType, keyof EventData> extends never ? true : never = true;
void everyTypeDeclared;

/** An event as the feed lists it and webhooks receive it. */
export interface EventPayload<T extends EventType = EventType> {
  id: string;
  type: T;
  createdDate: string;
  organizationId: string;
  /** Who made the change; absent from events recorded before the actor was. */
  actor?: Actor;
  data: EventDataOf<T>;
  /** Update events: the previous values of the properties that changed (see outbox.ts `previousAttributes`). */
  previousAttributes?: Record<string, unknown>;
}

/** Event types about a user, delivered in one order with the user's own events. */
const USER_EVENT_PREFIXES = new Set(['user', 'userfieldvalues', 'useragreement']);

/**
 * The resource an event is about, as webhooks order their deliveries: one resource's events reach a
 * webhook in the order they committed. `user:<id>` for a user's events, its userfield values and its
 * agreements; otherwise the type's prefix and the resource's id (`offering:<id>`; an organization's
 * agreement has its type for an id).
 */
export function orderingKey(event: Pick<EventPayload, 'type' | 'data'>): string {
  const prefix = event.type.slice(0, event.type.indexOf('.'));
  return `${USER_EVENT_PREFIXES.has(prefix) ? 'user' : prefix}:${resourceIdOf(event)}`;
}

/** The id of the resource an event is about, as `orderingKey` gives it: the user's for their values and agreements. */
export function resourceIdOf(event: Pick<EventPayload, 'type' | 'data'>): string {
  const prefix = event.type.slice(0, event.type.indexOf('.'));
  const data = event.data as { id?: string; userId?: string; type?: string };
  return (USER_EVENT_PREFIXES.has(prefix) ? (data.userId ?? data.id) : (data.id ?? data.type))!;
}

/** An event's row as the outbox stored it (outbox.ts, `eventRow`): its JSON as text. */
export type EventRow = { id: string; type: string; created_date: string; data: string; previous_attributes: string | null } & Partial<ActorColumns>;

/** The actor of an event's row; undefined for an event recorded before the actor was. */
function actorOfRow(row: EventRow): Actor | undefined {
  return row.actor_type ? { type: row.actor_type as ActorType, id: row.actor_id ?? null, name: row.actor_name ?? null } : undefined;
}

/** An event as the outbox stored it, back in the form the feed lists and webhooks receive. */
export function eventOfRow(orgId: string, row: EventRow): EventPayload {
  const actor = actorOfRow(row);
  const event: EventPayload = {
    id: row.id,
    type: row.type as EventType,
    createdDate: row.created_date,
    organizationId: orgId,
    ...(actor ? { actor } : {}),
    data: JSON.parse(row.data),
  };
  if (row.previous_attributes !== null) event.previousAttributes = JSON.parse(row.previous_attributes);
  return event;
}

/**
 * The JSON of `eventOfRow`'s event, written around the stored JSON of its data and previous
 * attributes as they are (the outbox wrote them with JSON.stringify), in the order of the feed's
 * Event schema. The feed's statements write the same text in the database (`feedEventJson` in
 * events.service.ts), a page in one value; test/events/feed-json.test.ts holds the two equal.
 */
export function eventJson(orgId: string, row: EventRow): string {
  const actor = actorOfRow(row);
  return (
    `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(row.type)},"createdDate":${JSON.stringify(row.created_date)},` +
    `"organizationId":${JSON.stringify(orgId)},${actor ? `"actor":${JSON.stringify(actor)},` : ''}"data":${row.data}` +
    `${row.previous_attributes === null ? '' : `,"previousAttributes":${row.previous_attributes}`}}`
  );
}
