import type { Kysely } from 'kysely';
import { changeTime, type UnitOfWork } from '../../db/unit-of-work.js';
import { denseOrder, orderedWrite, type ShiftedRow } from '../../db/dense-order.js';
import type { Database } from '../../db/schema.js';
import { dateRangeOf } from '../../lib/date-filter.js';
import { type FieldErrors, Invalid, NOT_FOUND_MESSAGE, Refused } from '../../lib/domain-errors.js';
import { isId, newId } from '../../lib/ids.js';
import { findById } from '../../lib/find-by-id.js';
import type { Paging } from '../../lib/paging.js';
import type { Caller } from '../../auth/caller.js';
import { previousAttributes, recordEvent, recordShifts, recordUpdate } from '../../events/outbox.js';
import { addCategory } from '../userfield-categories/category-lists.js';
import { userfieldCategoriesRepository, type CategoryRow } from '../userfield-categories/userfield-categories.repository.js';
import { userfieldValuesRepository } from '../userfield-values/userfield-values.repository.js';
import { changeHeldValues, type ValueChange } from '../userfield-values/value-changes.js';
import {
  constraintsOf,
  definitionErrors,
  localizedNamesOf,
  objectColumn,
  optionsColumn,
  optionsOf,
  type Definition,
} from './userfield-definition.js';
import { canonicalType, DEFAULT_SIZE, hasProperty, type UserfieldType } from './userfield-types.js';
import { userfieldsRepository, type PlacedUserfieldRow, type UserfieldPatch, type UserfieldRow } from './userfields.repository.js';
import { updateFailureMessage } from './update-failure-message.js';
import type { CreateUserfield, UpdateUserfield, Userfield, UserfieldQuery } from './userfields.schemas.js';

function toResponse(row: PlacedUserfieldRow): Userfield {
  const type = row.type as UserfieldType;
  const field: Userfield = { id: row.id, type, createdDate: row.created_date, updatedDate: row.updated_date };
  if (row.name) field.name = row.name;
  if (row.localized_names) field.localizedNames = localizedNamesOf(row);
  if (row.category_id !== null) {
    field.categoryId = row.category_id;
    field.categoryName = row.category_name!;
    field.categoryType = row.category_type!;
    field.orderIndex = row.order_index!;
  }
  if (hasProperty(type, 'required')) field.required = row.required;
  if (hasProperty(type, 'options')) field.options = optionsOf(row);
  if (row.constraints) field.constraints = constraintsOf(row) as Userfield['constraints'];
  if (row.message) field.message = row.message;
  if (hasProperty(type, 'size')) field.size = row.size ?? DEFAULT_SIZE;
  if (row.read_only) field.readOnly = true;
  return field;
}

function failIfAny(fieldErrors: FieldErrors, message?: string): void {
  if (Object.keys(fieldErrors).length > 0) throw new Invalid(fieldErrors, message);
}

/** The fields of one category form one dense list. */
function fieldsOfCategory(trx: UnitOfWork, orgId: string, categoryId: string) {
  return denseOrder(trx, 'userfields', orgId, { column: 'category_id', value: categoryId });
}

/** The category a payload names: an existing one, or (by an unknown name) one to create. */
interface CategoryChoice {
  existing?: CategoryRow;
  newName?: string;
}

/** Looks up the category that `categoryId` and/or `categoryName` name; problems go into `fieldErrors`. */
async function chooseCategory(
  trx: UnitOfWork,
  orgId: string,
  input: { categoryId?: string; categoryName?: string },
  fieldErrors: FieldErrors,
): Promise<CategoryChoice> {
  const categories = userfieldCategoriesRepository(trx);
  const byId = input.categoryId === undefined || !isId(input.categoryId) ? undefined : await categories.find(orgId, input.categoryId);
  if (input.categoryId !== undefined && !byId) {
    fieldErrors.categoryId = NOT_FOUND_MESSAGE;
    return {};
  }
  if (input.categoryName === undefined) return { existing: byId };
  const byName = await categories.findByName(orgId, input.categoryName);
  if (byId && byName?.id !== byId.id) {
    fieldErrors.categoryName = 'names another category than categoryId';
    return {};
  }
  return byName ? { existing: byName } : { newName: input.categoryName };
}

/** The columns an update changes, besides the field's place. */
function patchOf(field: UserfieldRow, input: Definition): UserfieldPatch {
  const patch: UserfieldPatch = {};
  if (input.name) patch.name = input.name;
  if (input.message) patch.message = input.message;
  if (input.localizedNames !== undefined) patch.localized_names = objectColumn(input.localizedNames);
  if (input.options !== undefined) patch.options = optionsColumn(input.options);
  if (input.constraints !== undefined) patch.constraints = objectColumn(input.constraints);
  if (input.size !== undefined) patch.size = input.size;
  if (input.required !== undefined) {
    patch.required = input.required;
    // Made required after creation: users without a value are asked for one at their next login.
    patch.prompt_missing_values = input.required && (!field.required || field.prompt_missing_values);
  }
  return patch;
}

