import { lockOrdering } from '../../db/dense-order.js';
import type { FastifySchemaValidationError } from 'fastify';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { collectionRoutes } from '../../http/resource-routes.js';
import type { ApiTag } from '../../lib/openapi.js';
import { validationError } from '../../http/validation-errors.js';
import { CreateUserfield, UpdateUserfield, Userfield, UserfieldQuery } from './userfields.schemas.js';
import { updateFailureMessage } from './update-failure-message.js';
import type { UserfieldsService } from './userfields.service.js';

export const userfieldsTag: ApiTag = {
  name: 'Userfields',
  description:
    'The fields a user profile has beyond the built-in ones: twelve types (text, date, dropdown, ...), predefined or custom, each with its own constraints.',
};
/** A refused update body carries the same summary line as the service's own refusals. */
function updateValidationError(validation: FastifySchemaValidationError[], context: string): Error {
  return validationError(validation, context, updateFailureMessage);
}

export const userfieldsRoutes: ConditionalResourceRoutes<UserfieldsService> = async (app, { service, transaction }) => {
  collectionRoutes(app, {
    collection: 'userfields',
    name: 'userfields',
    tag: userfieldsTag,
    item: Userfield,
    service,
    transaction,
    lock: lockOrdering,
    list: {
      summary: 'List userfields by category (public first), then orderIndex; predefined fields in no category last',
      query: UserfieldQuery,
    },
    get: { summary: 'Get a userfield' },
    create: { summary: 'Create a userfield', body: CreateUserfield },
    update: {
      summary: 'Update a userfield (partial): move, rename, required, options, constraints, message, size, orderIndex',
      body: UpdateUserfield,
      schemaErrorFormatter: updateValidationError,
    },
    delete: { summary: 'Delete a custom userfield with its values, or take a predefined one out of its category', refusable: true },
  });
};
