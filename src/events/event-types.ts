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

/** An event as the feed lists it and webhooks receive it. */
export interface EventPayload {
  id: string;
  type: EventType;
  createdDate: string;
  organizationId: string;
  data: object;
  /** Update events: the previous values of the properties that changed (see outbox.ts `previousAttributes`). */
  previousAttributes?: Record<string, unknown>;
}
