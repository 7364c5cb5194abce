import type { Kysely } from 'kysely';
import { changeTime, type UnitOfWork } from '../../db/unit-of-work.js';
import { denseOrder, orderedWrite, type ShiftedRow } from '../../db/dense-order.js';
import { changedColumns } from '../../db/rows.js';
import type { Database } from '../../db/schema.js';
import { dateRangeOf, parseTimestamp } from '../../lib/date-filter.js';
import { type FieldErrors, Invalid, NOT_FOUND_MESSAGE, Refused } from '../../lib/domain-errors.js';
import { requireExistingIds } from '../../lib/id-filters.js';
import { isId, newId } from '../../lib/ids.js';
import { findById } from '../../lib/find-by-id.js';
import type { Paging } from '../../lib/paging.js';
import { parseTagFilter, tagsColumn, tagsOf } from '../../lib/tags.js';
import { TIMESTAMP_MESSAGE } from '../../lib/schema.js';
import { now } from '../../lib/time.js';
import { offeringCategoriesRepository } from '../offering-categories/offering-categories.repository.js';
import { registrationsRepository } from '../registrations/registrations.repository.js';
import type { Caller } from '../../auth/caller.js';
import { recordEvent, recordShifts, recordUpdate } from '../../events/outbox.js';
import { usersRepository } from '../users/users.repository.js';
import { offeringsRepository, type OfferingPatch, type OfferingRow } from './offerings.repository.js';
import { DEFAULT_PASSING_GRADE, type CreateOffering, type Offering, type OfferingQuery, type UpdateOffering } from './offerings.schemas.js';

const STILL_REGISTERED = 'The offering has registrations that are not ejected; it can be deleted once it has none.';

function toResponse(row: OfferingRow, categoryIds: string[] = []): Offering {
  const offering: Offering = {
    id: row.id,
    title: row.title,
    createdDate: row.created_date,
    updatedDate: row.updated_date,
    orderIndex: row.order_index,
    passingGrade: row.passing_grade,
    allowRetake: row.allow_retake,
  };
  if (row.begin_date) offering.beginDate = row.begin_date;
  if (row.end_date) offering.endDate = row.end_date;
  if (row.registration_begin_date) offering.registrationBeginDate = row.registration_begin_date;
  if (row.registration_end_date) offering.registrationEndDate = row.registration_end_date;
  if (row.catalog_description) offering.catalogDescription = row.catalog_description;
  if (row.price !== null) offering.price = row.price;
  if (categoryIds.length > 0) offering.offeringCategoryIds = categoryIds;
  if (row.tags) offering.tags = tagsOf(row.tags);
  return offering;
}

/** The offerings with these ids as the API returns them, in the order of `ids`. */
export async function offeringsOf(db: Kysely<Database>, orgId: string, ids: readonly string[]): Promise<Offering[]> {
  const repository = offeringsRepository(db);
  const rows = new Map((await repository.findMany(orgId, ids)).map((row) => [row.id, row]));
  const categoryIds = await repository.categoryIds(orgId, ids);
  return ids.map((id) => toResponse(rows.get(id)!, categoryIds.get(id)));
}

/** The offering as the API returns it, read in `trx`. */
async function representation(trx: UnitOfWork, orgId: string, id: string): Promise<Offering> {
  const repository = offeringsRepository(trx);
  return toResponse((await repository.find(orgId, id))!, (await repository.categoryIds(orgId, [id])).get(id));
}

/** The organization's offerings form one dense list. */
function offeringsInOrder(trx: UnitOfWork, orgId: string) {
  return denseOrder(trx, 'offerings', orgId);
}

/** Records the update event of each offering a change of the list shifted. */
function recordShiftedOfferings(trx: UnitOfWork, orgId: string, shifted: readonly ShiftedRow[]): Promise<void> {
  return recordShifts(trx, orgId, 'offering.updated', shifted, (ids) => offeringsOf(trx, orgId, ids));
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, index) => id === b[index]);
}

type Dates = Pick<OfferingRow, 'begin_date' | 'end_date' | 'registration_begin_date' | 'registration_end_date'>;

const DATE_PROPERTIES = [
  ['beginDate', 'begin_date'],
  ['endDate', 'end_date'],
  ['registrationBeginDate', 'registration_begin_date'],
  ['registrationEndDate', 'registration_end_date'],
] as const;

