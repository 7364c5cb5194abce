import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.js';

/** Every migration, in order. Listed in code (not read from disk) so the compiled program is self-contained. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
};
