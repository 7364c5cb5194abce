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
  const data = event.data as { id?: string; userId?: string; type?: string };
  if (USER_EVENT_PREFIXES.has(prefix)) return `user:${data.userId ?? data.id}`;
  return `${prefix}:${data.id ?? data.type}`;
}

/** An event as the outbox stored it (outbox.ts, `eventRow`), back in the form the feed lists and webhooks receive. */
export function eventOfRow(
  orgId: string,
  row: { id: string; type: string; created_date: string; data: string; previous_attributes: string | null },
): EventPayload {
  const event: EventPayload = {
    id: row.id,
    type: row.type as EventType,
    createdDate: row.created_date,
    organizationId: orgId,
    data: JSON.parse(row.data),
  };
  if (row.previous_attributes !== null) event.previousAttributes = JSON.parse(row.previous_attributes);
  return event;
}