/** Each span must not end before it begins. */
const SPANS = [
  ['begin_date', 'end_date', 'endDate', 'beginDate'],
  ['registration_begin_date', 'registration_end_date', 'registrationEndDate', 'registrationBeginDate'],
] as const;

/** The stored form of a date input: UTC to the second; a value that is no real moment stays as sent, for `dateErrors` to refuse. */
function storedDate(value: string | null): string | null {
  return value === null ? null : (parseTimestamp(value) ?? value);
}

/** The dates an offering will have: the input's where given (`null` clears), else the current ones. */
function datesOf(input: CreateOffering | UpdateOffering, current?: Dates): Dates {
  const dates = { begin_date: null, end_date: null, registration_begin_date: null, registration_end_date: null, ...current };
  for (const [property, column] of DATE_PROPERTIES) {
    const value = input[property];
    if (value !== undefined) dates[column] = storedDate(value);
  }
  return dates;
}

/** The schema checks the timestamp's shape; this checks the calendar (no 30 February) and each span's order. */
function dateErrors(input: CreateOffering | UpdateOffering, dates: Dates): FieldErrors {
  const fieldErrors: FieldErrors = {};
  for (const [property] of DATE_PROPERTIES) {
    const value = input[property];
    if (value && parseTimestamp(value) === undefined) fieldErrors[property] = TIMESTAMP_MESSAGE;
  }
  for (const [begin, end, endProperty, beginProperty] of SPANS) {
    const [from, to] = [dates[begin], dates[end]];
    if (from && to && to < from && !fieldErrors[endProperty]) fieldErrors[endProperty] = `must not be before ${beginProperty}`;
  }
  return fieldErrors;
}

/** The category ids without repeats, and a field error for each one not in the organization. */
async function checkCategories(trx: UnitOfWork, orgId: string, requested: readonly string[]) {
  const ids = [...new Set(requested)];
  const existing = await offeringCategoriesRepository(trx).existing(orgId, ids.filter(isId));
  const fieldErrors: FieldErrors = {};
  requested.forEach((id, index) => {
    if (!existing.has(id)) fieldErrors[`offeringCategoryIds[${index}]`] = NOT_FOUND_MESSAGE;
  });
  return { ids, fieldErrors };
}

/** Validates what depends on the calendar and on stored data, all field errors at once; gives the category ids to store. */
async function validate(trx: UnitOfWork, orgId: string, input: CreateOffering | UpdateOffering, current?: OfferingRow) {
  const fieldErrors = dateErrors(input, datesOf(input, current));
  const checked = input.offeringCategoryIds ? await checkCategories(trx, orgId, input.offeringCategoryIds) : undefined;
  Object.assign(fieldErrors, checked?.fieldErrors);
  if (Object.keys(fieldErrors).length > 0) throw new Invalid(fieldErrors);
  return checked?.ids;
}

/**
 * Every write takes the organization's ordering lock first: it keeps `orderIndex` dense and keeps
 * the named categories from being deleted until the write is done.
 */
