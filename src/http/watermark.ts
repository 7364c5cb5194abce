import type { TSchema } from '@sinclair/typebox';

declare module 'fastify' {
  interface FastifyInstance {
    /** The updatedDate up to which a list of the organization read after it is complete (db/watermark.ts). */
    updatedDateWatermark(orgId: string): Promise<string>;
  }
}

/**
 * Beyond v5: on every list that filters by `updatedDate`, the updatedDate from which a sync job
 * resumes without missing a change (`updatedDate=<it>/..`).
 */
export const WATERMARK_HEADER = 'Updated-Date-Watermark';

/** Whether a list's query takes the `updatedDate` filter, so that its answers carry the watermark. */
export function filtersByUpdatedDate(query: TSchema): boolean {
  return 'updatedDate' in ((query as { properties?: object }).properties ?? {});
}
