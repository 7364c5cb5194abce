import { Ajv, type ErrorObject, type Options } from 'ajv';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { parseDateFilter } from '../lib/date-filter.js';
import type { FieldErrors } from '../lib/errors.js';

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: true, // every field error at once, never only the first
    verbose: true, // gives the error formatter the failing schema, for its errorMessage
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    ...options,
  });
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  ajv.addFormat('date-filter', (value: string) => parseDateFilter(value) !== undefined);
  ajv.addFormat('uri', () => true);
  return ajv;
}

/**
 * Bodies are validated strictly (a number sent for a string is a 400, not coerced); query strings
 * and path parameters arrive as text, so they are coerced to the declared types.
 */
export function registerValidation(app: FastifyInstance): void {
  const bodyAjv = createAjv({ coerceTypes: false });
  const textAjv = createAjv({ coerceTypes: true });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema) as ReturnType<Ajv['compile']>,
  );
}

/** `/options/1/name` → `options[1].name` */
function propertyPath(pointer: string, child?: string): string {
  const parts = pointer.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  return parts
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

export interface ValidationProblem {
  fieldErrors: FieldErrors;
  /** Problems with the document as a whole (a body that is not an object). */
  errors: string[];
}

/** Turns the validator's errors into v5 `fieldErrors`; the first message for a property wins. */
export function describeValidation(
  validation: FastifySchemaValidationError[],
  context: string,
): ValidationProblem {
  const fieldErrors: FieldErrors = {};
  const problems: string[] = [];
  const unknown = context === 'querystring' ? 'unknown query parameter' : 'unknown property';
  for (const error of validation as ErrorObject[]) {
    const params = error.params as Record<string, string>;
    let path: string;
    let message: string;
    if (error.keyword === 'additionalProperties') {
      path = propertyPath(error.instancePath, params.additionalProperty);
      message = unknown;
    } else if (error.keyword === 'required') {
      path = propertyPath(error.instancePath, params.missingProperty);
      message = 'required';
    } else {
      path = propertyPath(error.instancePath);
      message = (error.parentSchema as { errorMessage?: string } | undefined)?.errorMessage ?? error.message ?? 'invalid value';
      if (error.keyword === 'anyOf' || error.keyword === 'oneOf') continue; // its branches already spoke
    }
    if (!path) {
      problems.push(context === 'body' ? 'The request body must be a JSON object' : `Invalid ${context}`);
    } else if (!(path in fieldErrors)) {
      fieldErrors[path] = message;
    }
  }
  return { fieldErrors, errors: [...new Set(problems)] };
}
