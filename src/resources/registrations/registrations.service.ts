import type { Kysely } from 'kysely';
import { changeTime, inTransaction, type ChangeTime } from '../../db/unit-of-work.js';
import { lockUser } from '../../db/locking.js';
import type { Database } from '../../db/schema.js';
import { changedColumns } from '../../db/rows.js';
import { dateRangeOf } from '../../lib/date-filter.js';
import { type FieldErrors, Invalid, NOT_FOUND_MESSAGE, Refused } from '../../lib/domain-errors.js';
import { requireExistingIds } from '../../lib/id-filters.js';
import { isId, newId } from '../../lib/ids.js';
import { findById } from '../../lib/find-by-id.js';
import type { Paging } from '../../lib/paging.js';
import { offeringsRepository } from '../offerings/offerings.repository.js';
import type { Caller } from '../../auth/caller.js';
import { recordEvent, recordUpdate } from '../../events/outbox.js';
import { usersRepository } from '../users/users.repository.js';
import { registrationsRepository, type RegistrationPatch, type RegistrationRow, type RegistrationStatus } from './registrations.repository.js';
import {
  ALREADY_EJECTED,
  STATUS_NOT_SETTABLE,
  type CreateRegistration,
  type Registration,
  type RegistrationQuery,
  type UpdateRegistration,
} from './registrations.schemas.js';

const EJECT_AFTER_GRADE = 'eject status not available after the registration has been graded';
const NOT_OPEN = 'The offering is not open for registration';
const USER_DEACTIVATED = 'The user is deactivated; reactivate it to register it';
const ALREADY_ACTIVE = 'The user already has an active registration for this offering';
const ALREADY_COMPLETED = 'The user has already completed this offering, and it does not allow retakes';

function toResponse(row: RegistrationRow): Registration {
  const registration: Registration = {
    id: row.id,
    userId: row.user_id,
    offeringId: row.offering_id,
    title: row.title,
    status: row.status,
    createdDate: row.created_date,
    updatedDate: row.updated_date,
    beginDate: row.begin_date,
  };
  if (row.grade !== null) registration.grade = row.grade;
  if (row.grader_id) registration.graderId = row.grader_id;
  if (row.grader_comment) registration.graderComment = row.grader_comment;
  if (row.last_active_date) registration.lastActiveDate = row.last_active_date;
  if (row.end_date) registration.endDate = row.end_date;
  return registration;
}

interface Grading {
  grade: number;
  graderComment?: string | null;
}

/**
 * What a PUT asks of the registration in `current` status: to eject it, to grade it, or nothing at
 * all when it only names the current status (PUTting back what was read; ejecting an ejected
 * registration is refused). Read-only properties were ignored by the schema.
 */
function changeOf(input: UpdateRegistration, current: RegistrationStatus): 'eject' | Grading | undefined {
  // v5: ejecting answers 400 when the registration is not active.
  if (input.status === 'ejected' && current === 'ejected' && input.grade === undefined) throw new Invalid({ status: ALREADY_EJECTED });
  const status = input.status === current ? undefined : input.status;
  if (status !== undefined && status !== 'ejected') throw new Invalid({ status: STATUS_NOT_SETTABLE });
  if (status !== undefined && input.grade !== undefined) {
    throw new Refused('Send either "status": "ejected" or a grade, not both');
  }
  if (input.graderComment !== undefined && input.grade === undefined) {
    throw new Invalid({ graderComment: 'only allowed together with grade' });
  }
  if (status !== undefined) return 'eject';
  if (input.grade !== undefined) return { grade: input.grade, graderComment: input.graderComment };
  if (input.status !== undefined) return undefined;
  throw new Refused('Nothing to change: send {"status": "ejected"} or {"grade": n}');
}

// The state table. Eject: active → ejected; graded → refused (ejected → ejected is refused above).

function ejected(row: RegistrationRow, at: string): RegistrationPatch {
  if (row.status !== 'active') throw new Invalid({ status: EJECT_AFTER_GRADE });
  return { status: 'ejected', end_date: at };
}

/** Grade: from any status to passed or failed by the offering's passing grade. */
function graded(row: RegistrationRow, grading: Grading, passingGrade: number, at: string): RegistrationPatch {
  const patch: RegistrationPatch = {
    status: grading.grade >= passingGrade ? 'passed' : 'failed',
    grade: grading.grade,
    end_date: row.end_date ?? at,
  };
  if (grading.graderComment !== undefined) patch.grader_comment = grading.graderComment || null;
  return patch;
}

/** An active registration of the user in the offering, beginning `at`. */
function newRegistration(orgId: string, userId: string, offeringId: string, title: string, at: ChangeTime): RegistrationRow {
  return {
    org_id: orgId,
    id: newId(),
    user_id: userId,
    offering_id: offeringId,
    title,
    status: 'active',
    grade: null,
    grader_id: null,
    grader_comment: null,
    created_date: at,
    updated_date: at,
    begin_date: at,
    last_active_date: null,
    end_date: null,
  };
}

