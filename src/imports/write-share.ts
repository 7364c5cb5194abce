import { setImmediate as turn, setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../db/locking.js';
import type { Database } from '../db/schema.js';

/** The longest an import waits after a batch's commit for another connection's write to take its turn. */
const HANDOFF_MS = 5;
/** How often it looks meanwhile. */
const HANDOFF_POLL_MS = 1;

/**
 * An import's share of a database that others write to beside it: on SQLite, where one connection
 * writes at a time, the API's writes (`training-api serve`, a process of its own) wait for the write
 * lock while an import's batch holds it. An import that sees another connection's commits between
 * its own (`othersWrote`) sizes its batches shorter (IMPORT_SHARED_BATCH_TIME) and, after each
 * commit, waits for the next write of another connection (`handOff`, at most HANDOFF_MS) before it
 * takes the lock again, so that a waiting write is not outrun by the import's next batch: the
 * writers take turns instead of the import holding the lock nearly all the time. An import alone
 * sees no other commits and keeps its batches and pace.
 *
 * SQLite tells it by `PRAGMA data_version`, which changes when another connection (of any process)
 * has committed. PostgreSQL's writers do not wait for each other's locks (different rows): nothing
 * to share there.
 */
export interface WriteShare {
  /** Whether another connection committed since the last look (the first look only starts counting). */
  othersWrote(): Promise<boolean>;
  /** After a commit: waits until another connection commits, at most HANDOFF_MS; whether one did. */
  handOff(): Promise<boolean>;
}

const NOTHING_SHARED: WriteShare = {
  othersWrote: () => Promise.resolve(false),
  handOff: () => Promise.resolve(false),
};

export function writeShare(db: Kysely<Database>): WriteShare {
  if (isPostgres(db)) return NOTHING_SHARED;
  // In a turn of its own: the reads of a turn share one read transaction (sqlite-dialect.ts), in which data_version stands still.
  const dataVersion = async () => {
    await turn();
    return Number((await sql<{ data_version: number }>`pragma data_version`.execute(db)).rows[0]!.data_version);
  };
  let seen: number | undefined;
  return {
    async othersWrote() {
      const version = await dataVersion();
      const wrote = seen !== undefined && version !== seen;
      seen = version;
      return wrote;
    },
    async handOff() {
      const until = performance.now() + HANDOFF_MS;
      while (performance.now() < until) {
        await sleep(HANDOFF_POLL_MS);
        const version = await dataVersion();
        if (version !== seen) {
          seen = version;
          return true;
        }
      }
      return false;
    },
  };
}
