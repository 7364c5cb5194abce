import type { ErrorObject } from 'ajv';
import type { FastifySchemaValidationError } from 'fastify';
import type { FieldErrors } from '../lib/domain-errors.js';
import { errors, type ApiError } from '../lib/errors.js';

/** `/options/1/name` → `options[1].name` */
function propertyPath(pointer: string, child?: string): string {
  const parts = pointer.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  return parts
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

interface ValidationProblem {
  fieldErrors: FieldErrors;
  /** Problems with the document as a whole (a body that is not an object). */
  errors: string[];
}

/** A query parameter given twice arrives as a list, which no query schema declares. */
const REPEATED_PARAMETER = 'must be given only once';

/**
 * Turns the validator's errors into v5 `fieldErrors`; the first message for a property wins. Names
 * are kept in a Map: a client's name such as `toString` or `__proto__` must never meet an object's
 * inherited members.
 */
function describeValidation(validation: FastifySchemaValidationError[], context: string): ValidationProblem {
  const fieldErrors = new Map<string, string>();
  const problems = new Set<string>();
  const unknown = context === 'querystring' ? 'unknown query parameter' : 'unknown property';
  for (const error of validation as ErrorObject[]) {
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') continue; // its branches already spoke
    const params = error.params as Record<string, string>;
    let path: string;
    let message: string;
    if (error.keyword === 'additionalProperties') {
      path = propertyPath(error.instancePath, params.additionalProperty);
      message = unknown;
    } else if (error.keyword === 'required') {
      path = propertyPath(error.instancePath, params.missingProperty);
      message = 'required';
    } else if (error.instancePath === '') {
      problems.add(context === 'body' ? 'The request body must be a JSON object' : `Invalid ${context}`);
      continue;
    } else {
      path = propertyPath(error.instancePath);
      const schema = error.parentSchema as { errorMessage?: string } | undefined;
      message =
        context === 'querystring' && Array.isArray(error.data) ? REPEATED_PARAMETER : (schema?.errorMessage ?? error.message ?? 'invalid value');
    }
    if (!fieldErrors.has(path)) fieldErrors.set(path, message);
  }
  return { fieldErrors: Object.fromEntries(fieldErrors), errors: [...problems] };
}

/**
 * The 400 for a request that failed its schema: a problem with the document as a whole, else every
 * field error; `summary` words the message of a body's field errors where a resource has its own.
 */
export function validationError(
  validation: FastifySchemaValidationError[],
  context: string,
  summary?: (fieldErrors: FieldErrors) => string,
): ApiError {
  const { fieldErrors, errors: problems } = describeValidation(validation, context);
  if (problems.length > 0) return errors.badRequest(problems[0]!);
  return errors.fieldErrors(fieldErrors, context === 'body' && summary ? summary(fieldErrors) : undefined);
}
