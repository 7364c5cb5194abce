import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../events/event-types.js';
import { ACTOR_TYPES } from '../../lib/actors.js';
import { DEFAULT_LIMIT } from '../../lib/paging.js';
import { Timestamp } from '../../lib/schema.js';

const EventTypeSchema = Type.String({ enum: [...EVENT_TYPES], description: 'What happened' });

export const Event = Type.Object(
  {
    id: Type.String({ description: 'Unique; also the webhook-id of its webhook deliveries, and the cursor that reads on after it' }),
    type: EventTypeSchema,
    createdDate: Timestamp('When the change committed'),
    organizationId: Type.String(),
    actor: Type.Optional(
      Type.Object(
        {
          type: Type.String({
            enum: [...ACTOR_TYPES],
            description:
              'How the change was made: `token` (an API token), `oauthClient` (a token issued to an OAuth client), `scim` (a token ' +
              'through /scim/v2), `person` (someone signed in, in the console or on their own pages), `import` (an import of a file), ' +
              "`commandLine` (the server's command line), `operator` (the server's operator, on its pages), `server` (the server itself)",
          }),
          id: Type.Union([Type.String(), Type.Null()], {
            description: "The token's, OAuth client's, person's (user id) or import job's id; null for the command line and the server",
          }),
          name: Type.Union([Type.String(), Type.Null()], {
            description: "What it was known by then: the token's or client's name, the person's email, for an import who started it. Never a secret",
          }),
        },
        { additionalProperties: false },
      ),
    ),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The resource as the API returns it after the change; for a deletion, as it was before (a tombstone). ' +
          'userfieldvalues.updated: {userId, values, updatedDate}; useragreement.updated: the user agreement with its userId and updatedDate ' +
          "(a user's values and agreements are part of the user: updatedDate is the user's)",
      },
    ),
    previousAttributes: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'Update events only: the value before the change of every property that changed (null where it was absent), ' +
            'so that a consumer can tell what changed. An update that changes nothing records no event',
        },
      ),
    ),
  },
  { $id: 'Event', additionalProperties: false },
);
export type Event = Static<typeof Event>;

/** The largest page of the feed. */
const MAX_FEED_LIMIT = 1000;

export const EventQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({ description: 'The id of the last event read: the list goes on after it. Absent: from the oldest event kept' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_FEED_LIMIT,
        default: DEFAULT_LIMIT,
        description: `Up to ${MAX_FEED_LIMIT} events a page, beyond v5's 100: a consumer catching up reads in fewer round trips`,
        errorMessage: `must be an integer from 1 to ${MAX_FEED_LIMIT}`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type EventQuery = Static<typeof EventQuery>;
