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
    list: { summary: 'List users', query: UserQuery },
    get: { summary: 'Get a user' },
    create: { summary: 'Create a user', body: CreateUser },
    update: { summary: 'Update a user (partial)', body: UpdateUser },
    delete: { summary: 'Delete a user and everything that belongs to it' },
  });
};
