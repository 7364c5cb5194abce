import { sql, type Kysely, type Transaction } from 'kysely';
import { now } from '../lib/time.js';
import { isPostgres } from './locking.js';
import { inTransaction } from './unit-of-work.js';
import type { Database } from './schema.js';

/** Tables whose rows hold a dense, zero-based `order_index` (0..n-1) within their organization. */
export type OrderedTable = 'offering_categories' | 'offerings' | 'userfield_categories' | 'userfields';

/** One of several lists a table holds per organization: the rows whose `column` equals `value`. */
export interface OrderedList {
  column: string;
  value: string;
}

interface OrderedRow {
  org_id: string;
  id: string;
  order_index: number;
  updated_date: string;
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
 * Runs `write` in a transaction that holds the organization's ordering lock from its start: every
 * write to an ordered list (and whatever must not race one) goes through here.
 */
export async function orderedWrite<T>(db: Kysely<Database>, orgId: string, write: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const locked = async (trx: Transaction<Database>) => {
    await lockOrdering(trx, orgId);
    return write(trx);
  };
  // Inside a unit of work already (a conditional write's), the lock joins it.
  return inTransaction(db, locked);
}

/**
 * Keeps `order_index` dense on insert, move and delete, in the organization's one list or in `list`.
 * Call inside `orderedWrite`.
 */
export function denseOrder(trx: Transaction<Database>, table: OrderedTable, orgId: string, list?: OrderedList) {
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
   * Adds `delta` to every position from `from` through `to` (inclusive; an open end runs to the list's end).
   * A row whose position changes has changed: a sync job reading by updatedDate learns its new orderIndex.
   */
  async function shift(delta: 1 | -1, from: number, to?: number): Promise<void> {
    await db
      .updateTable(table)
      .set({ order_index: sql<number>`order_index + ${delta}`, updated_date: now() })
      .where('org_id', '=', orgId)
      .where('order_index', '>=', from)
      .$if(list !== undefined, (q) => q.where(db.dynamic.ref(list!.column), '=', list!.value))
      .$if(to !== undefined, (q) => q.where('order_index', '<=', to!))
      .execute();
  }

  return {
    /** Makes room for a new row at `requested` (omitted or beyond the end → the end) and returns its position. */
    async openSlot(requested?: number): Promise<number> {
      const end = await size();
      const position = requested === undefined ? end : Math.min(requested, end);
      await shift(1, position);
      return position;
    },

    /** Moves the row at `from` to `requested` (beyond the end → the end), shifting the rows between. */
    async move(id: string, from: number, requested: number): Promise<void> {
      const to = Math.min(requested, (await size()) - 1);
      if (to === from) return;
      if (to < from) await shift(1, to, from - 1);
      else await shift(-1, from + 1, to);
      await db.updateTable(table).set({ order_index: to, updated_date: now() }).where('org_id', '=', orgId).where('id', '=', id).execute();
    },

    /** Closes the gap a removed row left at `position`. */
    async closeGap(position: number): Promise<void> {
      await shift(-1, position + 1);
    },
  };
}
