import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.js';
import * as userfields from './0002-userfields.js';
import * as courses from './0003-courses.js';
import * as oauthClients from './0004-oauth-clients.js';
import * as scim from './0005-scim.js';
import * as updatedDates from './0006-updated-dates.js';
import * as events from './0007-events.js';
import * as tokenRevocationNotices from './0008-token-revocation-notices.js';
import * as idempotencyKeys from './0009-idempotency-keys.js';
import * as eventPreviousAttributes from './0010-event-previous-attributes.js';
import * as webhookDeliveryOrder from './0011-webhook-delivery-order.js';
import * as eventFeedPositions from './0012-event-feed-positions.js';
import * as importedUsers from './0013-imported-users.js';
import * as importJobs from './0014-import-jobs.js';
import * as importJobHeartbeat from './0015-import-job-heartbeat.js';
import * as scimUserEmails from './0016-scim-user-emails.js';
import * as userJson from './0017-user-json.js';
import * as userJsonVerbatim from './0018-user-json-verbatim.js';

/** Every migration, in order. Listed in code (not read from disk) so the compiled program is self-contained. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-userfields': userfields,
  '0003-courses': courses,
  '0004-oauth-clients': oauthClients,
  '0005-scim': scim,
  '0006-updated-dates': updatedDates,
  '0007-events': events,
  '0008-token-revocation-notices': tokenRevocationNotices,
  '0009-idempotency-keys': idempotencyKeys,
  '0010-event-previous-attributes': eventPreviousAttributes,
  '0011-webhook-delivery-order': webhookDeliveryOrder,
  '0012-event-feed-positions': eventFeedPositions,
  '0013-imported-users': importedUsers,
  '0014-import-jobs': importJobs,
  '0015-import-job-heartbeat': importJobHeartbeat,
  '0016-scim-user-emails': scimUserEmails,
  '0017-user-json': userJson,
  '0018-user-json-verbatim': userJsonVerbatim,
};
