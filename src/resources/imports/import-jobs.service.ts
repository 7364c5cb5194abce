import type { Kysely } from 'kysely';
import type { Caller } from '../../auth/caller.js';
import type { Database, ImportJobsTable } from '../../db/schema.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { importActor } from '../../lib/actors.js';
import { Invalid } from '../../lib/domain-errors.js';
import type { PasswordPolicy } from '../../lib/password-policy.js';
import { newId } from '../../lib/ids.js';
import { findById } from '../../lib/find-by-id.js';
import { now } from '../../lib/time.js';
import { ImportInterrupted } from '../../imports/apply.js';
import type { FileSource, Format } from '../../imports/file-reader.js';
import type { Problem } from '../../imports/rows.js';
import { importOptionsOf } from '../../imports/import-options.js';
import type { ImportJob, ImportQuery, ImportSummary } from './imports.schemas.js';
import { openImport, stagesOf, type OpenedImport } from '../../imports/users-import.js';
import type { ImportSettings } from '../../lib/import-settings.js';
import type { Progress, Stage } from '../../imports/progress.js';
import { FileTooLarge } from '../../imports/file-limits.js';

/** A refused file may have a problem on every row; the first ones say enough. */
const MAX_PROBLEMS = 1000;

/** How often a running job's server stamps it; a job unstamped for STALE_AFTER_MS lost its server. */
const HEARTBEAT_MS = 5000;
/** How often a running job's progress is written, when it moved. */
const PROGRESS_MS = 1000;
const STALE_AFTER_MS = 3 * HEARTBEAT_MS;
const LOST_MESSAGE =
  'the server running the import stopped before it finished; the batches before were written: send the file again, and the rows already imported count as unchanged';

type JobRow = ImportJobsTable;

/** The file of a job: its bytes or a file on disk, and what to do with it once the job has ended (a temporary file removed). */
export interface ImportSource {
  file: FileSource;
  release?(): Promise<void>;
}

/** The job as GET answers it: what it does not have yet (a finished date, a summary, problems) is left out. */
function toResponse(row: JobRow): ImportJob {
  const problems = row.problems === null ? [] : (JSON.parse(row.problems) as Problem[]);
  return {
    id: row.id,
    state: row.state,
    createdDate: row.created_date,
    ...(row.finished_date === null ? {} : { finishedDate: row.finished_date }),
    options: JSON.parse(row.options) as ImportQuery,
    ...(row.summary === null ? {} : { summary: JSON.parse(row.summary) as ImportSummary }),
    ...(problems.length === 0 ? {} : { problems }),
  };
}

interface JobLog {
  error(details: object, message: string): void;
}

/** How far a running job is: its stage, the rows done of the stage's, and the share of the whole import done. */
export interface JobProgress {
  stage: Stage;
  done: number;
  total: number;
  percent: number;
}

/** A job's Progress, kept to be written: the stages after the file is read, each an equal share of the bar. */
function progressOf(stages: readonly Stage[]): Progress & { readonly current: JobProgress | undefined } {
  let current: JobProgress | undefined;
  const percentOf = (stage: Stage, done: number, total: number) => {
    const index = stages.indexOf(stage);
    if (index < 0) return 0;
    return Math.min(100, Math.floor(((index + (total > 0 ? Math.min(done / total, 1) : 0)) * 100) / stages.length));
  };
  return {
    stage(stage, total = 0) {
      current = stages.includes(stage) ? { stage, done: 0, total, percent: percentOf(stage, 0, total) } : undefined;
    },
    advance(rows) {
      if (!current) return;
      const done = current.done + rows;
      current = { ...current, done, percent: percentOf(current.stage, done, current.total) };
    },
    stop: () => undefined,
    get current() {
      return current;
    },
  };
}

/**
 * POST /imports: the file is imported in the background, within the server process, by the same
 * import as the command line's; the job's row tells its state and outcome to GET /imports/{id}.
 */