export function registrationsService(db: Kysely<Database>) {
  const registrations = registrationsRepository(db);
  const users = usersRepository(db);
  const offerings = offeringsRepository(db);

  return {
    async list(caller: Caller, query: RegistrationQuery, paging: Paging): Promise<Registration[]> {
      const { orgId } = caller;
      await requireExistingIds([
        ['userId', query.userId, (id) => users.find(orgId, id)],
        ['offeringId', query.offeringId, (id) => offerings.find(orgId, id)],
      ]);
      const rows = await registrations.list(
        orgId,
        {
          status: query.status,
          userId: query.userId,
          offeringId: query.offeringId,
          createdDate: dateRangeOf(query.createdDate),
          updatedDate: dateRangeOf(query.updatedDate),
          beginDate: dateRangeOf(query.beginDate),
          lastActiveDate: dateRangeOf(query.lastActiveDate),
          endDate: dateRangeOf(query.endDate),
        },
        paging,
      );
      return rows.map(toResponse);
    },

    async get(caller: Caller, id: string): Promise<Registration> {
      return toResponse(await findById(id, (id) => registrations.find(caller.orgId, id)));
    },

    /**
     * Registers the user. The offering row stays locked until the end, so two requests for the same
     * offering (or one and the offering's deletion) cannot both pass the checks; the user row too,
     * so the user cannot be deleted in between.
     */
    create(caller: Caller, input: CreateRegistration): Promise<string> {
      const { orgId } = caller;
      return inTransaction(db, caller.actor, async (trx) => {
        const at = changeTime(trx);
        const offering = isId(input.offeringId) ? await offeringsRepository(trx).lockForRegistration(orgId, input.offeringId, at) : undefined;
        const user = isId(input.userId) ? await lockUser(trx, orgId, input.userId) : undefined;
        if (!user?.active || !offering?.open) {
          const fieldErrors: FieldErrors = {};
          if (!user) fieldErrors.userId = NOT_FOUND_MESSAGE;
          else if (!user.active) fieldErrors.userId = USER_DEACTIVATED;
          if (!offering) fieldErrors.offeringId = NOT_FOUND_MESSAGE;
          else if (!offering.open) fieldErrors.offeringId = NOT_OPEN;
          throw new Invalid(fieldErrors);
        }

        const repository = registrationsRepository(trx);
        const blocking = await repository.blockingStatus(orgId, input.userId, input.offeringId);
        if (blocking === 'active') throw new Refused(ALREADY_ACTIVE);
        if (blocking) throw new Refused(ALREADY_COMPLETED);

        const row = newRegistration(orgId, input.userId, input.offeringId, offering.title, at);
        await repository.insert(row);
        recordEvent(trx, orgId, 'registration.created', toResponse(row));
        await caller.idempotentWrite?.settle(trx, row.id);
        return row.id;
      });
    },

    /**
     * Registers users just created in this unit of work (the seed's) in each of `offeringIds`, as
     * `create` would one by one, with a registration.created event each, in a few multi-row
     * statements: new users hold no registration that could block one. An offering missing or not
     * open refuses them all.
     */
    async createForNewUsers(caller: Caller, offeringIds: readonly string[], userIds: readonly string[]): Promise<void> {
      const { orgId } = caller;
      if (offeringIds.length === 0 || userIds.length === 0) return;
      await inTransaction(db, caller.actor, async (trx) => {
        const at = changeTime(trx);
        const rows: RegistrationRow[] = [];
        for (const offeringId of offeringIds) {
          const offering = await offeringsRepository(trx).lockForRegistration(orgId, offeringId, at);
          if (!offering?.open) throw new Invalid({ offeringId: offering ? NOT_OPEN : NOT_FOUND_MESSAGE });
          for (const userId of userIds) rows.push(newRegistration(orgId, userId, offeringId, offering.title, at));
        }
        await registrationsRepository(trx).insertMany(rows);
        for (const row of rows) recordEvent(trx, orgId, 'registration.created', toResponse(row));
      });
    },

    /** Ejects or grades, with the registration row locked so concurrent changes apply one after another. */
    async update(caller: Caller, id: string, input: UpdateRegistration): Promise<void> {
      await inTransaction(db, caller.actor, async (trx) => {
        const repository = registrationsRepository(trx);
        const row = await findById(id, (id) => repository.lock(caller.orgId, id));
        const change = changeOf(input, row.status);
        if (change === undefined) return;
        let patch: RegistrationPatch;
        if (change === 'eject') {
          patch = ejected(row, changeTime(trx));
        } else {
          // The foreign key keeps an offering for as long as it has registrations.
          const offering = (await offeringsRepository(trx).find(caller.orgId, row.offering_id))!;
          patch = graded(row, change, offering.passing_grade, changeTime(trx));
        }
        // A registration PUT back as it was read changes nothing: no new updatedDate, no event.
        if (Object.keys(changedColumns(row, patch)).length === 0) return;
        await repository.update(caller.orgId, id, patch, changeTime(trx));
        const changed = toResponse((await repository.find(caller.orgId, id))!);
        recordUpdate(trx, caller.orgId, change === 'eject' ? 'registration.ejected' : 'registration.graded', toResponse(row), changed);
      });
    },
  };
}

export type RegistrationsService = ReturnType<typeof registrationsService>;
