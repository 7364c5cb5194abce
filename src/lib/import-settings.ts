/** The server's settings for imports (IMPORT_BATCH_TIME, IMPORT_SHARED_BATCH_TIME, IMPORT_PARALLELISM); each absent one has its default. */
export interface ImportSettings {
  /** How long each batch (its rows compared and written, one transaction) should take, in ms; DEFAULT_BATCH_MS if not told. */
  batchMs?: number;
  /** How long each batch should take while other connections write to the database beside the import (SQLite), in ms; DEFAULT_SHARED_BATCH_MS if not told, never more than batchMs. */
  sharedBatchMs?: number;
  /** How many passwords an import hashes at once; one a core if not told. */
  parallelism?: number;
}

/** How long an import's batch takes unless told otherwise: on SQLite a batch holds the event loop while it writes, so this bounds what another organization's request can wait. */
export const DEFAULT_BATCH_MS = 40;

/** How long an import's batch takes while others write beside it (IMPORT_SHARED_BATCH_TIME, src/imports/write-share.ts): what an API write waits at most for the import's write lock. */
export const DEFAULT_SHARED_BATCH_MS = 5;