export function offeringsService(db: Kysely<Database>) {
  const offerings = offeringsRepository(db);
  const users = usersRepository(db);
  const categories = offeringCategoriesRepository(db);

  return {
    async list(caller: Caller, query: OfferingQuery, paging: Paging): Promise<Offering[]> {
      const { orgId } = caller;
      await requireExistingIds([
        ['offeringCategoryId', query.offeringCategoryId, (id) => categories.find(orgId, id)],
        ['userId', query.userId, (id) => users.find(orgId, id)],
      ]);
      const rows = await offerings.list(
        orgId,
        {
          title: query.title,
          categoryId: query.offeringCategoryId,
          tags: query.tag === undefined ? undefined : parseTagFilter('tag', query.tag),
          createdDate: dateRangeOf(query.createdDate),
          updatedDate: dateRangeOf(query.updatedDate),
          openFor: query.userId === undefined ? undefined : { userId: query.userId, at: now() },
        },
        paging,
      );
      const categoryIds = await offerings.categoryIds(
        orgId,
        rows.map((row) => row.id),
      );
      return rows.map((row) => toResponse(row, categoryIds.get(row.id)));
    },

    async get(caller: Caller, id: string): Promise<Offering> {
      const row = await findById(id, (id) => offerings.find(caller.orgId, id));
      return toResponse(row, (await offerings.categoryIds(caller.orgId, [id])).get(id));
    },

    create(caller: Caller, input: CreateOffering): Promise<string> {
      const { orgId } = caller;
      return orderedWrite(db, caller, async (trx) => {
        const categoryIds = await validate(trx, orgId, input);
        const opened = await offeringsInOrder(trx, orgId).openSlot(input.orderIndex);
        const at = changeTime(trx);
        const row: OfferingRow = {
          org_id: orgId,
          id: newId(),
          title: input.title,
          ...datesOf(input),
          catalog_description: input.catalogDescription || null,
          price: input.price ?? null,
          tags: tagsColumn(input.tags),
          order_index: opened.position,
          passing_grade: input.passingGrade ?? DEFAULT_PASSING_GRADE,
          allow_retake: input.allowRetake ?? false,
          created_date: at,
          updated_date: at,
        };
        const repository = offeringsRepository(trx);
        await repository.insert(row);
        if (categoryIds) await repository.replaceCategories(orgId, row.id, categoryIds);
        recordEvent(trx, orgId, 'offering.created', await representation(trx, orgId, row.id));
        await recordShiftedOfferings(trx, orgId, opened.shifted);
        await caller.idempotentWrite?.settle(trx, row.id);
        return row.id;
      });
    },

    async update(caller: Caller, id: string, input: UpdateOffering): Promise<void> {
      const { orgId } = caller;
      await orderedWrite(db, caller, async (trx) => {
        const repository = offeringsRepository(trx);
        const row = await findById(id, (id) => repository.lock(orgId, id));
        const categoryIds = await validate(trx, orgId, input, row);
        const currentCategoryIds = (await repository.categoryIds(orgId, [id])).get(id) ?? [];
        const requested: OfferingPatch = {};
        for (const [property, column] of DATE_PROPERTIES) {
          const value = input[property];
          if (value !== undefined) requested[column] = storedDate(value);
        }
        if (input.title !== undefined) requested.title = input.title;
        if (input.catalogDescription !== undefined) requested.catalog_description = input.catalogDescription || null;
        if (input.price !== undefined) requested.price = input.price;
        if (input.tags !== undefined) requested.tags = tagsColumn(input.tags);
        if (input.passingGrade !== undefined) requested.passing_grade = input.passingGrade;
        if (input.allowRetake !== undefined) requested.allow_retake = input.allowRetake;
        // Only what differs is a change: an offering PUT back as it was read keeps its updatedDate.
        const patch = changedColumns(row, requested);
        const recategorized = categoryIds !== undefined && !sameIds(categoryIds, currentCategoryIds);
        if (Object.keys(patch).length > 0 || recategorized) await repository.update(orgId, id, patch, changeTime(trx));
        if (recategorized) await repository.replaceCategories(orgId, id, categoryIds);
        const shifted = input.orderIndex === undefined ? [] : await offeringsInOrder(trx, orgId).move(id, row.order_index, input.orderIndex);
        recordUpdate(trx, orgId, 'offering.updated', toResponse(row, currentCategoryIds), await representation(trx, orgId, id));
        await recordShiftedOfferings(trx, orgId, shifted);
      });
    },

    /** Refused while registrations that are not ejected exist; ejected ones are deleted with the offering. */
    async delete(caller: Caller, id: string): Promise<void> {
      const { orgId } = caller;
      await orderedWrite(db, caller, async (trx) => {
        const repository = offeringsRepository(trx);
        const row = await findById(id, (id) => repository.lock(orgId, id));
        const registrations = registrationsRepository(trx);
        const statuses = await registrations.lockStatusesOfOffering(orgId, id);
        if (statuses.some((status) => status !== 'ejected')) throw new Refused(STILL_REGISTERED);
        const tombstone = await representation(trx, orgId, id);
        await registrations.deleteOfOffering(orgId, id);
        await repository.delete(orgId, id);
        recordEvent(trx, orgId, 'offering.deleted', tombstone);
        await recordShiftedOfferings(trx, orgId, await offeringsInOrder(trx, orgId).closeGap(row.order_index));
      });
    },
  };
}

export type OfferingsService = ReturnType<typeof offeringsService>;
