/** The server's settings for imports (IMPORT_BATCH_TIME, IMPORT_PARALLELISM); each absent one has its default. */
export interface ImportSettings {
  /** How long each batch (its rows compared and written, one transaction) should take, in ms; DEFAULT_BATCH_MS if not told. */
  batchMs?: number;
  /** How many passwords an import hashes at once; one a core if not told. */
  parallelism?: number;
}

/** How long an import's batch takes unless told otherwise: on SQLite a batch holds the event loop while it writes, so this bounds what another organization's request can wait. */
export const DEFAULT_BATCH_MS = 40;
