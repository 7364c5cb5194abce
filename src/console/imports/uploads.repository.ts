import type { Kysely } from 'kysely';
import type { Database, ImportUploadsTable } from '../../db/schema.js';
import type { Format } from '../../imports/file-reader.js';
import type { ImportQuery } from '../../resources/imports/imports.schemas.js';
import { isId, newId } from '../../lib/ids.js';
import { now, toTimestamp } from '../../lib/time.js';

/** An upload waits a day at most between its mapping and its import. */
const KEPT_MS = 24 * 60 * 60 * 1000;
/** An organization keeps its latest uploads only: a file is up to 64 MiB. */
const KEPT_PER_ORGANIZATION = 10;

/** What the console last previewed of an upload: the options as POST /imports takes them, and what each heading was taken for. */
export interface PreviewedOptions {
  query: ImportQuery;
  /** [heading, a property, a userfield's id, or null for a column left out]. */
  columns: [string, string | null][];
}

export interface Upload {
  id: string;
  name: string;
  format: Format;
  size: number;
  previewed?: PreviewedOptions;
  previewJobId?: string;
}

const COLUMNS = ['id', 'name', 'format', 'size', 'options', 'preview_job_id'] as const;
type UploadRow = Pick<ImportUploadsTable, (typeof COLUMNS)[number]>;

const toUpload = (row: UploadRow): Upload => ({
  id: row.id,
  name: row.name,
  format: row.format,
  size: row.size,
  ...(row.options === null ? {} : { previewed: JSON.parse(row.options) as PreviewedOptions }),
  ...(row.preview_job_id === null ? {} : { previewJobId: row.preview_job_id }),
});

/**
 * The files administrators upload in the console, kept in the database (any instance serves the next
 * step) until imported, for a day at most, each readable by its organization only: an id names an upload
 * but opens nothing by itself.
 */
export function uploadsRepository(db: Kysely<Database>) {
  const live = (orgId: string) => db.selectFrom('import_uploads').where('org_id', '=', orgId).where('expires_date', '>', now());

  return {
    async create(orgId: string, userId: string, file: { name: string; format: Format; bytes: Buffer }): Promise<string> {
      const id = newId();
      const created = new Date();
      // Expired uploads of every organization go, and this organization's beyond its latest few.
      await db.deleteFrom('import_uploads').where('expires_date', '<=', now()).execute();
      await db
        .insertInto('import_uploads')
        .values({
          org_id: orgId,
          id,
          name: file.name.slice(0, 255),
          format: file.format,
          bytes: file.bytes,
          size: file.bytes.length,
          uploaded_by: userId,
          options: null,
          preview_job_id: null,
          created_date: toTimestamp(created),
          expires_date: toTimestamp(new Date(created.getTime() + KEPT_MS)),
        })
        .execute();
      const kept = await db
        .selectFrom('import_uploads')
        .select('id')
        .where('org_id', '=', orgId)
        .orderBy('id', 'desc')
        .limit(KEPT_PER_ORGANIZATION)
        .execute();
      await db
        .deleteFrom('import_uploads')
        .where('org_id', '=', orgId)
        .where(
          'id',
          'not in',
          kept.map((row) => row.id),
        )
        .execute();
      return id;
    },

    async find(orgId: string, id: string): Promise<Upload | undefined> {
      if (!isId(id)) return undefined;
      const row = await live(orgId).select(COLUMNS).where('id', '=', id).executeTakeFirst();
      return row && toUpload(row);
    },

    /** The upload whose preview is the job `jobId`, if it is still kept. */
    async previewedBy(orgId: string, jobId: string): Promise<Upload | undefined> {
      const row = await live(orgId).select(COLUMNS).where('preview_job_id', '=', jobId).executeTakeFirst();
      return row && toUpload(row);
    },

    async bytes(orgId: string, id: string): Promise<Buffer | undefined> {
      const row = await live(orgId).select('bytes').where('id', '=', id).executeTakeFirst();
      return row && Buffer.from(row.bytes);
    },

    async previewed(orgId: string, id: string, options: PreviewedOptions, jobId: string): Promise<void> {
      await db
        .updateTable('import_uploads')
        .set({ options: JSON.stringify(options), preview_job_id: jobId })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .execute();
    },

    async delete(orgId: string, id: string): Promise<void> {
      await db.deleteFrom('import_uploads').where('org_id', '=', orgId).where('id', '=', id).execute();
    },
  };
}

/**
 * What each heading stood for in the organization's last import, by the heading as compared (case,
 * spaces and punctuation aside): offered again for the next file.
 */
export function mappingsRepository(db: Kysely<Database>) {
  return {
    async all(orgId: string): Promise<Map<string, string | null>> {
      const rows = await db.selectFrom('import_mappings').select(['heading', 'target']).where('org_id', '=', orgId).execute();
      return new Map(rows.map((row) => [row.heading, row.target]));
    },

    async remember(orgId: string, columns: readonly [string, string | null][]): Promise<void> {
      const updated = now();
      for (const [heading, target] of columns) {
        await db
          .insertInto('import_mappings')
          .values({ org_id: orgId, heading, target, updated_date: updated })
          .onConflict((conflict) => conflict.columns(['org_id', 'heading']).doUpdateSet({ target, updated_date: updated }))
          .execute();
      }
    },
  };
}