/**
 * Moves the field into `target` (the end unless `orderIndex`), or to `orderIndex` within its own
 * category; gives the other fields it shifted.
 */
async function placeField(
  trx: UnitOfWork,
  field: PlacedUserfieldRow,
  target: Pick<CategoryRow, 'id'> | undefined,
  orderIndex?: number,
): Promise<ShiftedRow[]> {
  const { org_id: orgId, category_id: categoryId } = field;
  if (target && target.id !== categoryId) {
    const left = categoryId === null ? [] : await fieldsOfCategory(trx, orgId, categoryId).closeGap(field.order_index!);
    const { position, shifted } = await fieldsOfCategory(trx, orgId, target.id).openSlot(orderIndex);
    await userfieldsRepository(trx).place(orgId, field.id, target.id, position, changeTime(trx));
    return [...left, ...shifted];
  }
  if (orderIndex !== undefined && categoryId !== null) return fieldsOfCategory(trx, orgId, categoryId).move(field.id, field.order_index!, orderIndex);
  return [];
}

/** Records the update event of each field a change of its category's list shifted. */
function recordShiftedFields(trx: UnitOfWork, orgId: string, shifted: readonly ShiftedRow[]): Promise<void> {
  return recordShifts(trx, orgId, 'userfield.updated', shifted, async (ids) =>
    (await userfieldsRepository(trx).findPlaced(orgId, ids)).map(toResponse),
  );
}

/**
 * The fields of a category about to be renamed, as they are. Each shows the category's name, so once
 * it is renamed, `renamed()` moves each one's updatedDate and records its update event with the
 * categoryName it had.
 */
export async function fieldsOfRenamedCategory(trx: UnitOfWork, orgId: string, categoryId: string) {
  const fields = userfieldsRepository(trx);
  const before = new Map((await fields.inCategory(orgId, categoryId)).map((row) => [row.id, toResponse(row)]));
  return {
    async renamed(): Promise<void> {
      if (before.size === 0) return;
      await fields.touchCategory(orgId, categoryId, changeTime(trx));
      for (const field of (await fields.inCategory(orgId, categoryId)).map(toResponse)) {
        recordUpdate(trx, orgId, 'userfield.updated', before.get(field.id)!, field);
      }
    },
  };
}

/** What taking options away does to a value of the field: a single choice of one is cleared, a checkboxes value keeps its other options. */
function withoutOptions(type: UserfieldType, removed: ReadonlySet<string>): ValueChange {
  if (type === 'checkboxes') return (value) => (value as string[]).filter((name) => !removed.has(name));
  return (value) => (removed.has(value as string) ? undefined : value);
}

/**
 * Every write takes the organization's ordering lock first: it keeps each category's orderIndex
 * dense, and makes category lookups, implicit category creation and moves race-free.
 */
