import { jsonObjectReader, jsonTextWriter, type JsonMember, type JsonProperty } from '../db/json-objects.js';
import type { EventsTable } from '../db/schema.js';
import type { Actor } from '../lib/actors.js';

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

/** The actor's properties (`EventPayload['actor']`), each read from its column of the event's row. */
const ACTOR_JSON = [
  { property: 'type', column: 'actor_type', kind: 'verbatim' },
  { property: 'id', column: 'actor_id', kind: 'nullableText' },
  { property: 'name', column: 'actor_name', kind: 'nullableText' },
] as const satisfies readonly (JsonProperty & { property: keyof Actor; column: keyof EventsTable })[];

/**
 * Each property of an event as the feed lists it and webhooks receive it, the column of the outbox's
 * row it is read from and its kind, in the order of the Event schema. `eventOfRow`, `eventJson` and
 * the feed's statements on both engines (events.service.ts, `feedEventJson`) are all made from this
 * list (db/json-objects.ts); adding a property is a row here (and its column, when new, in a migration).
 * `data` and `previousAttributes` are JSON the outbox stored (JSON.stringify's), written as they are.
 */
export const EVENT_JSON = [
  { property: 'id', column: 'id', kind: 'verbatim' },
  { property: 'type', column: 'type', kind: 'verbatim' },
  { property: 'createdDate', column: 'created_date', kind: 'verbatim' },
  { property: 'organizationId', column: 'org_id', kind: 'verbatim' },
  // Absent from events recorded before the actor was (no actor_type).
  { property: 'actor', object: ACTOR_JSON, optional: true },
  { property: 'data', column: 'data', kind: 'json' },
  { property: 'previousAttributes', column: 'previous_attributes', kind: 'json', optional: true },
] as const satisfies readonly (JsonMember & { property: keyof EventPayload } & ({ column: keyof EventsTable } | { object: unknown }))[];

// Every property of the event and of its actor has its row, and no row names a property they lack.
type MissingFromEvent = Exclude<keyof EventPayload, (typeof EVENT_JSON)[number]['property']>;
type MissingFromActor = Exclude<keyof Actor, (typeof ACTOR_JSON)[number]['property']>;
const everyPropertyListed: [MissingFromEvent, MissingFromActor] extends [never, never] ? true : [MissingFromEvent, MissingFromActor] = true;
void everyPropertyListed;

/** The columns of an event's row its JSON is read from (the organization is given beside the row). */
export const EVENT_JSON_COLUMNS = EVENT_JSON.flatMap((member) =>
  'object' in member ? member.object.map(({ column }) => column) : member.column === 'org_id' ? [] : [member.column],
);

/** The columns of an event's actor. */
type ActorColumns = Record<(typeof ACTOR_JSON)[number]['column'], string | null>;

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

/** The event of a row and its text, made from EVENT_JSON; the organization is given beside the row. */
const eventOfColumns = jsonObjectReader(EVENT_JSON, ['org_id']);
const eventTextOfColumns = jsonTextWriter(EVENT_JSON, ['org_id']);

/** An event as the outbox stored it, back in the form the feed lists and webhooks receive. */
export function eventOfRow(orgId: string, row: EventRow): EventPayload {
  return eventOfColumns(row, orgId) as unknown as EventPayload;
}

/**
 * The JSON of `eventOfRow`'s event, written around the stored JSON of its data and previous
 * attributes as they are. The feed's statements write the same text in the database (`feedEventJson`
 * in events.service.ts), a page in one value; test/events/feed-json.test.ts holds the two equal.
 */
export function eventJson(orgId: string, row: EventRow): string {
  return eventTextOfColumns(row, orgId);
}
