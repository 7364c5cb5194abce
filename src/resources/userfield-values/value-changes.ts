import { changeTime, type UnitOfWork } from '../../db/unit-of-work.js';
import { orderingKey } from '../../events/event-types.js';
import { recordedEvents, recordEvent } from '../../events/outbox.js';
import { usersRepository } from '../users/users.repository.js';
import { userfieldsRepository, type UserfieldRow } from '../userfields/userfields.repository.js';
import { userfieldValuesRepository, type UserfieldValueRow } from './userfield-values.repository.js';
import type { UserfieldValues } from './userfield-values.schemas.js';

/** A user's values and updatedDate after a change of them. */
type ValuesState = { values: UserfieldValues; updatedDate: string };

/** Stored values (in userfield id order, as the repository reads them) as GET /users/{id}/userfieldvalues answers them. */
export function valuesFrom(rows: readonly Pick<UserfieldValueRow, 'userfield_id' | 'value'>[]): UserfieldValues {
  return Object.fromEntries(rows.map((row) => [row.userfield_id, JSON.parse(row.value)]));
}

/** Values in userfield id order, the order GET answers them in. */
export function inFieldOrder(values: UserfieldValues): UserfieldValues {
  return Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Each user's updatedDate before the unit of work `trx` changed them, from `locked`, the dates as the
 * unit reads them now: for a user it changed already (a SCIM request writes the user, then its values;
 * an import batch likewise), the date its first event of the user names as previous (null when it
 * created the user). The values event then names the date before the request, as the user's does.
 */
export function updatedDatesBefore(trx: UnitOfWork, locked: ReadonlyMap<string, string>): Map<string, string | null> {
  const before = new Map<string, string | null>(locked);
  const seen = new Set<string>();
  for (const event of recordedEvents(trx)) {
    const [resource, userId = ''] = orderingKey(event).split(':');
    if (resource !== 'user' || !locked.has(userId) || seen.has(userId)) continue;
    seen.add(userId);
    // An event that did not move updatedDate does not name it: the date was then already its data's.
    const previous = (event.previousAttributes?.updatedDate ?? (event.data as { updatedDate: string }).updatedDate) as string;
    before.set(userId, event.type === 'user.created' ? null : previous);
  }
  return before;
}

/** Records the change of a user's values: data `{userId, values, updatedDate}`, previousAttributes `{values, updatedDate}` before. */
export function recordValuesChange(
  trx: UnitOfWork,
  orgId: string,
  userId: string,
  // null: the same unit of work created the user.
  before: { values: UserfieldValues; updatedDate: string | null },
  after: ValuesState,
): void {
  recordEvent(trx, orgId, 'userfieldvalues.updated', { userId, ...after }, before);
}

/** What a change of a field does to one value: the value it becomes, or undefined to clear it. */
export type ValueChange = (value: unknown) => unknown;

/**
 * Applies a change of the field itself (its deletion, options taken away) to the values users hold of
 * it. Each user whose value changes has their updatedDate moved with it, and gets a
 * userfieldvalues.updated event with all their values after and before: recorded by the function
 * returned, so that the field's own event can come first.
 *
 * Locks are taken in the order a values PUT takes them, the users first and then the field, so that
 * the two wait for each other instead of deadlocking; the holders are read again once the field is
 * locked, as a PUT may have given it a value meanwhile.
 */
export async function changeHeldValues(trx: UnitOfWork, field: Pick<UserfieldRow, 'org_id' | 'id'>, change: ValueChange): Promise<() => void> {
  const { org_id: orgId, id: fieldId } = field;
  const values = userfieldValuesRepository(trx);
  const users = usersRepository(trx);
  const changesNow = async () => {
    const next = new Map<string, unknown>();
    for (const row of await values.ofUserfield(orgId, fieldId)) {
      const changed = change(JSON.parse(row.value));
      if (changed === undefined || JSON.stringify(changed) !== row.value) next.set(row.user_id, changed);
    }
    return next;
  };
  const updatedDates = await users.lockUpdatedDates(orgId, [...(await changesNow()).keys()]);
  await userfieldsRepository(trx).lock(orgId, fieldId);
  const next = await changesNow();
  const unlocked = [...next.keys()].filter((userId) => !updatedDates.has(userId));
  for (const [userId, date] of await users.lockUpdatedDates(orgId, unlocked)) updatedDates.set(userId, date);
  if (next.size === 0) return () => {};

  const userIds = [...next.keys()].sort();
  const before = new Map<string, UserfieldValues>(userIds.map((userId) => [userId, {}]));
  for (const row of await values.ofUsers(orgId, userIds)) before.get(row.user_id)![row.userfield_id] = JSON.parse(row.value);
  const at = changeTime(trx);
  await users.touch(orgId, userIds, at);
  const cleared = userIds.filter((userId) => next.get(userId) === undefined);
  await values.deleteOfUsers(orgId, fieldId, cleared);
  // Users given the same value get it in one statement.
  const usersByValue = new Map<string, string[]>();
  for (const [userId, value] of next) {
    if (value !== undefined) usersByValue.set(JSON.stringify(value), [...(usersByValue.get(JSON.stringify(value)) ?? []), userId]);
  }
  for (const [value, ids] of usersByValue) await values.setForUsers(orgId, fieldId, ids, value);

  return () => {
    for (const userId of userIds) {
      const previous = before.get(userId)!;
      const value = next.get(userId);
      const { [fieldId]: _removed, ...others } = previous;
      const after = value === undefined ? others : { ...previous, [fieldId]: value };
      recordValuesChange(trx, orgId, userId, { values: previous, updatedDate: updatedDates.get(userId)! }, { values: after, updatedDate: at });
    }
  };
}
