import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { validationError } from '../http/validation-errors.js';
import { parseDateFilter } from '../lib/date-filter.js';
import { isAcceptablePassword, passwordMessage, type PasswordPolicy } from '../lib/password-policy.js';

function createAjv(options: Options, policy: PasswordPolicy): Ajv {
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
  ajv.addFormat('password', (password: string) => isAcceptablePassword(policy, password));
  ajv.addFormat('uri', () => true);
  return ajv;
}

const NUL_MESSAGE = 'must not contain the NUL character (\\u0000)';
const SURROGATE_MESSAGE = 'must not contain an unpaired surrogate (\\ud800 to \\udfff), which is not Unicode text';
/** In Unicode mode a surrogate matches only when unpaired. */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/**
 * Why a text cannot be stored as sent, if it cannot: PostgreSQL text holds no U+0000 (SQLite does),
 * and an unpaired surrogate is no UTF-8 (SQLite keeps bytes that make the answer invalid UTF-8,
 * PostgreSQL gets U+FFFD instead).
 */
function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL_MESSAGE;
  if (UNPAIRED_SURROGATE.test(text)) return SURROGATE_MESSAGE;
  return undefined;
}

/**
 * The texts in `data` that `problem` finds fault with, as validator errors at their JSON pointers,
 * except under the top-level properties in `ignored`. Walked with a queue, not recursion: a body may
 * nest deeper than the call stack.
 */
export function textErrors(data: unknown, problem: (text: string) => string | undefined, ignored: ReadonlySet<string> = new Set()): ErrorObject[] {
  const found: ErrorObject[] = [];
  const queue: [unknown, string][] = [[data, '']];
  for (let next = 0; next < queue.length; next++) {
    const [value, pointer] = queue[next]!;
    if (typeof value === 'string') {
      const message = problem(value);
      if (message) found.push({ instancePath: pointer, keyword: 'text', schemaPath: '#', params: {}, message });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (pointer === '' && ignored.has(key)) continue;
        queue.push([child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
      }
    }
  }
  return found;
}

/** The texts anywhere in `data` that neither engine could store as sent. */
export function unstorableTexts(data: unknown): ErrorObject[] {
  return textErrors(data, unstorable);
}

/** Top-level properties marked `readOnly` (see `ReadOnly` in lib/schema.ts): ignored whatever they hold. */
function readOnlyProperties(schema: unknown): Set<string> {
  const properties = (schema as { properties?: Record<string, { readOnly?: boolean }> }).properties ?? {};
  return new Set(Object.keys(properties).filter((name) => properties[name]!.readOnly === true));
}

/** A password the policy refuses (or not a string at all) is told the policy's rule, not the validator's words. */
function inPolicyWords(errors: ErrorObject[] | null | undefined, policy: PasswordPolicy): ErrorObject[] | null | undefined {
  if (!errors?.some(isPasswordError)) return errors;
  return errors.map((error) => (isPasswordError(error) ? { ...error, message: passwordMessage(policy) } : error));
}

function isPasswordError(error: ErrorObject): boolean {
  return (error.parentSchema as { format?: string } | undefined)?.format === 'password';
}

/**
 * A text either engine would refuse or alter is refused on both alike, as one more field error beside
 * the schema's, instead of a 500 or a silently changed value on one of them.
 */
function refusingUnstorableText(validate: ValidateFunction, ignored: ReadonlySet<string>, policy: PasswordPolicy): ValidateFunction {
  const refusing = ((data: unknown) => {
    const valid = validate(data);
    const unstorableTexts = textErrors(data, unstorable, ignored);
    const errors = inPolicyWords(validate.errors, policy);
    refusing.errors = unstorableTexts.length > 0 ? [...(errors ?? []), ...unstorableTexts] : errors;
    return valid && unstorableTexts.length === 0;
  }) as ValidateFunction;
  return refusing;
}

/**
 * The validators of a process, one per password policy (a process holds one or two) and kind of input, shared by
 * every app it builds and by `bodyValidator`: Ajv keeps each schema it compiled, so a schema is compiled once per
 * process however many apps route it (both base paths, the apps of a test file, a worker's restarts).
 */
const ajvs = new Map<string, Ajv>();

function sharedAjv(coerceTypes: boolean, policy: PasswordPolicy): Ajv {
  const key = JSON.stringify([coerceTypes, policy]);
  let ajv = ajvs.get(key);
  if (!ajv) ajvs.set(key, (ajv = createAjv({ coerceTypes }, policy)));
  return ajv;
}

/**
 * Bodies are validated strictly (a number sent for a string is a 400, not coerced); query strings
 * and path parameters arrive as text, so they are coerced to the declared types. Path parameters
 * are ids, and an id holding NUL is simply not found.
 */
export function registerValidation(app: FastifyInstance, policy: PasswordPolicy): void {
  const bodyAjv = sharedAjv(false, policy);
  const textAjv = sharedAjv(true, policy);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validate = (httpPart === 'body' ? bodyAjv : textAjv).compile(schema);
    return httpPart === 'body' || httpPart === 'querystring' ? refusingUnstorableText(validate, readOnlyProperties(schema), policy) : validate;
  });
}

/**
 * Validates a body that reaches a service other than through a route of its own (the SCIM surface
 * feeding the users service, the rows of an import), with the same checks and messages a route's
 * body gets under `policy`; throws the 400 a route would give. The schema is compiled at the first
 * body checked, not when the module that declares the check is loaded.
 */
export function bodyValidator(schema: TSchema, policy: PasswordPolicy): (data: unknown) => void {
  let validate: ValidateFunction | undefined;
  return (data) => {
    validate ??= refusingUnstorableText(sharedAjv(false, policy).compile(schema), readOnlyProperties(schema), policy);
    if (!validate(data)) throw validationError((validate.errors ?? []) as FastifySchemaValidationError[], 'body');
  };
}
