import { Type, type Static } from '@sinclair/typebox';
import { ListQuery } from '../../lib/paging.js';
import {
  Body,
  DateFilter,
  NonBlankText,
  Nullable,
  ReadOnly,
  SubstringFilter,
  Timestamp,
  TimestampInput,
  UpdatedDateFilter,
  UpdatedTimestamp,
} from '../../lib/schema.js';
import { OrderIndex } from '../offering-categories/offering-categories.schemas.js';

export const DEFAULT_PASSING_GRADE = 70;

const Title = NonBlankText(255);
const CatalogDescription = Type.String({ maxLength: 100000, errorMessage: 'must be a string of at most 100000 characters' });
const Price = Type.Number({ minimum: 0, errorMessage: 'must be a number of 0 or more' });
const CategoryIds = Type.Array(Type.String(), {
  maxItems: 100,
  errorMessage: 'must be a list of at most 100 offering category ids',
  description: 'Ids of offering categories of the organization; replaces the list',
});
const Tags = Type.Array(Type.String({ maxLength: 255 }), {
  maxItems: 100,
  errorMessage: 'must be a list of at most 100 strings',
  description: 'Entries holding commas or spaces are split into several tags; duplicates are dropped',
});
const PassingGrade = Type.Number({
  minimum: 0,
  maximum: 100,
  errorMessage: 'must be a number from 0 to 100',
  description: `Lowest grade that passes (default ${DEFAULT_PASSING_GRADE})`,
});
const AllowRetake = Type.Boolean({
  errorMessage: 'must be true or false',
  description: 'Whether a user whose registration was graded may register again (default false)',
});

export const Offering = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    createdDate: Timestamp('When the offering was created'),
    updatedDate: UpdatedTimestamp(),
    beginDate: Type.Optional(Timestamp('Start of the offering')),
    endDate: Type.Optional(Timestamp('End of the offering')),
    registrationBeginDate: Type.Optional(Timestamp('Registration opens')),
    registrationEndDate: Type.Optional(Timestamp('Registration closes')),
    catalogDescription: Type.Optional(Type.String()),
    price: Type.Optional(Type.Number()),
    offeringCategoryIds: Type.Optional(Type.Array(Type.String())),
    tags: Type.Optional(Type.Array(Type.String())),
    orderIndex: Type.Integer({ description: "Zero-based position in the organization's list" }),
    passingGrade: Type.Number(),
    allowRetake: Type.Boolean(),
  },
  { $id: 'Offering', additionalProperties: false },
);
export type Offering = Static<typeof Offering>;

const readOnlyProperties = { id: ReadOnly(), createdDate: ReadOnly(), updatedDate: ReadOnly() };

export const CreateOffering = Body({
  title: Title,
  beginDate: Type.Optional(TimestampInput('Start of the offering')),
  endDate: Type.Optional(TimestampInput('End of the offering')),
  registrationBeginDate: Type.Optional(TimestampInput('Registration opens; absent → open from the start')),
  registrationEndDate: Type.Optional(TimestampInput('Registration closes; absent → never closes')),
  catalogDescription: Type.Optional(CatalogDescription),
  price: Type.Optional(Price),
  offeringCategoryIds: Type.Optional(CategoryIds),
  tags: Type.Optional(Tags),
  orderIndex: Type.Optional(OrderIndex),
  passingGrade: Type.Optional(PassingGrade),
  allowRetake: Type.Optional(AllowRetake),
  ...readOnlyProperties,
});
export type CreateOffering = Static<typeof CreateOffering>;

/** Partial: what is not sent keeps its value; `null` clears an optional property (`""` too for text). */
export const UpdateOffering = Body({
  title: Type.Optional(Title),
  beginDate: Type.Optional(Nullable(TimestampInput('Start of the offering'))),
  endDate: Type.Optional(Nullable(TimestampInput('End of the offering'))),
  registrationBeginDate: Type.Optional(Nullable(TimestampInput('Registration opens'))),
  registrationEndDate: Type.Optional(Nullable(TimestampInput('Registration closes'))),
  catalogDescription: Type.Optional(Nullable(CatalogDescription)),
  price: Type.Optional(Nullable(Price)),
  offeringCategoryIds: Type.Optional(Nullable(CategoryIds)),
  tags: Type.Optional(Nullable(Tags)),
  orderIndex: Type.Optional(OrderIndex),
  passingGrade: Type.Optional(PassingGrade),
  allowRetake: Type.Optional(AllowRetake),
  ...readOnlyProperties,
});
export type UpdateOffering = Static<typeof UpdateOffering>;

export const OfferingQuery = ListQuery({
  title: SubstringFilter(),
  offeringCategoryId: Type.Optional(Type.String({ description: 'Offerings in this offering category' })),
  tag: Type.Optional(Type.String({ description: 'Tags separated by commas or spaces; an offering matches when it has all of them' })),
  createdDate: DateFilter('Creation date'),
  updatedDate: UpdatedDateFilter(),
  userId: Type.Optional(
    Type.String({
      description: 'Offerings open now for this user to register: within the registration window and not blocked by one of their registrations',
    }),
  ),
});
export type OfferingQuery = Static<typeof OfferingQuery>;

/** The `data` of this resource's events. */
declare module '../../events/event-types.js' {
  interface EventData {
    'offering.created': Offering;
    'offering.updated': Offering;
    /** The offering as it was. */
    'offering.deleted': Offering;
  }
}
