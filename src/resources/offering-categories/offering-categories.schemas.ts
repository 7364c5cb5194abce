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
  UpdatedDateFilter,
  UpdatedTimestamp,
} from '../../lib/schema.js';

const Name = NonBlankText(255, { description: 'Unique in the organization (case-insensitive)' });
const Description = Type.String({ maxLength: 10000, errorMessage: 'must be a string of at most 10000 characters' });
const Color = Type.String({
  pattern: '^#[0-9a-fA-F]{6}$',
  errorMessage: 'must be a hex colour of the form #rrggbb',
  description: 'Hex colour #rrggbb',
});
export const OrderIndex = Type.Integer({
  minimum: 0,
  errorMessage: 'must be an integer of 0 or more',
  description: 'Zero-based position; omitted on create → last; beyond the end → last; later items shift',
});

export const OfferingCategory = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.Optional(Type.String()),
    color: Type.Optional(Type.String({ description: 'Hex colour #rrggbb' })),
    orderIndex: Type.Integer({ description: "Zero-based position in the organization's list" }),
    createdDate: Timestamp('When the category was created'),
    updatedDate: UpdatedTimestamp(),
  },
  { $id: 'OfferingCategory', additionalProperties: false },
);
export type OfferingCategory = Static<typeof OfferingCategory>;

const readOnlyProperties = { id: ReadOnly(), createdDate: ReadOnly(), updatedDate: ReadOnly() };

export const CreateOfferingCategory = Body({
  name: Name,
  description: Type.Optional(Description),
  color: Type.Optional(Color),
  orderIndex: Type.Optional(OrderIndex),
  ...readOnlyProperties,
});
export type CreateOfferingCategory = Static<typeof CreateOfferingCategory>;

/** Partial: what is not sent keeps its value; `null` or `""` clears `description` and `color`. */
export const UpdateOfferingCategory = Body({
  name: Type.Optional(Name),
  description: Type.Optional(Nullable(Description)),
  color: Type.Optional(Nullable(Color, { pattern: '^(#[0-9a-fA-F]{6})?$' })),
  orderIndex: Type.Optional(OrderIndex),
  ...readOnlyProperties,
});
export type UpdateOfferingCategory = Static<typeof UpdateOfferingCategory>;

export const OfferingCategoryQuery = ListQuery({
  name: SubstringFilter(),
  createdDate: DateFilter('Creation date'),
  updatedDate: UpdatedDateFilter(),
});
export type OfferingCategoryQuery = Static<typeof OfferingCategoryQuery>;

/** The `data` of this resource's events. */
declare module '../../events/event-types.js' {
  interface EventData {
    'offeringcategory.created': OfferingCategory;
    'offeringcategory.updated': OfferingCategory;
    'offeringcategory.deleted': OfferingCategory;
  }
}