export function userfieldsService(db: Kysely<Database>) {
  const userfields = userfieldsRepository(db);

  return {
    async list(caller: Caller, query: UserfieldQuery, paging: Paging): Promise<Userfield[]> {
      const rows = await userfields.list(
        caller.orgId,
        {
          createdDate: dateRangeOf(query.createdDate),
          updatedDate: dateRangeOf(query.updatedDate),
          categoryType: query.categoryType,
        },
        paging,
      );
      return rows.map(toResponse);
    },

    async get(caller: Caller, id: string): Promise<Userfield> {
      return toResponse(await findById(id, (id) => userfields.find(caller.orgId, id)));
    },

    /**
     * How many active users hold no value of the field (without an id, of a field about to be made: every
     * active user), those a required field of a public category asks at their next sign-in.
     */
    async activeUsersWithoutValue(caller: Caller, id?: string): Promise<number> {
      if (id !== undefined) await findById(id, (id) => userfields.find(caller.orgId, id));
      return userfieldValuesRepository(db).countActiveUsersWithout(caller.orgId, id);
    },

    create(caller: Caller, input: CreateUserfield): Promise<string> {
      const { orgId } = caller;
      const type = canonicalType(input.type);
      return orderedWrite(db, caller, async (trx) => {
        const fieldErrors = definitionErrors(type, input, true);
        if (input.categoryId === undefined && input.categoryName === undefined) fieldErrors.categoryName = 'required';
        const { existing, newName } = await chooseCategory(trx, orgId, input, fieldErrors);
        if (existing && input.categoryType !== undefined && input.categoryType !== existing.type) {
          fieldErrors.categoryType = `does not match the category, which is ${existing.type}`;
        }
        failIfAny(fieldErrors);

        const category = existing ?? (await addCategory(trx, orgId, { name: newName!, type: input.categoryType ?? 'public' }));
        const { position, shifted } = await fieldsOfCategory(trx, orgId, category.id).openSlot(input.orderIndex);
        const at = changeTime(trx);
        const row: UserfieldRow = {
          org_id: orgId,
          id: newId(),
          type,
          name: input.name ?? null,
          localized_names: input.localizedNames ? objectColumn(input.localizedNames) : null,
          category_id: category.id,
          order_index: position,
          required: input.required ?? false,
          options: input.options ? optionsColumn(input.options) : null,
          constraints: input.constraints ? objectColumn(input.constraints) : null,
          message: input.message ?? null,
          size: hasProperty(type, 'size') ? (input.size ?? DEFAULT_SIZE) : null,
          read_only: false,
          prompt_missing_values: false,
          created_date: at,
          updated_date: at,
        };
        const repository = userfieldsRepository(trx);
        await repository.insert(row);
        recordEvent(trx, orgId, 'userfield.created', toResponse((await repository.find(orgId, row.id))!));
        await recordShiftedFields(trx, orgId, shifted);
        await caller.idempotentWrite?.settle(trx, row.id);
        return row.id;
      });
    },

    /**
     * Partial update covering every use case of v5: rename, required, options, constraints, message,
     * size, localizedNames, orderIndex and moves between categories. Read-only properties are ignored.
     */
    async update(caller: Caller, id: string, input: UpdateUserfield): Promise<void> {
      const { orgId } = caller;
      await orderedWrite(db, caller, async (trx) => {
        const field = await findById(id, (id) => userfieldsRepository(trx).find(orgId, id));
        const type = field.type as UserfieldType;
        const fieldErrors = definitionErrors(type, input, false);
        if (input.type !== undefined && canonicalType(input.type) !== type) fieldErrors.type = 'cannot be changed';
        if (field.read_only && input.name !== undefined && input.name !== field.name) {
          fieldErrors.name ??= 'cannot be changed on a predefined userfield';
        }
        const moving = input.categoryId !== undefined || input.categoryName !== undefined;
        const { existing, newName } = moving ? await chooseCategory(trx, orgId, input, fieldErrors) : {};
        if (input.orderIndex !== undefined && !moving && field.category_id === null) {
          fieldErrors.orderIndex = 'the userfield is in no category; send categoryId or categoryName to place it';
        }
        // categoryType names the type of the category the field is to be in; it never changes an existing category's type.
        const placedIn = moving ? existing?.type : (field.category_type ?? undefined);
        if (input.categoryType !== undefined && newName === undefined && !fieldErrors.categoryId && !fieldErrors.categoryName) {
          if (placedIn === undefined) fieldErrors.categoryType = 'the userfield is in no category; send categoryId or categoryName to place it';
          else if (placedIn !== input.categoryType) fieldErrors.categoryType = `does not match the category, which is ${placedIn}`;
        }
        failIfAny(fieldErrors, updateFailureMessage(fieldErrors));

        // An unknown categoryName creates the category, as on create.
        const target = newName === undefined ? existing : await addCategory(trx, orgId, { name: newName, type: input.categoryType ?? 'public' });
        const repository = userfieldsRepository(trx);
        let recordValueChanges = () => {};
        if (input.options) {
          const kept = new Set(input.options.map((option) => option.name));
          const removed = new Set(
            optionsOf(field)
              .map((option) => option.name)
              .filter((name) => !kept.has(name)),
          );
          if (removed.size > 0) recordValueChanges = await changeHeldValues(trx, field, withoutOptions(type, removed));
        }
        // Only what the field shows changes it: a field PUT back as it was read keeps its updatedDate.
        const patch = patchOf(field, input);
        if (previousAttributes(toResponse(field), toResponse({ ...field, ...patch }))) await repository.update(orgId, id, patch, changeTime(trx));
        const shifted = await placeField(trx, field, target, input.orderIndex);
        recordUpdate(trx, orgId, 'userfield.updated', toResponse(field), toResponse((await repository.find(orgId, id))!));
        recordValueChanges();
        await recordShiftedFields(trx, orgId, shifted);
      });
    },

    /**
     * Deletes a custom field with every user's value of it. A predefined field is only taken out of
     * its category (its values are kept); one in no category cannot be deleted.
     */
    async delete(caller: Caller, id: string): Promise<void> {
      const { orgId } = caller;
      await orderedWrite(db, caller, async (trx) => {
        const repository = userfieldsRepository(trx);
        const field = await findById(id, (id) => repository.find(orgId, id));
        if (field.category_id === null) {
          throw new Refused('A predefined userfield cannot be deleted; DELETE only takes it out of its category, and it is in none.');
        }
        if (field.read_only) {
          await repository.place(orgId, id, null, null, changeTime(trx));
          // The predefined field stays, in no category: a change of it, not its deletion.
          recordUpdate(trx, orgId, 'userfield.updated', toResponse(field), toResponse((await repository.find(orgId, id))!));
        } else {
          const recordValueChanges = await changeHeldValues(trx, field, () => undefined); // its values go with it
          await repository.delete(orgId, id);
          recordEvent(trx, orgId, 'userfield.deleted', toResponse(field));
          recordValueChanges();
        }
        await recordShiftedFields(trx, orgId, await fieldsOfCategory(trx, orgId, field.category_id).closeGap(field.order_index!));
      });
    },
  };
}

export type UserfieldsService = ReturnType<typeof userfieldsService>;
