/** What an import does with the rows it counts: reads them, checks them, compares them with what is stored, writes them. */
export type Stage = 'read' | 'checked' | 'compared' | 'imported';

/**
 * How far an import is, told as it goes: by a bar or a line every few seconds at the command line,
 * not at all over HTTP.
 */
export interface Progress {
  /** The import is now at `stage`, over `total` rows (unknown while the file is being read). */
  stage(stage: Stage, total?: number): void;
  /** `rows` more rows done in the stage. */
  advance(rows: number): void;
  /** The import is over. */
  stop(): void;
}

export const noProgress: Progress = { stage: () => undefined, advance: () => undefined, stop: () => undefined };
