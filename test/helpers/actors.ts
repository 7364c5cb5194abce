import type { Actor } from '../../src/lib/actors.js';
import type { ChangeTime } from '../../src/db/unit-of-work.js';

/** Who acts for a test that calls services directly, as a token of the API would. */
export const TEST_ACTOR: Actor = Object.freeze({ type: 'token', id: 'test', name: 'test' });

/** A timestamp a test writes into a row as if a change had made it then (a row backdated). */
export function backdated(timestamp: string): ChangeTime {
  return timestamp as ChangeTime;
}
