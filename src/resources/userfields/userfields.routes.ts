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
      description:
        "A page of the organization's userfields, each with the properties of its type. `categoryType` keeps the fields of " +
        'public or of private categories; the predefined fields (Street 1, City, Company, ...) that are in no category match ' +
        'neither.',
      scope: 'read',
      query: UserfieldQuery,
    },
    get: {
      summary: 'Get a userfield',
      description: "The userfield, with the properties of its type only. An id that is not one of the organization's userfields is a 404.",
      scope: 'read',
    },
    create: {
      summary: 'Create a userfield',
      description:
        'Needs a `type`, a `name` (a `message` field a `message` instead) and a category: `categoryId`, or `categoryName`, ' +
        'which creates the category when none has that name (public unless `categoryType: "private"`). A property the type ' +
        'does not have is a 400 "not applicable to type". `orderIndex` places it in its category (last when absent). ' +
        'Answers 201 with its URL in `Location`.',
      scope: 'write',
      body: CreateUserfield,
    },
    update: {
      summary: 'Update a userfield (partial): move, rename, required, options, constraints, message, size, orderIndex',
      description:
        'Changes only what is sent. An option left out of `options` is removed, and the values that chose it are cleared; ' +
        '`constraints: {}` removes them all. A predefined field can be placed in a category and moved, never renamed. A ' +
        'refusal is a 400 whose `message` is "name is required", "message is required" or "invalid value", with `fieldErrors`.',
      scope: 'write',
      body: UpdateUserfield,
      schemaErrorFormatter: updateValidationError,
    },
    delete: {
      summary: 'Delete a custom userfield with its values, or take a predefined one out of its category',
      description:
        "A custom userfield goes with every user's value of it. A predefined one stays, with its values, outside any " +
        'category; one that is in no category already is a 400.',
      scope: 'write',
      refusable: true,
    },
  });
};
