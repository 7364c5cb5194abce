import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Actor } from '../lib/actors.js';
import { isPostgres } from './locking.js';
import { changeTime, inTransaction, type ChangeTime, type UnitOfWork } from './unit-of-work.js';
import type { Database } from './schema.js';

/** Tables whose rows hold a dense, zero-based `order_index` (0..n-1) within their organization. */
type OrderedTable = 'offering_categories' | 'offerings' | 'userfield_categories' | 'userfields';

/** One of several lists a table holds per organization: the rows whose `column` equals `value`. */
interface OrderedList {
  column: string;
  value: string;
}

interface OrderedRow {
  org_id: string;
  id: string;
  order_index: number;
  updated_date: ChangeTime;
}

/** A row that a change of its list shifted, as it was before: its id, former orderIndex and former updatedDate. */
export interface ShiftedRow {
  id: string;
  orderIndex: number;
  updatedDate: string;
}

/**
 * Serializes the writers of one organization's ordered lists until the transaction ends, so each
 * sees the positions the previous one left. On PostgreSQL this is a NO KEY UPDATE lock on the
 * organization row: unlike FOR UPDATE it does not conflict with the key-share locks that inserts
 * referencing the organization take, so other writes in the organization never wait for it.
 * SQLite transactions are exclusive already.
 */
export async function lockOrdering(trx: Kysely<Database>, orgId: string): Promise<void> {
  if (!isPostgres(trx)) return;
  await trx.selectFrom('organizations').select('id').where('id', '=', orgId).forNoKeyUpdate().execute();
}

/**
 * Runs `write` in a unit of work of the caller's that holds the organization's ordering lock from its
 * start: every write to an ordered list (and whatever must not race one) goes through here.
 */
export async function orderedWrite<T>(
  db: Kysely<Database>,
  { orgId, actor }: { orgId: string; actor: Actor },
  write: (trx: UnitOfWork) => Promise<T>,
): Promise<T> {
  const locked = async (trx: UnitOfWork) => {
    await lockOrdering(trx, orgId);
    return write(trx);
  };
  // Inside a unit of work already (a conditional write's), the lock joins it.
  return inTransaction(db, actor, locked);
}

/**
 * Keeps `order_index` dense on insert, move and delete, in the organization's one list or in `list`.
 * Call inside `orderedWrite`.
 */
export function denseOrder(trx: UnitOfWork, table: OrderedTable, orgId: string, list?: OrderedList) {
  const db = trx as unknown as Kysely<Record<OrderedTable, OrderedRow>>;

  async function size(): Promise<number> {
    const { count } = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('count'))
      .where('org_id', '=', orgId)
      .$if(list !== undefined, (q) => q.where(db.dynamic.ref(list!.column), '=', list!.value))
      .executeTakeFirstOrThrow();
    return Number(count); // PostgreSQL counts as bigint, delivered as a string
  }

  /**
   * Adds `delta` to every position from `from` through `to` (inclusive; an open end runs to the list's end),
   * and gives the rows it shifted as they were. A row whose position changes has changed: a sync job
   * reading by updatedDate learns its new orderIndex, and each shifted row gets its own update event.
   */
  async function shift(delta: 1 | -1, from: number, to?: number): Promise<ShiftedRow[]> {
    const inRange = (eb: ExpressionBuilder<Record<OrderedTable, OrderedRow>, OrderedTable>) =>
      eb.and([
        eb('org_id', '=', orgId),
        eb('order_index', '>=', from),
        ...(to === undefined ? [] : [eb('order_index', '<=', to)]),
        ...(list === undefined ? [] : [eb(db.dynamic.ref(list.column), '=', list.value)]),
      ]);
    const rows = await db.selectFrom(table).select(['id', 'order_index', 'updated_date']).where(inRange).orderBy('order_index').execute();
    if (rows.length === 0) return [];
    await db
      .updateTable(table)
      .set({ order_index: sql<number>`order_index + ${delta}`, updated_date: changeTime(trx) })
      .where(inRange)
      .execute();
    return rows.map((row) => ({ id: row.id, orderIndex: row.order_index, updatedDate: row.updated_date }));
  }

  return {
    /**
     * Makes room for a new row at `requested` (omitted or beyond the end → the end): its position,
     * and the rows shifted to make room.
     */
    async openSlot(requested?: number): Promise<{ position: number; shifted: ShiftedRow[] }> {
      const end = await size();
      const position = requested === undefined ? end : Math.min(requested, end);
      return { position, shifted: await shift(1, position) };
    },

    /** Moves the row at `from` to `requested` (beyond the end → the end), shifting the rows between; gives those. */
    async move(id: string, from: number, requested: number): Promise<ShiftedRow[]> {
      const to = Math.min(requested, (await size()) - 1);
      if (to === from) return [];
      const shifted = to < from ? await shift(1, to, from - 1) : await shift(-1, from + 1, to);
      await db
        .updateTable(table)
        .set({ order_index: to, updated_date: changeTime(trx) })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .execute();
      return shifted;
    },

    /** Closes the gap a removed row left at `position`; gives the rows it shifted. */
    closeGap(position: number): Promise<ShiftedRow[]> {
      return shift(-1, position + 1);
    },
  };
}
