import type { ResourceRoutes } from '../../http/api-instance.js';
import { collectionRoutes } from '../../http/resource-routes.js';
import { CreateUser, UpdateUser, User, UserQuery } from './users.schemas.js';
import type { UsersService } from './users.service.js';

export const usersRoutes: ResourceRoutes<UsersService> = async (app, { service }) => {
  collectionRoutes(app, {
    collection: 'users',
    tag: 'Users',
    item: User,
    service,
    list: { summary: 'List users', query: UserQuery },
    get: { summary: 'Get a user' },
    create: { summary: 'Create a user', body: CreateUser },
    update: { summary: 'Update a user (partial)', body: UpdateUser },
    delete: { summary: 'Delete a user and everything that belongs to it' },
  });
};
