/** How far an import is, told as it goes: by a bar or a line every few seconds at the command line, not at all over HTTP. */
export interface Progress {
  increment(rows: number): void;
  stop(): void;
}

/** What an import does with the rows it counts: checks them, compares them with what is stored, writes them. */
export type Stage = 'checked' | 'compared' | 'imported';

export type ProgressOf = (total: number, stage: Stage) => Progress;

export const noProgress: ProgressOf = () => ({ increment: () => undefined, stop: () => undefined });
