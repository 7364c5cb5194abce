import { Type, type Static } from '@sinclair/typebox';
import { ListQuery } from '../../lib/paging.js';
import { Body, NonBlankText, ReadOnly, Timestamp, UpdatedDateFilter } from '../../lib/schema.js';

export const AGREEMENT_TYPES = ['standard', 'custom'] as const;
export type AgreementType = (typeof AGREEMENT_TYPES)[number];

const TypeProperty = Type.Unsafe<AgreementType>(Type.String({ enum: [...AGREEMENT_TYPES], description: 'standard or custom' }));

export const Agreement = Type.Object(
  {
    type: TypeProperty,
    title: Type.String(),
    text: Type.String(),
    createdDate: Timestamp('When the agreement was defined'),
    updatedDate: Type.Optional(Timestamp('Last revision')),
    required: Type.Boolean({ description: 'Whether users must agree; always true for custom' }),
  },
  { $id: 'Agreement', additionalProperties: false },
);
export type Agreement = Static<typeof Agreement>;

/** The agreements defined, standard then custom. */
export const AgreementQuery = ListQuery({ updatedDate: UpdatedDateFilter() });
export type AgreementQuery = Static<typeof AgreementQuery>;

/** Defines the agreement (title and text required the first time) or revises what is sent. */
export const PutAgreement = Body({
  title: Type.Optional(NonBlankText(255)),
  text: Type.Optional(NonBlankText(200000)),
  required: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false', description: 'The custom agreement is always required' })),
  type: ReadOnly(),
  createdDate: ReadOnly(),
  updatedDate: ReadOnly(),
});
export type PutAgreement = Static<typeof PutAgreement>;

export const TypeParams = Type.Object({ type: Type.String({ description: 'standard or custom' }) });
export const UserAgreementParams = Type.Object({ id: Type.String(), type: Type.String({ description: 'standard or custom' }) });

export const UserAgreement = Type.Object(
  {
    type: TypeProperty,
    title: Type.String({ description: 'Once agreed, the title the user agreed to' }),
    text: Type.String({ description: 'Once agreed, the text the user agreed to, even if the agreement was revised since' }),
    createdDate: Timestamp('When the agreement was defined'),
    agreed: Type.Boolean(),
    agreedDate: Type.Optional(Timestamp('When the user agreed; absent while not agreed')),
  },
  { $id: 'UserAgreement', additionalProperties: false },
);
export type UserAgreement = Static<typeof UserAgreement>;

/** A user's agreements, standard then custom when defined. */
export const UserAgreementQuery = ListQuery({});
export type UserAgreementQuery = Static<typeof UserAgreementQuery>;

export const PutUserAgreement = Body({
  agreed: Type.Boolean({ errorMessage: 'must be true or false' }),
  type: ReadOnly(),
  title: ReadOnly(),
  text: ReadOnly(),
  createdDate: ReadOnly(),
  agreedDate: ReadOnly(),
});
export type PutUserAgreement = Static<typeof PutUserAgreement>;

/** The `data` of this resource's events. */
declare module '../../events/event-types.js' {
  interface EventData {
    'agreement.updated': Agreement;
    /** The user's agreement with its userId, and the user's updatedDate after the change (previousAttributes: before). */
    'useragreement.updated': UserAgreement & { userId: string; updatedDate: string };
  }
}
