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
import * as accountTypes from './0019-account-types.js';
import * as signIn from './0020-sign-in.js';
import * as consoleImports from './0023-console-imports.js';
import * as scimRequests from './0024-scim-requests.js';
import * as usersByAccountType from './0025-users-by-account-type.js';
import * as eventActors from './0026-event-actors.js';
import * as webhookDeliveryReady from './0027-webhook-delivery-ready.js';
import * as reports from './0028-reports.js';
import * as sandboxOrganizations from './0029-sandbox-organizations.js';
import * as nameSearch from './0030-name-search.js';
import * as nameSamples from './0031-name-samples.js';

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
  '0019-account-types': accountTypes,
  '0020-sign-in': signIn,
  '0023-console-imports': consoleImports,
  '0024-scim-requests': scimRequests,
  '0025-users-by-account-type': usersByAccountType,
  '0026-event-actors': eventActors,
  '0027-webhook-delivery-ready': webhookDeliveryReady,
  '0028-reports': reports,
  '0029-sandbox-organizations': sandboxOrganizations,
  '0030-name-search': nameSearch,
  '0031-name-samples': nameSamples,
};
