import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
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

const NUL_MESSAGE = 'must not contain the NUL character (\\u0000)';

/** JSON pointers of the strings in `data` that hold U+0000. */
function nulPointers(data: unknown, pointer = ''): string[] {
  if (typeof data === 'string') return data.includes('\u0000') ? [pointer] : [];
  if (data === null || typeof data !== 'object') return [];
  return Object.entries(data).flatMap(([key, value]) => nulPointers(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`));
}

/**
 * PostgreSQL text cannot hold U+0000 (SQLite can): such a string is refused on both engines alike,
 * as one more field error beside the schema's, instead of a 500 on one of them.
 */
function refusingNul(validate: ValidateFunction): ValidateFunction {
  const refusing = ((data: unknown) => {
    const valid = validate(data);
    const nulErrors: ErrorObject[] = nulPointers(data).map((instancePath) => ({
      instancePath,
      keyword: 'nul',
      schemaPath: '#',
      params: {},
      message: NUL_MESSAGE,
    }));
    refusing.errors = nulErrors.length > 0 ? [...(validate.errors ?? []), ...nulErrors] : validate.errors;
    return valid && nulErrors.length === 0;
  }) as ValidateFunction;
  return refusing;
}

/**
 * Bodies are validated strictly (a number sent for a string is a 400, not coerced); query strings
 * and path parameters arrive as text, so they are coerced to the declared types. Path parameters
 * are ids, and an id holding NUL is simply not found.
 */
export function registerValidation(app: FastifyInstance): void {
  const bodyAjv = createAjv({ coerceTypes: false });
  const textAjv = createAjv({ coerceTypes: true });
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validate = (httpPart === 'body' ? bodyAjv : textAjv).compile(schema);
    return httpPart === 'body' || httpPart === 'querystring' ? refusingNul(validate) : validate;
  });
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
