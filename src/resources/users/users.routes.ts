import type { ApiInstance } from '../../app.js';
import { collectionRoutes } from '../resource-routes.js';
import { CreateUser, UpdateUser, User, UserQuery } from './users.schemas.js';

export async function usersRoutes(app: ApiInstance): Promise<void> {
  collectionRoutes(app, {
    collection: 'users',
    tag: 'Users',
    item: User,
    service: app.services.users,
    list: { summary: 'List users', query: UserQuery },
    get: { summary: 'Get a user' },
    create: { summary: 'Create a user', body: CreateUser },
    update: { summary: 'Update a user (partial)', body: UpdateUser },
    delete: { summary: 'Delete a user and everything that belongs to it' },
  });
}
