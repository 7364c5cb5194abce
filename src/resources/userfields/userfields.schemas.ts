import { Type, type Static } from '@sinclair/typebox';
import { US_DATE_PATTERN } from '../../lib/date-filter.js';
import { Body, DateFilter, Nullable, ReadOnly, Timestamp, UpdatedDateFilter, UpdatedTimestamp } from '../../lib/schema.js';
import { ListQuery } from '../../lib/paging.js';
import { LOCALE_PATTERN } from '../users/users.schemas.js';
import { CategoryName, CategoryTypeSchema, OrderIndex } from '../userfield-categories/userfield-categories.schemas.js';
import { describeTypes, SIZES, TYPE_NAMES, USERFIELD_TYPES, type Size } from './userfield-types.js';

/**
 * One flat object for every type, with `type` as the discriminator: the per-type shapes are in the
 * description (generated from userfield-types.ts), and a property another type has is refused with
 * "not applicable to type <type>" by the service. Flat keeps validation errors direct and response
 * serialization fast.
 */
const BY_TYPE = `Which properties each type has (besides id, type, createdDate, updatedDate and its category and orderIndex):\n${describeTypes()}`;

const Label = Type.String({ maxLength: 255, errorMessage: 'must be a string of at most 255 characters' });
const MessageText = Type.String({
  maxLength: 10000,
  errorMessage: 'must be a string of at most 10000 characters',
  description: 'message fields only',
});
const LocalizedNames = Type.Record(
  Type.String(),
  Type.String({ minLength: 1, maxLength: 255, errorMessage: 'must be a string of 1 to 255 characters' }),
  {
    propertyNames: { pattern: LOCALE_PATTERN, errorMessage: 'keys must be locale codes such as "en" or "fr-CA"' },
    errorMessage: 'must be an object of locale codes and labels',
    description: 'Label per locale (ISO 639-1, optionally -REGION); {} clears them',
  },
);
const Option = Type.Object(
  {
    name: Type.String({ maxLength: 255, pattern: '\\S', errorMessage: 'must be a string of at most 255 characters, not blank' }),
    selected: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false', description: 'Chosen by default' })),
  },
  { additionalProperties: false },
);
const Options = Type.Array(Option, {
  minItems: 1,
  maxItems: 1000,
  errorMessage: 'must be a list of 1 to 1000 options',
  description:
    'dropdown, radiobuttons, checkboxes: names unique (case-insensitive); at most one selected except for checkboxes. ' +
    'On update the list replaces the old one',
});
/** Up to the largest integer JSON numbers hold exactly: a larger one would be stored rounded. */
const Limit = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  errorMessage: `must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`,
});
const UsDate = Type.String({
  pattern: '^\\d{2}/\\d{2}/\\d{4}$',
  documentPattern: US_DATE_PATTERN,
  errorMessage: 'must be a date in the form mm/dd/yyyy',
});
const Constraints = Type.Object(
  {
    minimumLength: Type.Optional(Limit),
    maximumLength: Type.Optional(Limit),
    minimumValue: Type.Optional(Limit),
    maximumValue: Type.Optional(Limit),
    minimumDate: Type.Optional(UsDate),
    maximumDate: Type.Optional(UsDate),
  },
  {
    additionalProperties: false,
    errorMessage: 'must be an object of constraint names and limits',
    description:
      'text, email: lengths; number, decimal: values; date: mm/dd/yyyy. A minimum never exceeds its maximum. ' +
      'On update the object replaces the old one; {} clears them all',
  },
);
const SizeSchema = Type.Unsafe<Size>(
  Type.String({ enum: [...SIZES], errorMessage: `must be one of ${SIZES.join(', ')}`, description: 'Width of the entry; default medium' }),
);
const TypeName = (description: string) =>
  Type.Unsafe<string>(Type.String({ enum: [...TYPE_NAMES], errorMessage: `must be one of ${USERFIELD_TYPES.join(', ')}`, description }));

