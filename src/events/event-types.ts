/** What the outbox records, the event feed lists and webhooks subscribe to. */
export const EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  'userfieldvalues.updated',
  'registration.created',
  'registration.ejected',
  'registration.graded',
  'useragreement.updated',
  'offering.created',
  'offering.updated',
  'offering.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
