import type { FastifySchemaValidationError } from 'fastify';
import type { ApiInstance } from '../../app.js';
import { errors } from '../../lib/errors.js';
import { describeValidation } from '../../plugins/validation.js';
import { collectionRoutes } from '../resource-routes.js';
import { CreateUserfield, UpdateUserfield, Userfield, UserfieldQuery } from './userfields.schemas.js';
import { updateFailureMessage } from './userfields.service.js';

/** A refused update body carries the same summary line as the service's own refusals. */
function updateValidationError(validation: FastifySchemaValidationError[], context: string): Error {
  const { fieldErrors, errors: problems } = describeValidation(validation, context);
  if (problems.length > 0) return errors.badRequest(problems[0]!);
  return errors.fieldErrors(fieldErrors, context === 'body' ? updateFailureMessage(fieldErrors) : undefined);
}

export async function userfieldsRoutes(app: ApiInstance): Promise<void> {
  collectionRoutes(app, {
    collection: 'userfields',
    tag: 'Userfields',
    item: Userfield,
    service: app.services.userfields,
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
}
