import { Type, type Static } from '@sinclair/typebox';
import { ListQuery } from '../../lib/paging.js';
import { Body, DateFilter, Nullable, ReadOnly, Timestamp, UpdatedDateFilter, UpdatedTimestamp } from '../../lib/schema.js';

const STATUSES = ['active', 'passed', 'failed', 'ejected'] as const;
export type Status = (typeof STATUSES)[number];

// A plain enum rather than a union of literals: one validation error with our message.
const StatusSchema = Type.Unsafe<Status>(
  Type.String({ enum: [...STATUSES], errorMessage: `must be one of ${STATUSES.join(', ')}`, description: STATUSES.join(', ') }),
);

export const Registration = Type.Object(
  {
    id: Type.String(),
    userId: Type.String(),
    offeringId: Type.String(),
    title: Type.String({ description: "The offering's title when the registration was made" }),
    status: StatusSchema,
    grade: Type.Optional(Type.Number({ description: '0-100' })),
    graderId: Type.Optional(Type.String()),
    graderComment: Type.Optional(Type.String()),
    createdDate: Timestamp('When the registration was made'),
    updatedDate: UpdatedTimestamp(),
    beginDate: Timestamp('When the registration began'),
    lastActiveDate: Type.Optional(Timestamp('Last activity')),
    endDate: Type.Optional(Timestamp('When the registration ended (ejected or graded)')),
  },
  { $id: 'Registration', additionalProperties: false },
);
export type Registration = Static<typeof Registration>;

export const CreateRegistration = Body({
  userId: Type.String({ description: 'A user of the organization' }),
  offeringId: Type.String({ description: 'An offering of the organization, open for registration' }),
});
export type CreateRegistration = Static<typeof CreateRegistration>;

/** v5 refuses to eject a registration that is not active: an ejected one too. */
export const ALREADY_EJECTED = 'the registration is already ejected';

export const STATUS_NOT_SETTABLE = 'can only be set to "ejected"; a grade makes the registration passed or failed';

/**
 * Either `{"status": "ejected"}` or `{"grade": n, "graderComment"?: "..."}`. Read-only properties
 * are ignored, and so is a status equal to the current one but "ejected" (v5 refuses to eject an
 * ejected registration), so a client can PUT back what it read (with the change made). The service
 * refuses any other status but "ejected".
 */
export const UpdateRegistration = Body({
  status: Type.Optional(
    Type.Unsafe<Status>(
      Type.String({
        enum: [...STATUSES],
        errorMessage: STATUS_NOT_SETTABLE,
        description:
          '"ejected" ends an active registration without a grade; 400 on a registration graded or already ejected ' +
          `("${ALREADY_EJECTED}"). The current status of an active, passed or failed registration changes ` +
          'nothing, so that a client can PUT back what it read',
      }),
    ),
  ),
  grade: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 100,
      errorMessage: 'must be a number from 0 to 100',
      description: "0-100; the registration becomes passed when it reaches the offering's passingGrade, else failed",
    }),
  ),
  graderComment: Type.Optional(
    Nullable(Type.String({ maxLength: 10000, errorMessage: 'must be a string of at most 10000 characters', description: 'Only with grade' })),
  ),
  id: ReadOnly(),
  userId: ReadOnly(),
  offeringId: ReadOnly(),
  title: ReadOnly(),
  graderId: ReadOnly(),
  createdDate: ReadOnly(),
  updatedDate: ReadOnly(),
  beginDate: ReadOnly(),
  lastActiveDate: ReadOnly(),
  endDate: ReadOnly(),
});
export type UpdateRegistration = Static<typeof UpdateRegistration>;

export const RegistrationQuery = ListQuery({
  status: Type.Optional(StatusSchema),
  userId: Type.Optional(Type.String({ description: "The user's registrations" })),
  offeringId: Type.Optional(Type.String({ description: "The offering's registrations" })),
  createdDate: DateFilter('Creation date'),
  updatedDate: UpdatedDateFilter(),
  beginDate: DateFilter('Begin date'),
  lastActiveDate: DateFilter('Last activity date'),
  endDate: DateFilter('End date'),
});
export type RegistrationQuery = Static<typeof RegistrationQuery>;

/** The `data` of this resource's events. */
declare module '../../events/event-types.js' {
  interface EventData {
    'registration.created': Registration;
    'registration.ejected': Registration;
    'registration.graded': Registration;
  }
}