export function importJobsService(
  db: Kysely<Database>,
  { passwordPolicy, imports = {} }: { passwordPolicy: PasswordPolicy; imports?: ImportSettings },
) {
  const running = new Set<Promise<void>>();

  async function finish(caller: Caller, id: string, outcome: Pick<JobRow, 'state' | 'summary' | 'problems'>): Promise<void> {
    await db
      .updateTable('import_jobs')
      .set({ ...outcome, finished_date: now() })
      .where('org_id', '=', caller.orgId)
      .where('id', '=', id)
      .execute();
  }

  async function run(caller: Caller, id: string, file: OpenedImport, progress: ReturnType<typeof progressOf>, log: JobLog): Promise<void> {
    const problemsText = (problems: Problem[]) => JSON.stringify(problems.slice(0, MAX_PROBLEMS));
    // The stamp every HEARTBEAT_MS, and the progress each PROGRESS_MS that it moved.
    let stamped = Date.now();
    let written: string | null = null;
    const heartbeat = setInterval(() => {
      const text = progress.current ? JSON.stringify(progress.current) : null;
      if (text === written && Date.now() - stamped < HEARTBEAT_MS) return;
      stamped = Date.now();
      written = text;
      db.updateTable('import_jobs')
        .set({ heartbeat_date: new Date().toISOString(), progress: text })
        .where('org_id', '=', caller.orgId)
        .where('id', '=', id)
        .where('state', '=', 'running')
        .execute()
        .catch((error: unknown) => log.error({ err: error, importId: id }, 'the import job could not be stamped as running'));
    }, PROGRESS_MS);
    try {
      const outcome = await file.import(caller);
      const summary = outcome.summary ? JSON.stringify(outcome.summary) : null;
      if ('problems' in outcome) await finish(caller, id, { state: 'refused', summary, problems: problemsText(outcome.problems) });
      else await finish(caller, id, { state: 'succeeded', summary, problems: null });
    } catch (error) {
      const known = error instanceof ImportInterrupted || error instanceof FileTooLarge;
      const message = known ? error.message : 'the import stopped on an internal error; the batches before were written';
      if (!known) log.error({ err: error, importId: id }, 'import failed');
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

  /** The job, and while it runs how far it is (as its server last wrote it). */
  async function status(caller: Caller, id: string): Promise<{ job: ImportJob; progress?: JobProgress }> {
    const row = await failIfLost(
      await findById(id, (id) => db.selectFrom('import_jobs').selectAll().where('org_id', '=', caller.orgId).where('id', '=', id).executeTakeFirst()),
    );
    const job = toResponse(row);
    return row.state === 'running' && row.progress !== null ? { job, progress: JSON.parse(row.progress) as JobProgress } : { job };
  }

  return {
    /**
     * Opens the file, then records the job and starts it. Options that cannot be read are a 400, a
     * file beyond the budgets of file-limits.ts a FileTooLarge (413): either starts nothing.
     */
    async start(caller: Caller, source: ImportSource, format: Format, query: ImportQuery, log: JobLog): Promise<ImportJob> {
      const written = importOptionsOf(format, query);
      if ('errors' in written) throw new Invalid(written.errors);
      const progress = progressOf(stagesOf(written.options));
      const file = await openImport(db, source.file, { ...written.options, ...imports, passwordPolicy, progress });
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
        progress: null,
      };
      const job = toResponse(row);
      try {
        await inTransaction(db, caller.actor, async (trx) => {
          await trx.insertInto('import_jobs').values(row).execute();
          await caller.idempotentWrite?.settle(trx, job);
        });
      } catch (error) {
        await file.close();
        throw error;
      }
      // The import runs as the organization's caller, without the request's Idempotency-Key (settled above).
      const importer: Caller = { orgId: caller.orgId, tokenId: caller.tokenId, scopes: caller.scopes, actor: importActor(caller.actor, row.id) };
      const work = run(importer, row.id, file, progress, log)
        .finally(() => source.release?.())
        .catch((error: unknown) => log.error({ err: error, importId: row.id }, "the import's file could not be removed"))
        .finally(() => running.delete(work));
      running.add(work);
      return job;
    },

    async get(caller: Caller, id: string): Promise<ImportJob> {
      return (await status(caller, id)).job;
    },

    status,

    /** The organization's jobs, newest first (ids grow with time): `limit` of them, before the job `before` if given. */
    async list(caller: Caller, { limit, before }: { limit: number; before?: string }): Promise<ImportJob[]> {
      let query = db.selectFrom('import_jobs').selectAll().where('org_id', '=', caller.orgId);
      if (before !== undefined) query = query.where('id', '<', before);
      const rows = await query.orderBy('id', 'desc').limit(limit).execute();
      return Promise.all(rows.map(async (row) => toResponse(await failIfLost(row))));
    },

    /** Resolves once every job started has finished: the server waits for them before it closes the database. */
    async settled(): Promise<void> {
      await Promise.all([...running]);
    },
  };
}

export type ImportJobsService = ReturnType<typeof importJobsService>;
