import { Type, type Static } from '@sinclair/typebox';
import { Body, DateFilter, ReadOnly, SubstringFilter, Timestamp, UpdatedDateFilter, UpdatedTimestamp } from '../../lib/schema.js';
import { ListQuery } from '../../lib/paging.js';

const CATEGORY_TYPES = ['public', 'private'] as const;
export type CategoryType = (typeof CATEGORY_TYPES)[number];

export const CategoryTypeSchema = (description: string) =>
  Type.Unsafe<CategoryType>(Type.String({ enum: [...CATEGORY_TYPES], errorMessage: 'must be public or private', description }));

export const CategoryName = (description: string) =>
  Type.String({ maxLength: 255, pattern: '\\S', errorMessage: 'must be a string of at most 255 characters, not blank', description });

export const OrderIndex = (description: string) => Type.Integer({ minimum: 0, errorMessage: 'must be an integer of 0 or more', description });

export const UserfieldCategory = Type.Object(
  {
    id: Type.String(),
    type: CategoryTypeSchema('public: visible to and editable by the user; private: administrators only'),
    name: Type.String(),
    orderIndex: Type.Integer({ description: 'Zero-based position among the categories of its type' }),
    createdDate: Timestamp('When the category was created'),
    updatedDate: UpdatedTimestamp(),
  },
  { $id: 'UserfieldCategory', additionalProperties: false },
);
export type UserfieldCategory = Static<typeof UserfieldCategory>;

const readOnlyProperties = { id: ReadOnly(), createdDate: ReadOnly(), updatedDate: ReadOnly() };

export const CreateUserfieldCategory = Body({
  name: CategoryName('Unique in the organization (case-insensitive)'),
  type: CategoryTypeSchema('Fixed for the life of the category'),
  orderIndex: Type.Optional(OrderIndex('Position among the categories of its type; omitted or beyond the end: the end')),
  ...readOnlyProperties,
});
export type CreateUserfieldCategory = Static<typeof CreateUserfieldCategory>;

export const UpdateUserfieldCategory = Body({
  name: Type.Optional(CategoryName('Unique in the organization (case-insensitive)')),
  type: Type.Optional(CategoryTypeSchema('Never changes: accepted only when equal to the current type')),
  orderIndex: Type.Optional(OrderIndex('New position among the categories of its type; beyond the end: the end')),
  ...readOnlyProperties,
});
export type UpdateUserfieldCategory = Static<typeof UpdateUserfieldCategory>;

export const UserfieldCategoryQuery = ListQuery({
  name: SubstringFilter(),
  type: Type.Optional(CategoryTypeSchema('Only categories of this type')),
  createdDate: DateFilter('Creation date'),
  updatedDate: UpdatedDateFilter(),
});
export type UserfieldCategoryQuery = Static<typeof UserfieldCategoryQuery>;

/** The `data` of this resource's events. */
declare module '../../events/event-types.js' {
  interface EventData {
    'userfieldcategory.created': UserfieldCategory;
    'userfieldcategory.updated': UserfieldCategory;
    'userfieldcategory.deleted': UserfieldCategory;
  }
}
