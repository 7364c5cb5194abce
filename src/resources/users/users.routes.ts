import { lockRow } from '../../db/locking.js';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { collectionRoutes } from '../../http/resource-routes.js';
import type { ApiTag } from '../../lib/openapi.js';
import { CreateUser, UpdateUser, User, UserQuery } from './users.schemas.js';
import type { UsersService } from './users.service.js';

export const usersTag: ApiTag = {
  name: 'Users',
  description: 'People of the organization: their names, email, locale, tags and status. Deleting a user deletes everything that belongs to it.',
};
export const usersRoutes: ConditionalResourceRoutes<UsersService> = async (app, { service, transaction }) => {
  collectionRoutes(app, {
    collection: 'users',
    name: 'users',
    tag: usersTag,
    item: User,
    service,
    transaction,
    lock: (trx, orgId, { id }) => lockRow(trx, 'users', orgId, id),
    list: {
      summary: 'List users',
      description:
        "A page of the organization's users, oldest first. Filters combine with AND: `firstName`, `lastName` and `username` " +
        'match part of the value and `email` the whole address, ignoring case; `tags` the users carrying every tag given; ' +
        '`active=false` the deactivated ones. Filtered by `updatedDate`, the answer carries `Updated-Date-Watermark`, where ' +
        'the next run of a sync job starts.',
      scope: 'read',
      query: UserQuery,
    },
    get: {
      summary: 'Get a user',
      description: "The user, never its password. An id that is not one of the organization's users, another organization's included, is a 404.",
      scope: 'read',
    },
    create: {
      summary: 'Create a user',
      description:
        'Only `email` is required; it is unique in the organization ignoring case, and so is `username` when given (400 ' +
        '"is already in use"). A user created without a password cannot log in until one is set. A tag holding commas or ' +
        "spaces becomes several tags. Answers 201 with the new user's URL in `Location` and no body.",
      scope: 'write',
      body: CreateUser,
    },
    update: {
      summary: 'Update a user (partial)',
      description:
        'Changes only the properties sent: `tags` replaces the whole list, `active: false` deactivates the user (kept with ' +
        'everything that belongs to it, but no longer registrable). Read-only properties sent back as they were read are ' +
        'ignored. A request that changes nothing writes nothing and leaves `updatedDate` as it was.',
      scope: 'write',
      body: UpdateUser,
    },
    delete: {
      summary: 'Delete a user and everything that belongs to it',
      description:
        'Deletes the user with its userfield values, agreements and registrations, for good: its id is a 404 afterwards. ' +
        'To keep the history of someone who left, deactivate them instead (`PUT` with `active: false`).',
      scope: 'write',
    },
  });
};
