import { type FieldErrors, Invalid, NOT_FOUND_MESSAGE } from './domain-errors.js';
import { isId } from './ids.js';

/** A property naming an id, and how to look that id up in the caller's organization. */
type IdCheck = [name: string, id: string | undefined, find: (id: string) => Promise<unknown>];

/**
 * Refuses properties (query filters such as `userId`) that name an id that does not exist in the
 * organization: 400 `fieldErrors.<name>: "No resource exists with the given id."`, all at once.
 */
export async function requireExistingIds(checks: IdCheck[]): Promise<void> {
  const fieldErrors: FieldErrors = {};
  for (const [name, id, find] of checks) {
    if (id !== undefined && !(isId(id) && (await find(id)) !== undefined)) fieldErrors[name] = NOT_FOUND_MESSAGE;
  }
  if (Object.keys(fieldErrors).length > 0) throw new Invalid(fieldErrors);
}
