import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import type { Database, ImportJobsTable } from '../db/schema.js';
import { inTransaction } from '../db/unit-of-work.js';
import { Invalid } from '../lib/domain-errors.js';
import type { PasswordPolicy } from '../lib/password-policy.js';
import { newId } from '../lib/ids.js';
import { findById } from '../lib/find-by-id.js';
import { now } from '../lib/time.js';
import { ImportInterrupted } from './apply.js';
import type { Format } from './file-rows.js';
import type { Problem } from './rows.js';
import { importOptionsOf } from './import-options.js';
import type { ImportJob, ImportQuery, ImportSummary } from './imports.schemas.js';
import { importUsers } from './users-import.js';

/** A refused file may have a problem on every row; the first ones say enough. */
const MAX_PROBLEMS = 1000;

/** How often a running job's server stamps it; a job unstamped for STALE_AFTER_MS lost its server. */
const HEARTBEAT_MS = 5000;
const STALE_AFTER_MS = 3 * HEARTBEAT_MS;
const LOST_MESSAGE =
  'the server running the import stopped before it finished; the batches before were written: send the file again, and the rows already imported count as unchanged';

type JobRow = ImportJobsTable;
/** The job's options as read when it was created. */
type CheckedOptions = Extract<ReturnType<typeof importOptionsOf>, { options: unknown }>['options'];

function toResponse(row: JobRow): ImportJob {
  const problems = row.problems === null ? [] : (JSON.parse(row.problems) as Problem[]);
  return {
    id: row.id,
    state: row.state,
    createdDate: row.created_date,
    finishedDate: row.finished_date,
    options: JSON.parse(row.options) as ImportQuery,
    summary: row.summary === null ? null : (JSON.parse(row.summary) as ImportSummary),
    problems: problems.map((problem) => ({ row: null, column: null, field: null, ...problem })),
  };
}

interface JobLog {
  error(details: object, message: string): void;
}

/**
 * POST /imports: the file is imported in the background, within the server process, by the same
 * import as the command line's; the job's row tells its state and outcome to GET /imports/{id}.
 */
export function importJobsService(db: Kysely<Database>, { passwordPolicy }: { passwordPolicy: PasswordPolicy }) {
  const running = new Set<Promise<void>>();

  async function finish(caller: Caller, id: string, outcome: Pick<JobRow, 'state' | 'summary' | 'problems'>): Promise<void> {
    await db
      .updateTable('import_jobs')
      .set({ ...outcome, finished_date: now() })
      .where('org_id', '=', caller.orgId)
      .where('id', '=', id)
      .execute();
  }

  async function run(caller: Caller, id: string, bytes: Uint8Array, options: CheckedOptions, log: JobLog): Promise<void> {
    const problemsText = (problems: Problem[]) => JSON.stringify(problems.slice(0, MAX_PROBLEMS));
    const heartbeat = setInterval(() => {
      db.updateTable('import_jobs')
        .set({ heartbeat_date: new Date().toISOString() })
        .where('org_id', '=', caller.orgId)
        .where('id', '=', id)
        .where('state', '=', 'running')
        .execute()
        .catch((error: unknown) => log.error({ err: error, importId: id }, 'the import job could not be stamped as running'));
    }, HEARTBEAT_MS);
    try {
      const outcome = await importUsers(db, caller, bytes, { ...options, passwordPolicy });
      if ('problems' in outcome) await finish(caller, id, { state: 'refused', summary: null, problems: problemsText(outcome.problems) });
      else await finish(caller, id, { state: 'succeeded', summary: JSON.stringify(outcome.summary), problems: null });
    } catch (error) {
      const message = error instanceof ImportInterrupted ? error.message : 'the import stopped on an internal error; the batches before were written';
      if (!(error instanceof ImportInterrupted)) log.error({ err: error, importId: id }, 'import failed');
      await finish(caller, id, { state: 'failed', summary: null, problems: problemsText([{ message }]) }).catch((failure: unknown) =>
        log.error({ err: failure, importId: id }, 'the failed import could not be recorded'),
      );
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** A job still `running` whose server stopped stamping it is failed, once and for all. */
  async function failIfLost(row: JobRow): Promise<JobRow> {
    if (row.state !== 'running' || Date.parse(row.heartbeat_date ?? row.created_date) > Date.now() - STALE_AFTER_MS) return row;
    const lost = { state: 'failed' as const, summary: null, problems: JSON.stringify([{ message: LOST_MESSAGE }]), finished_date: now() };
    await db
      .updateTable('import_jobs')
      .set(lost)
      .where('org_id', '=', row.org_id)
      .where('id', '=', row.id)
      .where('state', '=', 'running')
      .where('heartbeat_date', row.heartbeat_date === null ? 'is' : '=', row.heartbeat_date)
      .execute();
    return { ...row, ...lost };
  }

  return {
    /** Records the job and starts it; options that cannot be read are a 400 and start nothing. */
    async start(caller: Caller, bytes: Uint8Array, format: Format, query: ImportQuery, log: JobLog): Promise<ImportJob> {
      const written = importOptionsOf(format, query);
      if ('errors' in written) throw new Invalid(written.errors);
      const row: JobRow = {
        org_id: caller.orgId,
        id: newId(),
        state: 'running',
        options: JSON.stringify(query),
        summary: null,
        problems: null,
        created_date: now(),
        finished_date: null,
        heartbeat_date: new Date().toISOString(),
      };
      const job = toResponse(row);
      await inTransaction(db, async (trx) => {
        await trx.insertInto('import_jobs').values(row).execute();
        await caller.idempotentWrite?.settle(trx, job);
      });
      // The import runs as the organization's caller, without the request's Idempotency-Key (settled above).
      const importer: Caller = { orgId: caller.orgId, tokenId: caller.tokenId, scopes: caller.scopes };
      const work = run(importer, row.id, bytes, written.options, log).finally(() => running.delete(work));
      running.add(work);
      return job;
    },

    async get(caller: Caller, id: string): Promise<ImportJob> {
      const row = await findById(id, (id) =>
        db.selectFrom('import_jobs').selectAll().where('org_id', '=', caller.orgId).where('id', '=', id).executeTakeFirst(),
      );
      return toResponse(await failIfLost(row));
    },

    /** Resolves once every job started has finished: the server waits for them before it closes the database. */
    async settled(): Promise<void> {
      await Promise.all([...running]);
    },
  };
}

export type ImportJobsService = ReturnType<typeof importJobsService>;
