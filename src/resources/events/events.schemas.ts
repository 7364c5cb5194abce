import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../events/event-types.js';
import { PagingQuery } from '../../lib/paging.js';
import { Timestamp } from '../../lib/schema.js';

const EventTypeSchema = Type.String({ enum: [...EVENT_TYPES], description: 'What happened' });

export const Event = Type.Object(
  {
    id: Type.String({ description: 'Unique; also the webhook-id of its webhook deliveries, and the cursor that reads on after it' }),
    type: EventTypeSchema,
    createdDate: Timestamp('When the change committed'),
    organizationId: Type.String(),
    data: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The resource as the API returns it after the change; for a deletion, as it was before (a tombstone). ' +
          'userfieldvalues.updated: {userId, values, updatedDate}; useragreement.updated: the user agreement with its userId',
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

export const EventQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({ description: 'The id of the last event read: the list goes on after it. Absent: from the oldest event kept' }),
    ),
    limit: PagingQuery.limit,
  },
  { additionalProperties: false },
);
export type EventQuery = Static<typeof EventQuery>;
