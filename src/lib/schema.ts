import { DATE_FILTER_HINT, DATE_FILTER_PATTERN, TIMESTAMP_PATTERN_PART } from './date-filter.js';
import { Type, type SchemaOptions, type TSchema, type Static } from '@sinclair/typebox';

/**
 * Schema building blocks shared by every resource. `errorMessage` is an annotation our validation
 * error formatter prefers over the validator's generic wording.
 */
declare module '@sinclair/typebox' {
  interface SchemaOptions {
    errorMessage?: string;
    /** A `pattern` for the OpenAPI document only: the service checks the rule itself (see withoutValidatorAnnotations). */
    documentPattern?: string;
  }
}

/** A body property that is accepted and ignored whatever its value (read-only, so clients can PUT back what they read). */
export const ReadOnly = () => Type.Optional(Type.Unknown({ readOnly: true, description: 'Read-only; ignored on input.' }));

/** A schema that also accepts `null` (meaning "clear"), expressed as a type list so errors stay readable. */
export function Nullable<T extends TSchema>(schema: T, options: SchemaOptions = {}) {
  const { type } = schema as unknown as { type: string };
  return Type.Unsafe<Static<T> | null>({ ...schema, ...options, type: [type, 'null'] });
}

/** Request bodies are closed: an unknown property is a 400, never silently dropped. */
export function Body<P extends Parameters<typeof Type.Object>[0]>(properties: P, options: SchemaOptions = {}) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/** A text that must hold more than white space (a name, a title), of 1 to `maxLength` characters. */
export const NonBlankText = (maxLength: number, options: SchemaOptions = {}) =>
  Type.String({
    minLength: 1,
    maxLength,
    pattern: '\\S',
    errorMessage: `must be a string of 1 to ${maxLength} characters, not blank`,
    ...options,
  });

export const IdParams = Type.Object({ id: Type.String() });

export const Timestamp = (description: string) =>
  Type.String({ description: `${description}, UTC yyyy-mm-ddThh:mm:ssZ`, examples: ['2013-10-23T00:48:50Z'] });

/** The shape of a timestamp given as input is checked here; the calendar (no 30 February) by `parseTimestamp` (date-filter.ts). */
export const TIMESTAMP_MESSAGE = 'must be a timestamp such as 2013-10-23T00:48:50Z (fractional seconds and an offset such as +02:00 are accepted)';
/** The shape the validator checks (the service's parser then checks the calendar, with the other problems of the body). */
const TIMESTAMP_SHAPE = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{1,9})?(Z|[+-]\\d{2}(:?\\d{2})?)$';

/** A moment given as input, stored in UTC to the second. */
export const TimestampInput = (description: string) =>
  Type.String({
    pattern: TIMESTAMP_SHAPE,
    documentPattern: `^${TIMESTAMP_PATTERN_PART}$`,
    errorMessage: TIMESTAMP_MESSAGE,
    description: `${description}, yyyy-mm-ddThh:mm:ssZ; fractional seconds are dropped and an offset (+02:00) is converted to UTC`,
  });

/** Beyond v5: when a resource last changed, for "what changed since" queries. */
export const UpdatedTimestamp = () => Timestamp('Beyond v5. Set on creation and on every change (a change of its position in a list included)');

export const DateFilter = (description: string) =>
  Type.Optional(
    Type.String({
      format: 'date-filter',
      documentPattern: DATE_FILTER_PATTERN,
      errorMessage: DATE_FILTER_HINT,
      description: `${description}: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be ..`,
    }),
  );

/** Beyond v5: the `updatedDate` filter of every collection, in the forms of `createdDate`. */
export const UpdatedDateFilter = () => DateFilter('Beyond v5. Date of the last change');

/** A list filter matching a case-insensitive substring of a text (see `containsText` in db/filters.ts). */
export const SubstringFilter = () => Type.Optional(Type.String({ description: 'Substring, case-insensitive' }));

export const NOT_FOUND_RESPONSE = Type.Object({ errors: Type.Array(Type.String()) }, { description: 'No resource exists with the given id.' });
export const ERROR_RESPONSE = Type.Object(
  {
    message: Type.Optional(Type.String()),
    // Not Type.Record: its key pattern `^(.*)$` misses names with a line break, and the serializer would drop them.
    fieldErrors: Type.Optional(Type.Unsafe<Record<string, string>>(Type.Object({}, { additionalProperties: Type.String() }))),
    errors: Type.Optional(Type.Array(Type.String())),
  },
  { description: 'Validation failure' },
);
/** Empty-bodied responses: documented, with nothing to serialize. */
export const NO_CONTENT = Type.Unsafe<void>({ description: 'No content' });
export const NOT_MODIFIED = Type.Unsafe<void>({ description: 'Not modified: If-None-Match names the current version (the ETag header)' });
export const PRECONDITION_FAILED = Type.Object(
  { errors: Type.Array(Type.String()) },
  {
    description:
      'Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written',
  },
);
export const CREATED = Type.Unsafe<void>({ description: 'Created; the Location header holds the URL of the new item' });
