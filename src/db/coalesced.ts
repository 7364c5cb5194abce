import type { Kysely } from 'kysely';
import { coalescesReads } from './direct-statements.js';
import type { Database } from './schema.js';

interface Waiter<R> {
  resolve(row: R | undefined): void;
  reject(error: unknown): void;
}

/** A row of a gathered statement: the row asked for, with the organization it was read in. */
export type OfOrganization<R> = R & { org_id: string };

/**
 * Lookups of one row by its id within an organization, gathered over one turn of the event loop and
 * read by one statement (the pairs of organization and id bound as two arrays, `orgIds[i]` with
 * `ids[i]`), on the database handles whose reads are worth gathering (direct-statements.ts
 * `coalescesReads`: PostgreSQL without read replicas, where every statement is a write to the
 * server's socket and a wake-up of its backend, dearer than the rest of a request). Elsewhere, and
 * inside a transaction, each lookup runs `one` as before.
 *
 * The lookups of every organization share the statement: a server of many organizations, whose
 * requests of one turn are each of another organization, gathers them as one of a single
 * organization does (issue 39). Each lookup still names its organization in the statement that reads
 * it, and a row answers only the lookup of its own organization and id, so tenancy is the statement's
 * as before; a lookup is made when asked, after whatever its request wrote before it, and a failed
 * statement fails each lookup it carried.
 */
export function coalescedById<R extends { id: string }>(
  one: (db: Kysely<Database>, orgId: string, id: string) => Promise<R | undefined>,
  many: (db: Kysely<Database>, orgIds: string[], ids: string[]) => Promise<OfOrganization<R>[]>,
): (db: Kysely<Database>, orgId: string, id: string) => Promise<R | undefined> {
  /** By handle, then organization, then id: who waits for that row. */
  let pending = new Map<Kysely<Database>, Map<string, Map<string, Waiter<R>[]>>>();
  let scheduled = false;

  function flush(): void {
    const gathered = pending;
    pending = new Map();
    scheduled = false;
    for (const [db, organizations] of gathered) {
      const orgIds: string[] = [];
      const ids: string[] = [];
      for (const [orgId, waiters] of organizations) {
        for (const id of waiters.keys()) {
          orgIds.push(orgId);
          ids.push(id);
        }
      }
      /** Answers every lookup of the turn by `found`: undefined, not found. */
      const settle = (found: (orgId: string, id: string) => R | undefined) => {
        for (const [orgId, waiters] of organizations) {
          for (const [id, each] of waiters) {
            const row = found(orgId, id);
            for (const waiter of each) waiter.resolve(row);
          }
        }
      };
      const fail = (error: unknown) => {
        for (const waiters of organizations.values()) for (const each of waiters.values()) for (const waiter of each) waiter.reject(error);
      };
      // One id alone takes the statement of one row: its plan is the one PostgreSQL keeps best.
      if (ids.length === 1) {
        one(db, orgIds[0]!, ids[0]!).then((row) => settle(() => row), fail);
        continue;
      }
      many(db, orgIds, ids).then((rows) => {
        const read = new Map<string, Map<string, R>>();
        for (const { org_id: orgId, ...row } of rows) {
          let ofOrganization = read.get(orgId);
          if (!ofOrganization) read.set(orgId, (ofOrganization = new Map()));
          ofOrganization.set(row.id, row as unknown as R);
        }
        settle((orgId, id) => read.get(orgId)?.get(id));
      }, fail);
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