export const Userfield = Type.Object(
  {
    id: Type.String(),
    type: Type.String({ enum: [...USERFIELD_TYPES] }),
    name: Type.Optional(Type.String()),
    localizedNames: Type.Optional(Type.Record(Type.String(), Type.String())),
    orderIndex: Type.Optional(Type.Integer({ description: 'Zero-based position within its category' })),
    categoryId: Type.Optional(Type.String({ description: 'Absent for a predefined field in no category' })),
    categoryName: Type.Optional(Type.String()),
    categoryType: Type.Optional(CategoryTypeSchema('The visibility of its category')),
    required: Type.Optional(Type.Boolean()),
    options: Type.Optional(Type.Array(Type.Object({ name: Type.String(), selected: Type.Boolean() }, { additionalProperties: false }))),
    constraints: Type.Optional(
      Type.Object({
        minimumLength: Type.Optional(Type.Integer()),
        maximumLength: Type.Optional(Type.Integer()),
        minimumValue: Type.Optional(Type.Integer()),
        maximumValue: Type.Optional(Type.Integer()),
        minimumDate: Type.Optional(Type.String()),
        maximumDate: Type.Optional(Type.String()),
      }),
    ),
    message: Type.Optional(Type.String()),
    size: Type.Optional(Type.String({ enum: [...SIZES] })),
    readOnly: Type.Optional(Type.Boolean({ description: 'Present (true) on predefined fields only' })),
    createdDate: Timestamp('When the field was created'),
    updatedDate: UpdatedTimestamp(),
  },
  { $id: 'Userfield', additionalProperties: false, description: BY_TYPE },
);
export type Userfield = Static<typeof Userfield>;

/** Read-only on every write: ignored whatever their value, so a client can send back what it read. */
const readOnlyProperties = { id: ReadOnly(), createdDate: ReadOnly(), readOnly: ReadOnly(), updatedDate: ReadOnly() };

const definition = {
  localizedNames: Type.Optional(LocalizedNames),
  required: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })),
  options: Type.Optional(Options),
  constraints: Type.Optional(Constraints),
  size: Type.Optional(SizeSchema),
  categoryId: Type.Optional(Type.String({ description: 'The category to place the field in' })),
  categoryName: Type.Optional(CategoryName('The category to place the field in, by name (case-insensitive)')),
  orderIndex: Type.Optional(OrderIndex('Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end')),
};

export const CreateUserfield = Body(
  {
    type: TypeName('radios is accepted for radiobuttons'),
    name: Type.Optional(Label),
    message: Type.Optional(MessageText),
    categoryType: Type.Optional(
      CategoryTypeSchema('Type of the category that an unknown categoryName creates (default public); must match an existing one'),
    ),
    ...definition,
    ...readOnlyProperties,
  },
  { description: `categoryId or categoryName is required; an unknown categoryName creates the category.\n\n${BY_TYPE}` },
);
export type CreateUserfield = Static<typeof CreateUserfield>;

export const UpdateUserfield = Body(
  {
    type: Type.Optional(TypeName('Never changes: ignored when equal to the current type')),
    name: Type.Optional(Nullable(Label)),
    message: Type.Optional(Nullable(MessageText)),
    categoryType: Type.Optional(
      CategoryTypeSchema(
        'Type of the category that an unknown categoryName creates (default public); otherwise must match the category the field is (or moves) in',
      ),
    ),
    ...definition,
    ...readOnlyProperties,
  },
  {
    description:
      'Partial: what is not sent keeps its value. categoryId or categoryName moves the field to another category ' +
      '(the end unless orderIndex is sent); an unknown categoryName creates the category, as on create. A predefined field keeps its name.',
  },
);
export type UpdateUserfield = Static<typeof UpdateUserfield>;

export const UserfieldQuery = ListQuery({
  createdDate: DateFilter('Creation date'),
  updatedDate: UpdatedDateFilter(),
  categoryType: Type.Optional(CategoryTypeSchema('Only fields in categories of this type (predefined fields in no category match neither)')),
});
export type UserfieldQuery = Static<typeof UserfieldQuery>;

/** The `data` of this resource's events. */
declare module '../../events/event-types.js' {
  interface EventData {
    'userfield.created': Userfield;
    'userfield.updated': Userfield;
    'userfield.deleted': Userfield;
  }
}
