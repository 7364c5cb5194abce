import type { Kysely } from 'kysely';
import { coalescesReads } from './direct-statements.js';
import type { Database } from './schema.js';

interface Waiter<R> {
  resolve(row: R | undefined): void;
  reject(error: unknown): void;
}

/**
 * Lookups of one row by its id within an organization, gathered over one turn of the event loop and
 * read by one statement per organization (`ids` bound as one array), on the database handles whose
 * reads are worth gathering (direct-statements.ts `coalescesReads`: PostgreSQL without read replicas,
 * where every statement is a write to the server's socket and a wake-up of its backend, dearer than
 * the rest of a request). Elsewhere, and inside a transaction, each lookup runs `one` as before.
 *
 * Each lookup still names its organization in the statement that reads it, so tenancy is the
 * statement's as before; a lookup is made when asked, after whatever its request wrote before it, and
 * a failed statement fails each lookup it carried.
 */
export function coalescedById<R extends { id: string }>(
  one: (db: Kysely<Database>, orgId: string, id: string) => Promise<R | undefined>,
  many: (db: Kysely<Database>, orgId: string, ids: string[]) => Promise<R[]>,
): (db: Kysely<Database>, orgId: string, id: string) => Promise<R | undefined> {
  /** By handle, then organization, then id: who waits for that row. */
  let pending = new Map<Kysely<Database>, Map<string, Map<string, Waiter<R>[]>>>();
  let scheduled = false;

  function flush(): void {
    const gathered = pending;
    pending = new Map();
    scheduled = false;
    for (const [db, organizations] of gathered) {
      for (const [orgId, waiters] of organizations) {
        const ids = [...waiters.keys()];
        // One id alone takes the statement of one row: its plan is the one PostgreSQL keeps best.
        const read = ids.length === 1 ? one(db, orgId, ids[0]!).then((row) => (row ? [row] : [])) : many(db, orgId, ids);
        read.then(
          (rows) => {
            const byId = new Map(rows.map((row) => [row.id, row]));
            for (const [id, each] of waiters) for (const waiter of each) waiter.resolve(byId.get(id));
          },
          (error: unknown) => {
            for (const each of waiters.values()) for (const waiter of each) waiter.reject(error);
          },
        );
      }
    }
  }

  return (db, orgId, id) => {
    if (!coalescesReads(db)) return one(db, orgId, id);
    return new Promise<R | undefined>((resolve, reject) => {
      let organizations = pending.get(db);
      if (!organizations) pending.set(db, (organizations = new Map()));
      let waiters = organizations.get(orgId);
      if (!waiters) organizations.set(orgId, (waiters = new Map()));
      let each = waiters.get(id);
      if (!each) waiters.set(id, (each = []));
      each.push({ resolve, reject });
      if (!scheduled) {
        scheduled = true;
        // After every request the poll phase of this turn read: they share the statement.
        setImmediate(flush);
      }
    });
  };
}
